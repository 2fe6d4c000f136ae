"""What the boot probes observe from outside a script: the epochs of its DataLoaders, and the
notebook-style stdin mode."""

from __future__ import annotations

import pytest

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
