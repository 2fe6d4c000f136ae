"""The benchmark: the autotune's search and measurement, and `harness bench --quick` end to end."""

from __future__ import annotations

import json
import os
import time

import pytest
import torch

from fixes.autotune import recommend_num_workers
from harness.bench import summary
from tests.conftest import harness
from tests.waiting_dataset import Waits

pytestmark = pytest.mark.linux


@pytest.mark.slow
def test_recommend_picks_more_workers_for_a_dataset_that_waits():
    choice = recommend_num_workers(Waits(), batch_size=4, max_workers=4, multiprocessing_context="fork")
    assert choice.num_workers >= 3, str(choice)
    assert choice.samples_per_s > 2.5 * 100 * 0.8  # 3–4 overlapped waits of 10 ms
    assert choice.loader_kwargs() == {"num_workers": choice.num_workers, "persistent_workers": True}
    assert len(choice.tried) < 5, f"tried every count: {choice}"
    assert str(choice).startswith(f"num_workers={choice.num_workers}: ")


@pytest.fixture(scope="module")
def quick_bench(tmp_path_factory):
    path = tmp_path_factory.mktemp("bench") / "bench.json"
    started = time.monotonic()
    completed = harness(
        "bench", "--quick", "--results", str(path), timeout=600, env={**os.environ, "COLUMNS": "160"}
    )
    return completed, json.loads(path.read_text()), time.monotonic() - started


@pytest.mark.slow
def test_quick_bench_measures_every_setting_and_prints_the_ratios(quick_bench):
    completed, data, seconds = quick_bench
    assert completed.returncode == 0, completed.stderr[-3000:]
    assert seconds < 240, f"the quick bench took {seconds:.0f} s (it should take under 2 minutes)"
    for kind in ("cpu", "io"):
        for method in ("fork", "forkserver", "spawn"):
            swept = data["sweeps"][kind][method]
            assert {row["key"] for row in swept["settings"]} == {
                "0 workers",
                "2 workers, not persistent, prefetch 2",
                "2 workers, persistent, prefetch 2",
            }
            assert data["autotune"][kind][method]["chosen"]["share_of_best"] > 0
    assert "Autotune: at least" in completed.stdout and "Harness overhead:" in completed.stdout
    assert data["overhead"]["runs"] == 2 and data["overhead"]["plain_s"] > 0


@pytest.mark.slow
def test_quick_bench_shows_what_start_methods_cost(quick_bench):
    _, data, _ = quick_bench
    io_fork = data["sweeps"]["io"]["fork"]
    assert summary.rate_of(io_fork, 2) > 1.5 * summary.rate_of(io_fork, 0), (
        "two waiting workers: twice the rate"
    )
    spawn_first = data["sweeps"]["cpu"]["spawn"]["first_batch"]["2"]["median"]
    fork_first = data["sweeps"]["cpu"]["fork"]["first_batch"]["2"]["median"]
    assert spawn_first > fork_first + 0.5, "a spawned worker imports torch before its first batch"
    assert data["startup"]["fork"]["0"]["median"] < data["startup"]["spawn"]["0"]["median"]


@pytest.mark.slow
def test_side_by_side_takes_turns_and_reports_each_epoch(capsys):
    from harness.bench import measure

    dataset = torch.utils.data.TensorDataset(torch.arange(64.0))
    configs = [summary.recommended_config(0), summary.recommended_config(1)]
    measure.side_by_side(dataset, "fork", configs, batch_size=8, rounds=3)
    (line,) = capsys.readouterr().out.splitlines()
    measured = json.loads(line)["side_by_side"]
    assert [entry["config"] for entry in measured] == configs
    assert all(len(entry["samples_per_s"]) == 3 and min(entry["samples_per_s"]) > 0 for entry in measured)
