"""What the boot probes observe from outside a script: the epochs of its DataLoaders, and the
notebook-style stdin mode."""

from __future__ import annotations

import pytest

from harness import judge, scheduler
from harness.outcomes import Outcome
from harness.run.settings import RunSettings

pytestmark = pytest.mark.linux


@pytest.mark.parametrize(
    ("variant", "method"),
    [("broken", "windows-emulated"), ("fixed", "windows-emulated"), ("broken", "linux")],
)
def test_each_epoch_is_timed_to_its_first_batch(matrix_results, variant, method):
    epochs = matrix_results[("13_spawn_startup_cost", variant, method)].loader_epochs
    assert len(epochs) == 3, "three epochs, three DataLoader iterations"
    assert all(
        e["batches"] == 100 and e["duration_s"] >= e["last_batch_s"] > e["first_batch_s"] > 0 for e in epochs
    )
    starts = [e["started_s"] for e in epochs]
    assert starts == sorted(starts)
    later = max(e["first_batch_s"] for e in epochs[1:])
    if (variant, method) == ("broken", "windows-emulated"):
        assert later > 1.0, "every epoch starts new spawned workers and re-sends 200 MB"
    else:
        assert later < 0.5, "fork or persistent workers start the later epochs at once"


def test_judge_startup():
    def epoch(wait, duration, last=None):
        return {"started_s": 0.0, "first_batch_s": wait, "batches": 10, "duration_s": duration} | (
            {"last_batch_s": last} if last is not None else {}
        )

    slow = [epoch(1.0, 2.0), epoch(3.0, 4.0), epoch(3.0, 4.0)]
    assert judge.judge_startup(slow, 0.25) == (
        Outcome.SLOW,
        "epochs after the first waited 3.00 s for their first batch, 75% of their time up to their "
        "last batch (threshold 25%)",
    )
    assert judge.judge_startup([epoch(1.0, 2.0), epoch(0.01, 1.0)], 0.25)[0] is Outcome.OK
    assert judge.judge_startup([epoch(1.0, 2.0)], 0.25)[0] is Outcome.ERROR, "one epoch cannot show it"


def test_the_workers_shutdown_is_not_counted_as_start_up_but_is_named():
    """Under spawn with file_system (macOS) each epoch can wait 5 s a worker after its last batch:
    that must neither dilute the start-up share below the threshold nor pass unnoticed."""

    def epoch(wait, last, duration):
        return {
            "started_s": 0.0,
            "first_batch_s": wait,
            "last_batch_s": last,
            "batches": 10,
            "duration_s": duration,
        }

    epochs = [epoch(3.0, 4.0, 14.0), epoch(3.0, 4.0, 14.0)]
    outcome, figures = judge.judge_startup(epochs, 0.25)
    assert outcome is Outcome.SLOW, figures
    assert (
        "75% of their time up to their last batch; each epoch then waited 10.0 s for its workers" in figures
    )
    quick_exit = [epoch(3.0, 4.0, 4.1), epoch(3.0, 4.0, 4.1)]
    assert "workers to exit" not in judge.judge_startup(quick_exit, 0.25)[1]


@pytest.mark.slow
def test_stdin_mode_runs_code_in_a_main_without_a_file(tmp_path):
    script = tmp_path / "cell.py"
    script.write_text(
        "import __main__, sys\nprint('file' if hasattr(__main__, '__file__') else 'no file', sys.argv)\n"
    )
    plain = scheduler.observe(script, "windows-emulated", RunSettings(timeout_s=30), case="c", variant="v")
    fed = scheduler.observe(
        script, "windows-emulated", RunSettings(30, via_stdin=True), case="c", variant="v"
    )
    assert plain.output_tail.startswith("file")
    assert fed.outcome == "ok" and fed.output_tail.startswith("no file"), fed.output_tail


@pytest.mark.slow
def test_stdin_mode_makes_the_scripts_folder_importable(tmp_path):
    (tmp_path / "helper_module.py").write_text("VALUE = 42\n")
    script = tmp_path / "cell.py"
    script.write_text("from helper_module import VALUE\nprint(VALUE)\n")
    fed = scheduler.observe(script, "linux", RunSettings(30, via_stdin=True), case="c", variant="v")
    assert fed.output_tail.strip() == "42", fed.output_tail
