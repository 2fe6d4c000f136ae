"""Hangs told from idleness (harness/run/idleness.py): sooner than the stall limit, and never for a
loader that is only slow."""

from __future__ import annotations

import time

import pytest

from harness import verdict
from harness.run.settings import RunSettings
from tests.conftest import SCRIPTS_DIR


@pytest.mark.slow
@pytest.mark.linux
@pytest.mark.parametrize("mode", ["io", "first", "thread"])
def test_a_slow_loader_idle_past_the_limit_is_not_hung(mode):
    settings = RunSettings(timeout_s=40, args=(mode,), idle_s=1.0)
    result = verdict.reach(SCRIPTS_DIR / "slow_loader.py", "linux", settings, case="slow", variant=mode)
    assert result.outcome == "ok", f"{result.outcome}: {result.signature}\n{result.output_tail}"
    assert "[[0, 1], [2, 3]]" in result.output_tail


@pytest.mark.slow
@pytest.mark.linux
def test_a_deadlocked_worker_is_a_hang_within_seconds_not_at_the_stall_limit():
    settings = RunSettings(timeout_s=60, stall_s=50, idle_s=2.0)
    started = time.monotonic()
    result = verdict.reach(SCRIPTS_DIR / "worker_hangs.py", "linux", settings, case="hang", variant="idle")
    elapsed = time.monotonic() - started
    assert result.outcome == "hang", result.output_tail
    assert result.signature.startswith("hang: 2 process(es) in __getitem__ (worker_hangs.py:"), (
        result.signature
    )
    assert "; idle 2 s waiting for a batch" in result.signature
    assert elapsed < 20, f"the hang took {elapsed:.1f} s to call (stall limit 50 s)"
