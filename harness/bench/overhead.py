"""The harness's own cost: the reproduce + verify matrix run through the harness, then the same
scripts launched by a plain loop (a thread per parallel run, `subprocess` with a timeout) with the
same parallelism. Plain Python rather than a shell loop, so that it runs on Windows too.

The loop imposes the profile the same way (the boot folder on PYTHONPATH, with only the profile's
settings), so both run the same programs; what differs is the harness's work: probes, stack
collection at timeouts, process and memory monitoring, classification, results.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import os
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

import psutil

from .. import profiles, scheduler
from ..cases import VARIANTS, Case
from ..outcomes import Outcome
from ..run import processes, runner, shm_leftovers
from ..scheduler import Job


def runnable_jobs(cases: list[Case], methods: list[str]) -> list[Job]:
    """Every case × variant × start method (its first profile) whose case can run here (a missing
    need is skipped)."""
    chosen = [profiles.PROFILES[profiles.BY_START_METHOD[method][0]] for method in methods]
    planned = scheduler.plan(cases, list(VARIANTS), chosen)
    return [job for job in planned if not job.profile.launcher.missing(job.case.needs)]


def through_harness(jobs: list[Job], parallel: int) -> tuple[float, float, list]:
    """(wall seconds, CPU seconds of the harness's own process, the results): the CPU time is what
    its watching and judging took from the runs, whatever else the machine was doing."""
    started, cpu_started = time.monotonic(), _own_cpu_s()
    observed = scheduler.run_all(jobs, parallel, scheduler.execute)
    return time.monotonic() - started, _own_cpu_s() - cpu_started, observed


def _own_cpu_s() -> float:
    used = psutil.Process().cpu_times()
    return used.user + used.system


def plain_run(job: Job, marker: str, python: str) -> None:
    """One run as a plain loop runs it: its own folder, the profile imposed, a timeout, the output to
    a file; no probes, no watching. At the timeout the script's process is ended (SIGTERM, then
    SIGKILL after 2 s, as `timeout -k 2` does), not its workers: `clean_up` finds those."""
    script = job.case.script(job.variant)
    python_path = [str(runner.BOOT_DIR)] + ([str(script.parent)] if job.case.via_stdin else [])
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(python_path),
        "PYTHONUNBUFFERED": "1",
        processes.RUN_ID_VARIABLE: marker,
        **job.profile.environment(),
    }
    target = ["-c", runner.INTERACTIVE_MAIN] if job.case.via_stdin else [str(script)]
    stdin_path = script if job.case.via_stdin else os.devnull
    with tempfile.TemporaryDirectory(prefix="dlp-plain-") as folder:
        with open(Path(folder) / "output.txt", "wb") as output, open(stdin_path, "rb") as stdin:
            process = subprocess.Popen(
                [python, "-X", "faulthandler", *target],
                stdin=stdin,
                stdout=output,
                stderr=subprocess.STDOUT,
                cwd=folder,
                env=env,
                **processes.NEW_GROUP,
            )
        try:
            process.wait(timeout=job.timeout_s)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(psutil.Error):
                processes.terminate([psutil.Process(process.pid)], grace_s=2.0)
            process.wait()


def through_plain_loop(jobs: list[Job], parallel: int, python: str) -> tuple[float, dict]:
    """Runs the jobs from a plain loop of `parallel` threads; returns the wall time and what it left
    behind (processes and /dev/shm entries, ended and removed afterwards)."""
    marker = f"plain-{uuid.uuid4().hex}"
    before = shm_leftovers.entries()
    started = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(max_workers=parallel) as pool:
        list(pool.map(lambda job: plain_run(job, marker, python), jobs))
    elapsed = time.monotonic() - started
    return elapsed, clean_up(marker, before)


def clean_up(marker: str, shm_before: set[str]) -> dict:
    """Ends processes the plain loop left (its timeouts end only each script's own process)
    and removes the /dev/shm entries it left that no process holds."""
    left = [p for p in psutil.process_iter() if _marked(p, marker)]
    processes.terminate(left)
    held = set()
    for process in psutil.process_iter():
        held |= shm_leftovers.held_by(process.pid)
    removed = []
    for name in sorted(shm_leftovers.entries() - shm_before - held):
        with contextlib.suppress(OSError):
            (shm_leftovers.SHM_DIR / name).unlink()
            removed.append(name)
    return {"processes": len(left), "shm_entries": removed}


def _marked(process: psutil.Process, marker: str) -> bool:
    try:
        return process.environ().get(processes.RUN_ID_VARIABLE) == marker
    except psutil.Error:
        return False


def hang_latency(jobs: list[Job], observed: list) -> list[dict]:
    """For each run that hung: its timeout and when the harness had reported it (after the stacks
    and the kill)."""
    timeouts = {(j.case.name, j.variant, j.profile.name): j.timeout_s for j in jobs}
    return [
        {"run": " ".join(r.key), "timeout_s": timeouts[r.key], "reported_after_s": r.duration_s}
        for r in observed
        if r.outcome is Outcome.HANG
    ]
