"""The benchmark: the autotune's search and measurement, and `harness bench --quick` end to end."""

from __future__ import annotations

import json

import pytest

from fixes.autotune import loading_rate, search
from harness.bench import summary
from tests.conftest import harness
from tests.waiting_dataset import Waits

pytestmark = pytest.mark.linux


CURVES = {
    "compute-bound on 2 CPUs": [100, 100, 200, 195, 190],
    "waiting on storage": [50, 50, 100, 150, 200],
    "peak at 6 of 8": [10, 10, 20, 30, 40, 50, 60, 58, 57],
    "peak at 3 of 16": [min(n, 3) * 10 - max(0, n - 3) for n in range(17)],
    "peak at 11 of 16": [min(n, 11) * 10 - max(0, n - 11) for n in range(17)],
    "peak at 13 of 16": [min(n, 13) * 10 - max(0, n - 13) for n in range(17)],
}


@pytest.mark.parametrize("name", CURVES)
def test_search_finds_the_best_count_within_tolerance(name):
    curve = CURVES[name]
    tried = []
    most = len(curve) - 1

    def measure(n):
        tried.append(n)
        return curve[n]

    chosen = search(measure, start=most // 2, most=most)
    assert curve[chosen] >= 0.95 * max(curve)
    assert len(tried) == len(set(tried)), "a count was measured twice"
    if most >= 8:
        assert len(tried) <= most // 2 + 1, f"tried {sorted(tried)}: nearly all of them"


def test_search_prefers_fewer_workers_when_they_are_as_fast():
    assert search(lambda n: 100.0, start=4, most=8) == 0
    assert search(lambda n: [10, 50, 100, 101, 102][n], start=2, most=4) == 2


def test_search_tries_loading_in_process_when_few_workers_win():
    # Cheap samples: any worker loses to loading in the main process (no transfer between processes).
    assert search(lambda n: [100, 60, 80, 70, 60][n], start=2, most=4) == 0


def test_loading_rate_drops_options_that_in_process_loading_refuses():
    rate = loading_rate(
        Waits(),
        0,
        4,
        4,
        shuffle=True,
        persistent_workers=True,
        prefetch_factor=4,
        multiprocessing_context="fork",
    )
    assert 60 < rate < 110  # one sample per 10 ms at most


def test_a_sweep_summary_counts_the_epochs_that_training_would_see():
    records = [
        {
            "config": {"num_workers": 2, "persistent_workers": False, "prefetch_factor": 2},
            "epochs": [
                {"first_batch_s": 2.0, "epoch_s": 4.0, "samples": 100},
                {"first_batch_s": 1.0, "epoch_s": 2.0, "samples": 100},
                {"first_batch_s": 1.5, "epoch_s": 1.0, "samples": 100},
            ],
        },
        {
            "config": {"num_workers": 2, "persistent_workers": True, "prefetch_factor": 2},
            "epochs": [
                {"first_batch_s": 3.0, "epoch_s": 5.0, "samples": 100},
                {"first_batch_s": 0.1, "epoch_s": 0.5, "samples": 100},
            ],
        },
        {"sweep_s": 12.5},
    ]
    swept = summary.summarise_sweep(records)
    # workers that are not persistent start again every epoch: every epoch counts, the first too
    assert swept["settings"][0]["throughput"] == {"median": 50.0, "min": 25.0, "max": 100.0, "n": 3}
    assert swept["settings"][1]["throughput"] == {"median": 200.0, "min": 200.0, "max": 200.0, "n": 1}
    assert swept["best"] == "2 workers, persistent, prefetch 2"
    # every epoch of the non-persistent setting started its workers; only the first of the other
    assert swept["first_batch"] == {2: {"median": 1.75, "min": 1.0, "max": 3.0, "n": 4}}
    judged = summary.summarise_autotune(
        swept, {"num_workers": 2, "tried": {}, "seconds": 2.5}, heuristic_workers=2
    )
    assert judged["chosen"]["share_of_best"] == 1.0 and judged["share_of_sweep_time"] == 0.2


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--workload", "gpu"], "unknown workload 'gpu'"),
        (["--start-method", "thread"], "unknown start method 'thread'"),
        (["--max-workers", "many"], "--max-workers must be a whole number, not 'many'"),
        (["--overhead-repeat", "0"], "--overhead-repeat must be a whole number of at least 1, not '0'"),
        (["--no-loaders", "--no-overhead"], "leaves nothing to measure"),
    ],
)
def test_bad_bench_arguments_are_named(arguments, message):
    completed = harness("bench", *arguments, timeout=60)
    assert completed.returncode == 2
    assert message in completed.stderr and completed.stderr.count("\n") == 1


def test_a_bench_of_the_overhead_alone_keeps_the_recorded_sweep(tmp_path):
    from harness.bench.steps import SCHEMA_VERSION, merged_with_recorded

    path = tmp_path / "bench.json"
    sweep_run = {
        "schema": SCHEMA_VERSION,
        "sweeps": {"cpu": {}},
        "duration_s": 539,
        "overhead": {"added": 0.01},
    }
    path.write_text(json.dumps(sweep_run))
    overhead_run = {"schema": SCHEMA_VERSION, "duration_s": 786, "overhead_full_matrix": {"added": 0.02}}
    merged = merged_with_recorded(path, overhead_run)
    assert merged["duration_s"] == 539 and merged["sweeps"] == {"cpu": {}}
    assert merged["overhead_full_matrix"] == {"added": 0.02} and merged["overhead"] == {"added": 0.01}
    path.write_text(json.dumps(merged))
    again = merged_with_recorded(path, {"schema": SCHEMA_VERSION, "sweeps": {}, "duration_s": 500})
    assert again["duration_s"] == 500 and again["overhead_full_matrix"] == {"added": 0.02}


def _report_text(plan_name: str) -> str:
    from rich.console import Console

    from harness.bench import report

    judged = {
        "chosen": {"num_workers": 2, "share_of_best": 0.9},
        "heuristic": {"num_workers": 2, "share_of_best": 0.5},
        "share_of_sweep_time": 0.5,
        "seconds": 1.0,
    }
    spent = {
        "runs": 78,
        "parallel": 2,
        "harness_passes_s": [110.0],
        "harness_s": 110.0,
        "plain_s": 100.0,
        "added": 0.1,
        "harness_cpu_s": [3.0],
        "harness_cpu_share": 0.0136,
        "hang_latency": [],
    }
    data = {
        "plan": {"name": plan_name},
        "autotune": {"cpu": {"fork": judged}},
        "overhead": spent,
        "duration_s": 1.0,
    }
    console = Console(record=True, width=200)
    report.print_report(console, data)
    return console.export_text()


def test_goals_are_judged_on_the_default_plan_only():
    missed = _report_text("default")
    assert missed.count("MISSED") == 3, missed
    quick = _report_text("quick")
    assert "MISSED" not in quick and quick.count("not judged on this plan") == 3, quick
    assert "Autotune: at least 90%" in quick and "+10.0%" in quick
    assert "own process used 3.0 s of CPU per pass: 1.4% of the 2 CPUs' time" in quick


def test_an_overhead_only_bench_writes_no_workload_files(monkeypatch, tmp_path):
    from harness import cli
    from harness.bench import steps, workloads

    def no_files(*_):
        raise AssertionError("--no-loaders wrote the io workload's files")

    monkeypatch.setattr(workloads, "write_files", no_files)
    monkeypatch.setattr(steps, "measure_overhead", lambda *_: {"runs": 0, "hang_latency": []})
    monkeypatch.setattr(steps.report, "print_report", lambda *_: None)
    path = tmp_path / "bench.json"
    assert cli.main(["bench", "--no-loaders", "--results", str(path)]) == 0
    data = json.loads(path.read_text())
    assert data["overhead"]["runs"] == 0 and "sweeps" not in data


def _setting(workers: int, persistent: bool, rates: list[float]) -> dict:
    """A sweep record whose epochs after the first run at `rates` samples/s (100 samples each)."""
    epochs = [{"first_batch_s": 1.0, "epoch_s": 10.0, "samples": 100}]
    epochs += [{"first_batch_s": 0.1, "epoch_s": 100 / rate, "samples": 100} for rate in rates]
    return {
        "config": summary.recommended_config(workers) | {"persistent_workers": persistent},
        "epochs": epochs,
    }


def test_a_choice_measured_again_beside_the_best_is_judged_by_that_pair():
    records = [_setting(2, True, [500, 520]), _setting(3, True, [600, 640]), {"sweep_s": 20.0}]
    swept = summary.summarise_sweep(records)
    assert summary.best_config(records) == summary.recommended_config(3)
    record = {"num_workers": 2, "tried": {}, "seconds": 2.0}
    by_sweep = summary.summarise_autotune(swept, record, heuristic_workers=2)
    assert by_sweep["chosen"]["share_of_best"] == 0.823  # 510 / 620: a slow spell during 2 workers?
    again = {
        "side_by_side": [
            {"config": summary.recommended_config(3), "samples_per_s": [600.0, 610.0, 590.0]},
            {"config": summary.recommended_config(2), "samples_per_s": [590.0, 580.0, 600.0]},
        ]
    }
    judged = summary.summarise_autotune(swept, record, heuristic_workers=2, side_by_side=again)
    assert judged["chosen"]["share_of_best"] == 0.983  # 590 / 600
    assert judged["chosen"]["share_of_best_in_sweep"] == 0.823
    assert judged["heuristic"]["share_of_best"] == 0.823, "the heuristic is judged by the sweep"
