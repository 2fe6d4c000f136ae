"""A run that hangs in a DataLoader worker: classified as a hang, stacks kept, nothing left alive."""

from __future__ import annotations

import time

import psutil
import pytest

from harness import verdict
from harness.run.settings import RunSettings
from tests.conftest import SCRIPTS_DIR

pytestmark = pytest.mark.linux

TIMEOUT_S = {"linux": 6.0, "windows-emulated": 15.0}  # spawn: the workers must import torch before they block


def _gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


@pytest.mark.slow
@pytest.mark.parametrize("method", sorted(TIMEOUT_S))
def test_worker_hang_is_classified_with_stacks_and_contained(method):
    timeout = TIMEOUT_S[method]
    started = time.monotonic()
    result = verdict.reach(
        SCRIPTS_DIR / "worker_hangs.py", method, RunSettings(timeout_s=timeout), case="hang", variant="probe"
    )
    elapsed = time.monotonic() - started

    assert result.outcome == "hang", result.output_tail
    assert elapsed < timeout + 20, f"took {elapsed:.1f}s for a {timeout}s timeout"
    workers = [text for text in result.stacks.values() if "in __getitem__" in text]
    assert len(workers) == 2, "both workers' stacks, stopped inside __getitem__, are recorded"
    assert all("_worker_loop" in text and "worker_hangs.py" in text for text in workers)
    assert any("worker_hangs.py" in text and "in <module>" in text for text in result.stacks.values()), (
        "the main process's stack is recorded too"
    )
    pids = [int(pid) for pid in result.stacks]
    assert len(pids) >= 3
    assert all(_gone(pid) for pid in pids), "every process of the run is gone"
