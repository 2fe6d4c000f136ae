"""Runs one unmodified script under one start method, in isolation, under a timeout."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from harness import processes
from harness.outcomes import signal_name

BOOT_DIR = Path(__file__).resolve().parent / "boot"
OUTPUT_READ_LIMIT = 1 << 20  # bytes of the output's end that classification reads
POLL_INTERVAL_S = 0.1
LEFTOVER_GRACE_S = 2.0  # how long helpers (resource tracker, forkserver) may take to go by themselves


@dataclass
class Observation:
    """The facts of one finished run, before classification."""

    returncode: int | None
    timed_out: bool
    duration_s: float
    output: str
    stacks: dict[str, str] = field(default_factory=dict)
    leftover_pids: list[int] = field(default_factory=list)

    @property
    def signal(self) -> str | None:
        if self.returncode is not None and self.returncode < 0:
            return signal_name(-self.returncode)
        return None


class _ActiveRuns:
    """The process groups of the runs in flight, so that an interrupted harness can end them."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._runs: dict[int, tuple[str, int]] = {}

    def add(self, pid: int, run_id: str, session_id: int) -> None:
        with self._lock:
            self._runs[pid] = (run_id, session_id)

    def remove(self, pid: int) -> None:
        with self._lock:
            self._runs.pop(pid, None)

    def end_all(self) -> None:
        with self._lock:
            runs = list(self._runs.items())
        for pid, (run_id, session_id) in runs:
            processes.terminate(processes.find_run_processes(pid, run_id, session_id), grace_s=1.0)


ACTIVE_RUNS = _ActiveRuns()


def child_environment(start_method: str, stack_dir: Path, run_id: str) -> dict[str, str]:
    env = dict(os.environ)
    python_path = [str(BOOT_DIR)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    env.update(
        PYTHONPATH=os.pathsep.join(python_path),
        PYTHONUNBUFFERED="1",  # output of parent and workers interleaves in the order written
        DLP_START_METHOD=start_method,
        DLP_STACK_DIR=str(stack_dir),
        **{processes.RUN_ID_VARIABLE: run_id},
    )
    return env


def read_tail(path: Path, limit: int = OUTPUT_READ_LIMIT) -> str:
    with open(path, "rb") as output:
        output.seek(0, os.SEEK_END)
        size = output.tell()
        output.seek(max(0, size - limit))
        data = output.read()
    return data.decode("utf-8", errors="replace").replace("\x00", "")


def run_script(
    script: Path,
    start_method: str,
    timeout_s: float,
    args: tuple[str, ...] = (),
) -> Observation:
    """Runs `python -X faulthandler script args` as __main__ with `start_method` imposed.

    The run gets its own temporary working directory and process session; stdout and stderr go
    to one file. At the timeout the Python stacks of every process of the run are collected
    first, then the whole tree is terminated; nothing of the run outlives this call.
    """
    workdir = Path(tempfile.mkdtemp(prefix="dlp-run-"))
    stack_dir = workdir / "stacks"
    stack_dir.mkdir()
    output_path = workdir / "output.txt"
    run_id = uuid.uuid4().hex
    command = [sys.executable, "-X", "faulthandler", str(Path(script).resolve()), *args]
    try:
        with open(output_path, "wb") as output:
            started = time.monotonic()
            proc = subprocess.Popen(
                command,
                stdin=subprocess.DEVNULL,
                stdout=output,
                stderr=subprocess.STDOUT,
                cwd=workdir,
                env=child_environment(start_method, stack_dir, run_id),
                start_new_session=True,
            )
        session_id = proc.pid  # start_new_session makes the child a session leader
        ACTIVE_RUNS.add(proc.pid, run_id, session_id)
        try:
            timed_out, stacks = _wait(proc, started + timeout_s, run_id, session_id, stack_dir)
            duration = time.monotonic() - started
            leftovers = _end_leftovers(proc.pid, run_id, session_id)
        finally:
            ACTIVE_RUNS.remove(proc.pid)
        return Observation(
            returncode=None if timed_out else proc.returncode,
            timed_out=timed_out,
            duration_s=round(duration, 3),
            output=read_tail(output_path),
            stacks=stacks,
            leftover_pids=leftovers,
        )
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def _wait(proc, deadline, run_id, session_id, stack_dir) -> tuple[bool, dict[str, str]]:
    """Waits for the script's exit; at the deadline dumps every process's stacks and ends them."""
    while time.monotonic() < deadline:
        try:
            proc.wait(timeout=POLL_INTERVAL_S)
            return False, {}
        except subprocess.TimeoutExpired:
            continue
    tree = processes.find_run_processes(proc.pid, run_id, session_id)
    stacks = processes.dump_stacks(tree, stack_dir)
    processes.terminate(tree)
    proc.wait()
    return True, stacks


def _end_leftovers(root_pid: int, run_id: str, session_id: int) -> list[int]:
    """Processes of the run still alive after its main process ended: waited for, then killed."""
    deadline = time.monotonic() + LEFTOVER_GRACE_S
    left = processes.find_run_processes(root_pid, run_id, session_id)
    while left and time.monotonic() < deadline:
        time.sleep(POLL_INTERVAL_S)
        left = processes.find_run_processes(root_pid, run_id, session_id)
    if left:
        processes.terminate(left)
    return sorted(p.pid for p in left)
