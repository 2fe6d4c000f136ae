"""Hangs told from idleness (harness/run/idleness.py): sooner than the stall limit, and never for a
loader that is only slow."""

from __future__ import annotations

import pytest

from harness.run import idleness

FUTEX = idleness.FUTEX_SYSCALL


@pytest.mark.skipif(FUTEX is None, reason="futex's syscall number is not known on this machine")
def test_only_a_futex_wait_with_no_timeout_waits_for_good():
    assert idleness.waits_for_good(f"{FUTEX} 0x55c11ce324f0 0x189 0x0 0x0 0x0 0xffffffff 0x7ffd 0x7f70")
    assert idleness.waits_for_good(f"{FUTEX} 0x55c11ce324f0 0x80 0x2 0x0 0x0 0x0 0x7ffd 0x7f70")
    assert not idleness.waits_for_good(f"{FUTEX} 0x55c11ce324f0 0x189 0x0 0x7ffd0000 0x0 0x0 0x1 0x2")
    assert not idleness.waits_for_good(f"{FUTEX} 0x55c11ce324f0 0x81 0x1 0x0 0x0 0x0 0x1 0x2")  # a wake
    assert not idleness.waits_for_good("230 0x1 0x1 0x7f7041e4eab0 0x0 0x0 0x0 0x7f70 0x7f70")  # sleep
    assert not idleness.waits_for_good("running")
