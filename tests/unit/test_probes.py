"""What the boot probes observe from outside a script: the epochs of its DataLoaders, and the
notebook-style stdin mode."""

from __future__ import annotations

import pytest

from harness import judge
from harness.outcomes import Outcome

pytestmark = pytest.mark.linux


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
