"""`check` and `lint` on the cases and on realistic scripts: each broken case diagnosed as itself,
each fixed one clean, long scripts judged from their first batches."""

from __future__ import annotations

import pytest

from harness.cases import discover
from harness.lint import lint_paths
from tests.conftest import harness

pytestmark = pytest.mark.linux


CASES = discover()


# Rules that find another form of a case's mechanism than its broken.py shows (07's broken.py is a
# notebook; DLP013 finds the same failure in a script, a class under the main guard).
OTHER_FORMS = {"07_interactive_main_class": {"DLP013"}}


def test_lint_flags_each_broken_case_that_has_a_rule():
    for case in CASES:
        rules = set(case.recognition.lint) - OTHER_FORMS.get(case.name, set())
        flagged = {f.code for f in lint_paths([case.script("broken")], notebook=case.via_stdin)}
        assert rules <= flagged, f"{case.name}: {rules - flagged} not flagged"


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["check", "no/such.py"], "no such script: no/such.py"),
        (
            ["check", "cases/01_missing_main_guard/fixed.py", "--batches", "0"],
            "--batches must be a whole number",
        ),
        (["check", "cases/01_missing_main_guard/fixed.py", "--stall", "-1"], "--stall must be positive"),
        (["lint", "no/such/dir"], "no such file or folder: no/such/dir"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args, named):
    completed = harness(*args)
    assert completed.returncode == 2 and named in completed.stderr and "Traceback" not in completed.stderr


def test_lint_cli_exit_status():
    assert harness("lint", "cases/09_duplicated_randomness/broken.py").returncode == 1
    assert harness("lint", "cases/09_duplicated_randomness/fixed.py").returncode == 0


def test_check_progress_names_each_finished_run_and_the_runs_still_going():
    import io

    from rich.console import Console

    from harness.commands.check_progress import Progress
    from harness.results import RunResult

    out = io.StringIO()
    progress = Progress(Console(file=out, width=200), total=2, every_s=0.05)
    with progress, progress.running("windows"):
        import time

        time.sleep(0.2)
        assert progress.still_going().startswith("windows ")
        progress.done(RunResult(case="c", variant="check", profile="linux", outcome="ok", duration_s=3.2))
    assert progress.still_going() == ""
    text = out.getvalue()
    assert "[1/2] linux → ok (3 s)" in text and "still running: windows" in text
