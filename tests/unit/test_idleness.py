"""Hangs told from idleness (harness/run/idleness.py): sooner than the stall limit, and never for a
loader that is only slow."""

from __future__ import annotations

import subprocess
import sys
import time

import psutil
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


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="run-queue waits: Linux's /proc")
def test_a_starved_process_queues_for_the_cpu_and_a_sleeping_one_does_not():
    """Three busy loops on one CPU each use about a third of it and wait in the run queue for the
    rest: work, however little CPU each gets; a sleeping process neither uses nor waits."""
    pinned = "import os; os.sched_setaffinity(0, {0}); exec('while True: pass')"
    busy = [subprocess.Popen([sys.executable, "-c", pinned]) for _ in range(3)]
    sleeping = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        time.sleep(0.5)  # the interpreters started
        busy_watch, sleeping_watch = idleness.CpuWatch(0.0), idleness.CpuWatch(0.0)
        for at in (1.0, 2.0):
            busy_watch.poll([psutil.Process(p.pid) for p in busy], at)
            sleeping_watch.poll([psutil.Process(sleeping.pid)], at)
            time.sleep(1.0)
        used, queued = busy_watch.share(2.0, 1.0), busy_watch.queued(2.0, 1.0)
        assert 0.6 < used < 1.4 and queued > 1.0, (used, queued)  # 3 × ⅔ s queued a second
        assert sleeping_watch.share(2.0, 1.0) + sleeping_watch.queued(2.0, 1.0) < 0.01
    finally:
        for process in (*busy, sleeping):
            process.kill()
            process.wait()
