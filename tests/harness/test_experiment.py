"""`python -m harness experiment`: each run through the harness, its figures read from its output,
and one file recorded that the pages quote."""

from __future__ import annotations

import json

from tests.conftest import harness

SCRIPT = """
import sys, time
if sys.argv[1:] == ["hang"]:
    time.sleep(600)
print(f"done: took {sys.argv[1]} ms")
"""


def test_an_experiment_records_each_runs_outcome_and_figures(tmp_path):
    script = tmp_path / "timed.py"
    script.write_text(SCRIPT, encoding="utf-8")
    declarations = tmp_path / "experiments.toml"
    declarations.write_text(
        f"""
[timed]
about = "a figure printed, and a run that never ends"
script = "{script.as_posix()}"
timeout = 4
measure = {{ took_ms = 'took ([\\d,]+) ms' }}
runs = [
    {{ label = "quick", args = ["1,250"], repeat = 2 }},
    {{ label = "stuck", args = ["hang"] }},
]
""",
        encoding="utf-8",
    )
    recorded = tmp_path / "recorded"
    where = ["--declarations", str(declarations), "--recorded-dir", str(recorded)]
    done = harness("experiment", "timed", *where, "--jobs", "3")
    assert done.returncode == 0, done.stdout + done.stderr
    data = json.loads((recorded / "timed.json").read_text(encoding="utf-8"))
    by_label = sorted((run["label"], run["outcome"], run["measured"]["took_ms"]) for run in data["runs"])
    assert by_label == [("quick", "ok", [1250.0]), ("quick", "ok", [1250.0]), ("stuck", "hang", [])]
    assert "3 runs" in done.stdout


def test_an_unknown_experiment_is_a_usage_error_naming_the_declared_ones():
    done = harness("experiment", "no_such_experiment")
    assert done.returncode == 2
    assert "no experiment named no_such_experiment" in done.stdout + done.stderr
    assert "openmp_worker_throughput" in done.stdout + done.stderr
