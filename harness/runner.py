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

from harness import events, processes, shm
from harness.memory import DEFAULT_MEMORY_LIMIT_MB, MemoryMonitor
from harness.outcomes import signal_name

BOOT_DIR = Path(__file__).resolve().parent / "boot"
# Runs code read from stdin in __main__ without giving __main__ a file, as an interactive session
# does. (Plain `python -` sets __file__ to "<stdin>", which spawned children try to open as a file.)
INTERACTIVE_MAIN = "import sys; exec(compile(sys.stdin.read(), '<stdin>', 'exec'))"
OUTPUT_READ_LIMIT = 1 << 20  # bytes of the output's end that classification reads
OUTPUT_LIMIT_BYTES = 64 << 20  # a run that writes more is stopped: its output must not fill the disk
PROCESS_LIMIT = 64  # more processes than that in one run is a script starting itself over and over
POLL_INTERVAL_S = 0.1  # how soon the script's exit is noticed
CHECK_INTERVAL_S = 0.25  # how often its processes, memory, output and shared memory are looked at
LEFTOVER_GRACE_S = 2.0  # how long helpers (resource tracker, forkserver) may take to go by themselves


@dataclass
class Observation:
    """The facts of one finished run, before classification."""

    returncode: int | None
    timed_out: bool
    duration_s: float
    output: str
    stacks: dict[str, str] = field(default_factory=dict)
    native_stacks: dict[str, str] = field(default_factory=dict)
    native_stacks_note: str = ""
    leftovers: list[str] = field(default_factory=list)  # processes that outlived the script, then killed
    shm_leftovers: list[str] = field(default_factory=list)  # its /dev/shm entries left, then removed
    memory: dict | None = None
    memory_limit_exceeded: str = ""
    output_limit_exceeded: str = ""
    process_limit_exceeded: str = ""
    loader_epochs: list[dict] = field(default_factory=list)  # the main process's DataLoader iterations
    root_pid: int | None = None  # the script's own process
    stopped_after_batches: int | None = None  # ended by the harness once it had shown progress
    stalled_s: float | None = None  # ended as hung: no batch for this long while iterating

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


def child_environment(
    start_method: str, probe_dir: Path, run_id: str, extra_path: list[str] | None = None
) -> dict[str, str]:
    env = dict(os.environ)
    inherited = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    python_path = [str(BOOT_DIR), *(extra_path or []), *inherited]
    env.update(
        PYTHONPATH=os.pathsep.join(python_path),
        PYTHONUNBUFFERED="1",  # output of parent and workers interleaves in the order written
        DLP_START_METHOD=start_method,
        DLP_PROBE_DIR=str(probe_dir),
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
    memory_interval_s: float | None = None,
    memory_limit_mb: float = DEFAULT_MEMORY_LIMIT_MB,
    via_stdin: bool = False,
    stop_after_batches: int | None = None,
    stall_s: float | None = None,
    process_limit: int = PROCESS_LIMIT,
) -> Observation:
    """Runs `python -X faulthandler script args` as __main__ with `start_method` imposed.

    The run gets its own temporary working directory and process session; stdout and stderr go
    to one file. At the timeout the Python stacks (and, with py-spy, the native stacks) of every
    process of the run are collected first, then the whole tree is terminated; the same happens
    when the run's memory passes `memory_limit_mb`. Nothing of the run outlives this call.
    `memory_interval_s` turns on the per-process memory series. With `via_stdin` the code is fed
    on standard input and executed in __main__, which then has no file, as in a Jupyter or IPython
    session or `python -c`: spawned workers cannot re-import it. The script's folder is put on
    PYTHONPATH, as a notebook's own folder is importable.

    For scripts that run for hours: `stop_after_batches` ends the run as soon as its main process
    has received that many batches from its DataLoaders (it works); `stall_s` treats a run as hung
    when, once it started iterating a DataLoader, no batch arrived for that long. A run with more
    than `process_limit` processes at once (a script that launches itself again and again) is
    frozen and killed at once, without stacks.
    """
    workdir = Path(tempfile.mkdtemp(prefix="dlp-run-"))
    probe_dir = workdir / "probes"
    probe_dir.mkdir()
    output_path = workdir / "output.txt"
    run_id = uuid.uuid4().hex
    script = Path(script).resolve()
    target = ["-c", INTERACTIVE_MAIN] if via_stdin else [str(script)]
    command = [sys.executable, "-X", "faulthandler", *target, *args]
    env = child_environment(start_method, probe_dir, run_id, [str(script.parent)] if via_stdin else [])
    shared = shm.ShmWatch()  # what /dev/shm held before the run
    try:
        with open(output_path, "wb") as output, open(script if via_stdin else os.devnull, "rb") as stdin:
            wall_started, started = time.time(), time.monotonic()
            proc = subprocess.Popen(
                command,
                stdin=stdin,
                stdout=output,
                stderr=subprocess.STDOUT,
                cwd=workdir,
                env=env,
                start_new_session=True,
            )
        session_id = proc.pid  # start_new_session makes the child a session leader
        ACTIVE_RUNS.add(proc.pid, run_id, session_id)
        monitor = MemoryMonitor(proc.pid, started, memory_interval_s)
        observation = Observation(
            returncode=None, timed_out=False, duration_s=0.0, output="", root_pid=proc.pid
        )
        try:
            progress = events.ProgressWatch(probe_dir / f"{proc.pid}.events", started)
            check_every = min(CHECK_INTERVAL_S, memory_interval_s or CHECK_INTERVAL_S)
            limits = _Limits(
                started + timeout_s,
                memory_limit_mb,
                stop_after_batches,
                stall_s,
                output_path,
                process_limit,
                check_every,
            )
            stop = _wait(proc, limits, monitor, progress, shared)
            if stop == "processes":
                observation.process_limit_exceeded = (
                    f"the run started over {process_limit} processes at once ({len(monitor.tree_pids)} "
                    "seen): does it launch itself again without an `if __name__ == '__main__':` guard? "
                    "Stopped by the harness"
                )
                shared.poll(monitor.tree_pids)
                processes.kill_all(proc.pid, run_id, session_id)
                proc.wait()
            elif stop == "batches":
                observation.stopped_after_batches = progress.batches
                tree = processes.find_run_processes(proc.pid, run_id, session_id)
                shared.poll([p.pid for p in tree], force=True)
                processes.terminate(tree)
                proc.wait()
            elif stop:
                _stop(proc, run_id, session_id, probe_dir, observation, shared)
                observation.timed_out = stop in ("timeout", "stall")
                if stop == "stall":
                    observation.stalled_s = stall_s
                if stop == "output":
                    observation.output_limit_exceeded = (
                        f"the run wrote over {OUTPUT_LIMIT_BYTES >> 20} MB of output; stopped by the harness"
                    )
                if stop == "memory":
                    observation.memory_limit_exceeded = (
                        f"the run's memory reached {monitor.peak_total_mb:.0f} MB, over its limit of "
                        f"{memory_limit_mb:.0f} MB; stopped by the harness"
                    )
            observation.duration_s = round(time.monotonic() - started, 3)
            observation.leftovers = _end_leftovers(proc.pid, run_id, session_id, shared)
            observation.shm_leftovers = shared.remove_leftovers()
        finally:
            ACTIVE_RUNS.remove(proc.pid)
        if not stop:
            observation.returncode = proc.returncode
        elif stop == "batches":
            observation.returncode = 0  # it worked; the harness ended it
        recorded = events.read(probe_dir)
        observation.loader_epochs = events.loader_epochs(recorded, proc.pid, wall_started)
        if memory_interval_s is not None:
            monitor.mark_ready(events.worker_ready(recorded, wall_started))
            observation.memory = monitor.to_json()
        observation.output = read_tail(output_path)
        return observation
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


@dataclass(frozen=True)
class _Limits:
    deadline: float
    memory_limit_mb: float
    stop_after_batches: int | None
    stall_s: float | None
    output_path: Path
    process_limit: int
    check_every_s: float  # CHECK_INTERVAL_S, or the memory sampling interval where that is shorter


def _wait(
    proc, limits: _Limits, monitor: MemoryMonitor, progress: events.ProgressWatch, shared: shm.ShmWatch
) -> str:
    """Waits for the script's exit: "" when it exited, else why it must be stopped:
    "timeout", "memory", "output" (too much of it), "processes" (too many), "batches" (enough
    progress seen) or "stall" (no batch for too long)."""
    watching = limits.stop_after_batches is not None or limits.stall_s is not None
    next_check = 0.0
    while time.monotonic() < limits.deadline:
        try:
            proc.wait(timeout=POLL_INTERVAL_S)
            return ""
        except subprocess.TimeoutExpired:
            pass
        if time.monotonic() < next_check:
            continue
        next_check = time.monotonic() + limits.check_every_s
        if monitor.poll() > limits.memory_limit_mb:
            return "memory"
        if len(monitor.tree_pids) > limits.process_limit:
            return "processes"
        shared.poll(monitor.tree_pids)
        if limits.output_path.stat().st_size > OUTPUT_LIMIT_BYTES:
            return "output"
        if watching:
            now = time.monotonic()
            progress.poll(now)
            if limits.stop_after_batches is not None and progress.batches >= limits.stop_after_batches:
                return "batches"
            if (
                limits.stall_s is not None
                and progress.iterating
                and now - progress.last_progress > limits.stall_s
            ):
                return "stall"
    return "timeout"


def _stop(
    proc, run_id: str, session_id: int, probe_dir: Path, observation: Observation, shared: shm.ShmWatch
) -> None:
    """Records the stacks (and shared memory) of every process of the run, then ends them all."""
    tree = processes.find_run_processes(proc.pid, run_id, session_id)
    shared.poll([p.pid for p in tree], force=True)
    observation.stacks = processes.dump_stacks(tree, probe_dir)
    observation.native_stacks, observation.native_stacks_note = processes.dump_native_stacks(tree)
    processes.terminate(tree)
    proc.wait()


def _end_leftovers(root_pid: int, run_id: str, session_id: int, shared: shm.ShmWatch) -> list[str]:
    """Processes of the run still alive after its main process ended: waited for, then killed.

    Returns a description of each ("pid N, parent P: command").
    """
    deadline = time.monotonic() + LEFTOVER_GRACE_S
    left = processes.find_run_processes(root_pid, run_id, session_id)
    while left and time.monotonic() < deadline:
        time.sleep(POLL_INTERVAL_S)
        left = processes.find_run_processes(root_pid, run_id, session_id)
    described = [processes.describe(p) for p in sorted(left, key=lambda p: p.pid)]
    if left:
        shared.poll([p.pid for p in left], force=True)
        processes.terminate(left)
    return described
