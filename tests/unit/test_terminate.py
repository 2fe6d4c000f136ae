"""Ending a run's processes: a process that has ended counts as ended before anyone reaps it."""

from __future__ import annotations

import os
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


# The main thread ends (pthread_exit) and another goes on: a zombie leader that still runs, as Wine
# leaves a winedevice.exe whose driver thread polls on after its session was ended.
HALF_ENDED = (
    "import ctypes, threading, time\n"
    "def poll():\n"
    "    while True:\n"
    "        time.sleep(0.05)\n"
    "threading.Thread(target=poll).start()\n"
    "print('polling', flush=True)\n"
    "ctypes.CDLL(None).pthread_exit(None)\n"
)


def test_a_zombie_whose_threads_still_run_is_alive_until_ended():
    env = {**os.environ, processes.RUN_ID_VARIABLE: "half-ended"}
    child = subprocess.Popen([sys.executable, "-c", HALF_ENDED], stdout=subprocess.PIPE, text=True, env=env)
    child.stdout.readline()
    process = psutil.Process(child.pid)
    deadline = time.monotonic() + 5
    while process.status() != psutil.STATUS_ZOMBIE and time.monotonic() < deadline:
        time.sleep(0.02)
    assert process.status() == psutil.STATUS_ZOMBIE, "its main thread has ended"
    assert processes.alive(process), "a thread of it still runs: not ended"
    assert processes.environ(process)[processes.RUN_ID_VARIABLE] == "half-ended", "read through that thread"
    processes.terminate([process])
    assert child.wait(timeout=5) < 0, "ended by a signal"
    assert not processes.alive(process)


CATCHES_SIGUSR1 = (
    "import faulthandler, signal, sys, time; faulthandler.register(signal.SIGUSR1, file=sys.stderr); "
    "print('armed', flush=True); time.sleep(60)"
)


def test_only_a_process_that_catches_sigusr1_is_asked_for_its_stacks(tmp_path):
    """SIGUSR1's default action ends a process: asking a helper that does not catch it (a
    torch_shm_manager) for stacks would kill it before it removed its clients' segments."""
    armed = subprocess.Popen(
        [sys.executable, "-c", CATCHES_SIGUSR1], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    plain = subprocess.Popen(["sleep", "60"])
    try:
        assert armed.stdout.readline() == "armed\n"
        assert processes.catches(armed.pid, signal.SIGUSR1)
        assert not processes.catches(plain.pid, signal.SIGUSR1)
        processes.dump_stacks([psutil.Process(armed.pid), psutil.Process(plain.pid)], tmp_path, wait_s=0.5)
        time.sleep(0.2)
        assert plain.poll() is None, "the process that does not catch SIGUSR1 was not sent it"
        assert armed.poll() is None
    finally:
        for child in (armed, plain):
            child.kill()
            child.wait()
        armed.stdout.close()
        armed.stderr.close()
