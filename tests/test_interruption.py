"""Interrupting the harness, and repeating the matrix."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil

from harness import processes
from harness.results import ResultsFile, save

ROOT = Path(__file__).resolve().parent.parent


def run_processes_alive() -> list[psutil.Process]:
    found = []
    for process in psutil.process_iter():
        try:
            if processes.RUN_ID_VARIABLE in process.environ():
                found.append(process)
        except psutil.Error:
            continue
    return [p for p in found if p.pid != os.getpid()]


def test_ctrl_c_stops_every_run_and_keeps_the_previous_results(tmp_path):
    results = tmp_path / "results.json"
    save(results, ResultsFile(environment={"note": "previous results, not to be touched"}, results=[]))
    before = results.read_text()
    harness = subprocess.Popen(
        [sys.executable, "-m", "harness", "run", "11", "--variant", "broken", "--results", str(results)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # as in a terminal
    )
    time.sleep(6)  # the runs are going: the fork one is hanging, the others start workers
    harness.send_signal(signal.SIGINT)
    started = time.monotonic()
    _, stderr = harness.communicate(timeout=30)
    assert time.monotonic() - started < 10, "stopped within a few seconds"
    assert harness.returncode == 130
    assert "interrupted" in stderr
    time.sleep(0.5)
    assert run_processes_alive() == []
    assert results.read_text() == before


def test_repeat_counts_agreement():
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "harness",
            "run",
            "3",
            "--start-method",
            "fork",
            "--repeat",
            "2",
            "--no-record",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert completed.returncode == 0, completed.stdout
    assert "Agreement with the expectation over 2 repetitions" in completed.stdout
    assert completed.stdout.count("2/2") == 2  # broken and fixed under fork
