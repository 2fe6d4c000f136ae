"""Finding, dumping and ending every process that belongs to one run."""

from __future__ import annotations

import concurrent.futures
import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil

from ..boot import dlp_contract as contract

RUN_ID_VARIABLE = contract.RUN_ID
NATIVE_DUMP_TIMEOUT_S = 15
# How a stuck process is asked for its Python stacks: SIGUSR1 where it exists (faulthandler answers
# it even while the process holds the GIL), else a trigger file that a thread of the boot module
# watches (Windows).
STACK_TRIGGER = "signal" if hasattr(signal, "SIGUSR1") else "file"
# A run's own process group: a new session on POSIX (os.setsid), a new process group on Windows.
NEW_SESSION = hasattr(os, "setsid")
NEW_GROUP = (
    {"start_new_session": True}
    if NEW_SESSION
    else {"creationflags": getattr(subprocess, "CREATE_NEW_PROCESS_GROUP", 0)}
)


def _belongs(process: psutil.Process, run_id: str, session_id: int | None) -> bool:
    try:
        if session_id is not None and hasattr(os, "getsid") and os.getsid(process.pid) == session_id:
            return True
        return environ(process).get(RUN_ID_VARIABLE) == run_id
    except (psutil.Error, OSError):
        return False


def environ(process: psutil.Process) -> dict[str, str]:
    """The process's environment; where its main thread has exited and others still run (a zombie
    leader, below), read through one of those threads (Linux)."""
    try:
        return process.environ()
    except psutil.ZombieProcess:
        pass
    for task in _live_threads(process):
        with contextlib.suppress(OSError):
            raw = Path(f"/proc/{process.pid}/task/{task}/environ").read_bytes().decode(errors="replace")
            return dict(item.split("=", 1) for item in raw.split("\0") if "=" in item)
    return {}


def _live_threads(process: psutil.Process) -> list[int]:
    """The thread ids of a zombie whose other threads still run: its main thread exited, the
    process did not. Wine leaves such a `winedevice.exe` when a run's Wine session is ended while
    busy: a thread of a driver polls on, using CPU, until it is killed. [] for any other process."""
    try:
        if process.status() != psutil.STATUS_ZOMBIE:
            return []
        return [int(t) for t in os.listdir(f"/proc/{process.pid}/task") if int(t) != process.pid]
    except (psutil.Error, OSError, ValueError):
        return []


def find_run_processes(root_pid: int, run_id: str, session_id: int | None) -> list[psutil.Process]:
    """The root, its descendants, and any process in the run's session or carrying its run id.

    The last two catch processes whose parent already died (orphans are re-parented away from
    the tree), including ones that started a session of their own.
    """
    found: dict[int, psutil.Process] = {}
    try:
        root = psutil.Process(root_pid)
        found[root.pid] = root
        for child in root.children(recursive=True):
            found[child.pid] = child
    except psutil.Error:
        pass
    me = os.getpid()
    for process in psutil.process_iter():
        if process.pid in found or process.pid == me:
            continue
        if _belongs(process, run_id, session_id):
            found[process.pid] = process
    return [p for p in found.values() if alive(p)]


def alive(process: psutil.Process) -> bool:
    """Running: not ended, and not a zombie, unless threads of it still run (`_live_threads`)."""
    try:
        return process.is_running() and (
            process.status() != psutil.STATUS_ZOMBIE or bool(_live_threads(process))
        )
    except psutil.Error:
        return False


# multiprocessing's resource tracker and PyTorch's torch_shm_manager: each removes what its clients
# left (semaphores, shared-memory segments) once the last client is gone.
CLEANUP_HELPERS = ("resource_tracker", "torch_shm_manager")


def runs_one_of(process: psutil.Process, names: tuple[str, ...]) -> bool:
    """Whether the process's command line names one of `names` (False where it cannot be read)."""
    try:
        command = " ".join(process.cmdline())
    except psutil.Error:
        return False
    return any(name in command for name in names)


def is_cleanup_helper(process: psutil.Process) -> bool:
    return runs_one_of(process, CLEANUP_HELPERS)


# The forkserver (and what it forked) ends by itself once its main process's pipe has closed; with
# __main__ preloaded it first tears down what the script imported (torch: seconds on a busy machine).
FORKSERVER = "from multiprocessing.forkserver import main"


def ends_by_itself(process: psutil.Process) -> bool:
    """A helper that goes once its clients have: a cleanup helper or the forkserver."""
    return runs_one_of(process, (*CLEANUP_HELPERS, FORKSERVER))


def session_members(session_id: int) -> list[psutil.Process]:
    """The processes of session `session_id` now (POSIX; none elsewhere)."""
    if not hasattr(os, "getsid"):
        return []
    members = []
    for pid in psutil.pids():
        with contextlib.suppress(OSError, psutil.Error):
            if os.getsid(pid) == session_id:
                members.append(psutil.Process(pid))
    return [p for p in members if alive(p)]


def snapshot(root_pid: int) -> list[psutil.Process]:
    """The launched process and its descendants now: what one tick of the runner's loop looks at,
    handed to every watcher (memory, CPU, /dev/shm). Empty once the launched process is gone."""
    try:
        root = psutil.Process(root_pid)
        return [root, *root.children(recursive=True)]
    except psutil.Error:
        return []


def role(process: psutil.Process, main_pids: tuple[int, ...]) -> str:
    """main (the launched process, and the interpreter where that is a launcher), helper (resource
    tracker, torch_shm_manager, forkserver) or worker."""
    if process.pid in main_pids:
        return "main"
    try:
        command = " ".join(process.cmdline())
        parent = process.ppid()
    except psutil.Error:
        return "worker"
    if any(name in command for name in CLEANUP_HELPERS) or (FORKSERVER in command and parent in main_pids):
        return "helper"
    return "worker"


def workers(tree: list[psutil.Process], main_pids: tuple[int, ...]) -> list[psutil.Process]:
    """The processes of a snapshot that are neither the script's own nor a helper."""
    return [p for p in tree if role(p, main_pids) == "worker"]


def is_exiting(process: psutil.Process) -> bool:
    """Whether the process is already exiting: the kernel released its memory (its command line
    reads empty) and is finishing its exit, closing descriptors and unmapping shared memory, which
    can take seconds for a worker that mapped thousands of segments, on a busy machine."""
    try:
        return process.cmdline() == []
    except psutil.NoSuchProcess:
        return True
    except psutil.Error:  # no rights to read it: not known to be exiting
        return False


def describe(process: psutil.Process) -> str:
    try:
        command = " ".join(process.cmdline())
        return f"pid {process.pid}, parent {process.ppid()}: {command}"
    except psutil.Error:
        return f"pid {process.pid}"


def catches(pid: int, signum: int) -> bool:
    """Whether the process handles `signum` itself (Linux: the SigCgt mask in /proc); assumed
    where that cannot be read (another system, or the process is gone)."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return True
    for line in status.splitlines():
        if line.startswith("SigCgt:"):
            return bool(int(line.split()[1], 16) >> (signum - 1) & 1)
    return True


def dump_stacks(processes: list[psutil.Process], probe_dir: Path, wait_s: float = 2.0) -> dict[str, str]:
    """Asks each process for its Python stacks (armed by the boot module) and reads them.

    Returns {pid: "header\\nstacks"}; a process that wrote nothing is listed with a note saying so.
    """
    headers = {p.pid: describe(p) for p in processes}
    if STACK_TRIGGER == "signal":
        # Only processes that catch it: SIGUSR1's default action would end the others (a
        # torch_shm_manager ended so leaves in /dev/shm what it was there to remove).
        asked = [p for p in processes if catches(p.pid, signal.SIGUSR1)]
        for process in asked:
            with contextlib.suppress(psutil.Error):
                process.send_signal(signal.SIGUSR1)
    else:
        asked = processes
        (probe_dir / contract.DUMP_STACKS_FILE).touch()  # harness/boot/dlp_stacks.py watches for it
    deadline = time.monotonic() + wait_s
    pending = {p.pid for p in asked}
    while pending and time.monotonic() < deadline:
        time.sleep(0.05)
        pending = {pid for pid in pending if not _stack_text(probe_dir, pid)}
    stacks = {}
    for pid, header in sorted(headers.items()):
        text = _stack_text(probe_dir, pid) or "(no Python stacks: not a Python process, or it did not answer)"
        stacks[str(pid)] = f"# {header}\n{text}"
    return stacks


def _stack_text(probe_dir: Path, pid: int) -> str:
    try:
        return (
            (probe_dir / f"{pid}{contract.STACKS_SUFFIX}")
            .read_text(encoding="utf-8", errors="replace")
            .strip()
        )
    except OSError:
        return ""


def terminate(processes: list[psutil.Process], grace_s: float = 2.0) -> None:
    """SIGTERM every process, then SIGKILL whatever is still alive after the grace period."""
    for process in processes:
        with contextlib.suppress(psutil.Error):
            process.terminate()
    alive = wait_ended(processes, grace_s)
    for process in alive:
        with contextlib.suppress(psutil.Error):
            process.kill()
    wait_ended(alive, grace_s)


def wait_ended(
    processes: list[psutil.Process], timeout_s: float, poll_s: float = 0.02
) -> list[psutil.Process]:
    """Waits until every process has ended; returns those still alive at the timeout.

    A zombie has ended: it holds nothing but its pid until its parent reaps it. An orphan is
    reaped by init, which need not be prompt (docs/bench.md gives a container's init that took
    2 s), so waiting for its pid to go (as `psutil.wait_procs` does) would add that to every run
    the harness stops.
    """
    deadline = time.monotonic() + timeout_s
    left = [p for p in processes if alive(p)]
    while left and time.monotonic() < deadline:
        time.sleep(poll_s)
        left = [p for p in left if alive(p)]
    return left


def kill_all(root_pid: int, run_id: str, session_id: int | None, rounds: int = 50) -> None:
    """SIGKILLs the run at once, for a run that keeps starting processes: its process group first
    (one signal, so no child started in between escapes), then whatever else is found, until
    nothing of the run is left."""
    for _ in range(rounds):
        if session_id is not None and hasattr(os, "killpg"):
            with contextlib.suppress(OSError):
                os.killpg(session_id, signal.SIGKILL)
        left = find_run_processes(root_pid, run_id, session_id)
        if not left:
            return
        for process in left:
            with contextlib.suppress(psutil.Error):
                process.kill()
        wait_ended(left, 0.2)


def _py_spy() -> str | None:
    beside_python = Path(sys.executable).parent / "py-spy"
    return str(beside_python) if beside_python.exists() else shutil.which("py-spy")


def _native_dump(py_spy: str, pid: int, tries: int = 2) -> tuple[str, str]:
    """(stacks, "") from `py-spy dump --native`, or ("", why not). A failure other than the timeout
    is tried again once: py-spy reads a running process's memory, which can move under it (a busy
    test pass once reported a hang without its native frame, and named the wrong pitfall; why the
    frame was missing is not known, and this retry is a guess at it)."""
    for _ in range(tries):
        text, failure = _native_dump_once(py_spy, pid)
        if text or failure == "py-spy timed out":
            break
    return text, failure


def _native_dump_once(py_spy: str, pid: int) -> tuple[str, str]:
    try:
        dump = subprocess.run(
            [py_spy, "dump", "--native", "--pid", str(pid)],
            capture_output=True,
            text=True,
            timeout=NATIVE_DUMP_TIMEOUT_S,
        )
    except subprocess.TimeoutExpired:
        return "", "py-spy timed out"
    if dump.returncode == 0 and dump.stdout.strip():
        return dump.stdout.strip(), ""
    return "", (dump.stderr or dump.stdout).strip()[-200:]


def dump_native_stacks(processes: list[psutil.Process]) -> tuple[dict[str, str], str]:
    """Native (C and Python) stacks from py-spy where it is installed: ({pid: text}, note).

    The note says why there are none: py-spy missing, or not allowed to attach (ptrace).
    """
    py_spy = _py_spy()
    if py_spy is None:
        return {}, "native stacks not available: py-spy is not installed (pip install py-spy)"
    stacks, failures = {}, []
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, len(processes))) as pool:
        dumps = pool.map(lambda process: _native_dump(py_spy, process.pid), processes)
        for process, (text, failure) in zip(processes, dumps, strict=True):
            if text:
                stacks[str(process.pid)] = text
            else:
                failures.append(f"pid {process.pid}: {failure}")
    note = "" if not failures else "py-spy could not dump every process: " + "; ".join(failures)
    return stacks, note
