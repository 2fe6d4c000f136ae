"""One matrix per pass (harness/scheduler/matrix_pass.py): read where this environment made it,
never from another environment; `run` takes a pass's runs instead of making them again."""

from __future__ import annotations

import os

from harness import environment, results
from harness.results import ResultsFile, RunResult
from harness.scheduler import matrix_pass
from tests.conftest import harness


def _write_pass(folder, env, outcome="crash"):
    run = RunResult(
        case="01_missing_main_guard", variant="broken", profile="linux-3.14", outcome=outcome,
        expected="crash", matched=outcome == "crash",
    )  # fmt: skip
    results.save(folder / matrix_pass.MATRIX_FILE, ResultsFile(env, [run]))
    results.save(folder / matrix_pass.RERUNS_FILE, ResultsFile(env, []))


def test_a_pass_is_read_only_in_the_environment_that_made_it(tmp_path):
    assert matrix_pass.read(tmp_path) is None, "no pass there yet"
    here = environment.describe()
    _write_pass(tmp_path, here)
    assert set(matrix_pass.read(tmp_path).results) == {("01_missing_main_guard", "broken", "linux-3.14")}
    _write_pass(tmp_path, {**here, "torch": "1.0.0"})
    assert matrix_pass.read(tmp_path) is None, "another torch: not this environment's matrix"


def test_run_takes_the_runs_of_its_pass_and_makes_none_again(tmp_path):
    _write_pass(tmp_path, environment.describe(), outcome="hang")
    completed = harness(
        "run", "01", "--variant", "broken", "--profile", "linux-3.14", "--no-record",
        env={**os.environ, matrix_pass.PASS_VARIABLE: str(tmp_path)},
    )  # fmt: skip
    assert "1 of 1 runs were observed earlier in this pass" in completed.stdout, completed.stdout
    assert "hang" in completed.stdout, "the pass's own outcome is shown"
    assert completed.returncode == 1, "the pass's hang is not what case 01 expects: a mismatch"
