"""Launches the measuring processes (harness/bench/measure.py) and reads their records."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from ..run import processes
from ..run.watchdog import LIFELINE, end_run

MEASURE = Path(__file__).resolve().parent / "measure.py"
JOB_TIMEOUT_S = 600


class BenchError(Exception):
    """A measuring process failed; the message says which job and how."""


def measure(job: dict, on_record: Callable[[dict], None] | None = None) -> list[dict]:
    """Runs one job in a fresh `python measure.py` (as a user runs a training script, so that a
    forkserver that preloads the main script, as from CPython 3.14.1, preloads it) and returns its
    records, passing each to `on_record` as it comes."""
    process = subprocess.Popen(
        [sys.executable, str(MEASURE)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **processes.NEW_GROUP,
    )
    records = []
    session = process.pid if processes.NEW_SESSION else None  # its own session: pid = session id
    LIFELINE.started(process.pid, "bench", session)
    try:
        process.stdin.write(json.dumps(job))
        process.stdin.close()
        for line in process.stdout:
            record = json.loads(line)
            records.append(record)
            if on_record:
                on_record(record)
        process.wait(timeout=JOB_TIMEOUT_S)
        errors = process.stderr.read()
    finally:
        if process.poll() is None:  # interrupted: end it and its workers, let their helpers clean up
            end_run(process.pid, "bench", session)
            process.wait()
        LIFELINE.ended(process.pid)
    if process.returncode != 0:
        what = {k: v for k, v in job.items() if k != "configs"}
        raise BenchError(f"measuring {what} failed (exit {process.returncode}): {errors.strip()[-800:]}")
    return records
