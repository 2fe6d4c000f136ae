"""Interrupting the harness, and repeating the matrix."""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import psutil
import pytest

from harness.boot import dlp_contract as contract
from harness.results import ResultsFile, save
from harness.run import processes
from tests.conftest import ROOT, harness, run_processes_alive

pytestmark = [pytest.mark.slow, pytest.mark.linux]


def test_ctrl_c_stops_every_run_and_keeps_the_previous_results(tmp_path):
    results = tmp_path / "results.json"
    save(results, ResultsFile(environment={"note": "previous results, not to be touched"}, results=[]))
    before = results.read_text()
    running = subprocess.Popen(
        # --idle 0: the fork run stays stuck until the interruption, as it would without idleness
        [
            sys.executable,
            "-m",
            "harness",
            "run",
            "11",
            "--variant",
            "broken",
            "--idle",
            "0",
            # every profile at once: the longest runs go first, so with fewer jobs the fork run
            # could still be waiting for a slot when the interruption comes
            "--jobs",
            "5",
            "--results",
            str(results),
        ],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # as in a terminal
    )
    _wait_for_fork_workers(running)  # the runs are going: the fork one hangs, the others start workers
    running.send_signal(signal.SIGINT)
    started = time.monotonic()
    _, stderr = running.communicate(timeout=30)
    assert time.monotonic() - started < 20, "stopped within seconds, not at the runs' timeouts"
    assert running.returncode == 130
    assert "interrupted" in stderr
    # where the hanging run was when it was stopped: its workers, in the script's own code
    assert "broken.py under linux: 2 process(es) in record (broken.py:" in stderr, stderr
    time.sleep(0.5)
    assert run_processes_alive() == []
    assert results.read_text() == before


def _wait_for_fork_workers(running: subprocess.Popen, timeout_s: float = 90) -> None:
    """Until the fork run's two workers exist (a loaded machine imports torch slowly), and a moment
    more for them to reach the lock they hang on."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and running.poll() is None:
        forked = [p for p in run_processes_alive() if _start_method(p) == "fork"]
        if len(forked) >= 3:  # the script and its two workers
            time.sleep(1.0)
            return
        time.sleep(0.2)
    raise AssertionError("the fork run's workers never started")


def _start_method(process) -> str | None:
    try:
        return processes.environ(process).get(contract.START_METHOD)
    except (psutil.Error, OSError):
        return None


def test_repeat_counts_agreement():
    completed = harness("run", "3", "--profile", "linux", "--repeat", "2", "--no-record", timeout=120)
    assert completed.returncode == 0, completed.stdout
    assert "Agreement with the expectation over 2 repetitions" in completed.stdout
    assert completed.stdout.count("2/2") == 2  # broken and fixed under linux (fork)
