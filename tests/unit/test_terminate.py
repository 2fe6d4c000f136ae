"""Ending a run's processes: a process that has ended counts as ended before anyone reaps it."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import psutil
import pytest

from harness.run import processes

pytestmark = pytest.mark.linux

# Starts a grandchild that sleeps, prints its pid, and exits: the grandchild is an orphan.
ORPHAN_MAKER = (
    "import subprocess, sys; "
    "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'], "
    "stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL); print(p.pid)"
)


def test_terminate_leaves_the_return_code_of_its_own_child_to_its_owner():
    child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    processes.terminate([psutil.Process(child.pid)])
    assert child.wait(timeout=5) == -signal.SIGTERM, "the harness's Popen still sees how its child died"


def test_terminate_does_not_wait_for_init_to_reap_an_orphan():
    made = subprocess.run([sys.executable, "-c", ORPHAN_MAKER], capture_output=True, text=True, check=True)
    orphan = psutil.Process(int(made.stdout))
    started = time.monotonic()
    processes.terminate([orphan])
    elapsed = time.monotonic() - started
    assert elapsed < 0.5, f"terminate took {elapsed:.2f} s for one process that died on SIGTERM"
    assert not processes.wait_ended([orphan], 0), "it was ended (a zombie at most)"


def test_a_process_already_exiting_is_not_counted_as_outliving_the_script():
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    process = psutil.Process(child.pid)
    deadline = time.monotonic() + 10
    while process.status() != psutil.STATUS_ZOMBIE and time.monotonic() < deadline:
        time.sleep(0.05)  # not reaped yet: its memory is gone, its command line reads empty
    assert processes.is_exiting(process)
    child.wait()
    assert processes.is_exiting(process), "a process that is gone is not left behind either"
    assert not processes.is_exiting(psutil.Process())
