"""The harness's own cost: the reproduce + verify matrix run through the harness, then the same
scripts launched by a plain shell loop (`xargs -P`, `timeout`) with the same parallelism.

The loop imposes the start method the same way (the boot folder on PYTHONPATH, with only the
start method set), so both run the same programs; what differs is the harness's work: probes,
stack collection at timeouts, process and memory monitoring, classification, results.
"""

from __future__ import annotations

import contextlib
import shlex
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

import psutil

from harness import matrix, needs, processes, profiles, runner, shm
from harness.cases import VARIANTS, Case
from harness.matrix import Job
from harness.outcomes import Outcome


def runnable_jobs(cases: list[Case], methods: list[str]) -> list[Job]:
    """Every case × variant × start method (its first profile) whose case can run here (a missing
    need is skipped)."""
    chosen = [profiles.PROFILES[profiles.BY_START_METHOD[method][0]] for method in methods]
    planned = matrix.plan(cases, list(VARIANTS), chosen, None)
    return [job for job in planned if not needs.missing(job.case.needs)]


def through_harness(jobs: list[Job], parallel: int) -> tuple[float, float, list]:
    """(wall seconds, CPU seconds of the harness's own process, the results): the CPU time is what
    its watching and judging took from the runs, whatever else the machine was doing."""
    started, cpu_started = time.monotonic(), _own_cpu_s()
    observed = matrix.run_all(jobs, parallel)
    return time.monotonic() - started, _own_cpu_s() - cpu_started, observed


def _own_cpu_s() -> float:
    used = psutil.Process().cpu_times()
    return used.user + used.system


def shell_script(job: Job, marker: str) -> str:
    """One run as a plain shell script: own folder, start method imposed, timeout, output to a file."""
    script = job.case.script(job.variant)
    python_path = [str(runner.BOOT_DIR)] + ([str(script.parent)] if job.case.via_stdin else [])
    if job.case.via_stdin:
        command = (
            f"python -X faulthandler -c {shlex.quote(runner.INTERACTIVE_MAIN)} < {shlex.quote(str(script))}"
        )
    else:
        command = f"python -X faulthandler {shlex.quote(str(script))} < /dev/null"
    return "\n".join(
        [
            'folder="$(mktemp -d)" && cd "$folder" || exit 1',
            f"export PYTHONPATH={shlex.quote(':'.join(python_path))} "
            + " ".join(f"{name}={value}" for name, value in job.profile.environment().items()),
            f"export PYTHONUNBUFFERED=1 {processes.RUN_ID_VARIABLE}={marker}",
            f"timeout -k 2 {job.timeout_s:g} {command} > output.txt 2>&1",
            'cd / && rm -rf "$folder"',
            "",
        ]
    )


def through_shell(jobs: list[Job], parallel: int, python: str) -> tuple[float, dict]:
    """Runs the jobs from `xargs -P parallel`; returns the wall time and what it left behind
    (processes and /dev/shm entries, ended and removed afterwards)."""
    marker = f"plain-{uuid.uuid4().hex}"
    before = shm.entries()
    with tempfile.TemporaryDirectory(prefix="dlp-plain-") as folder:
        paths = []
        for number, job in enumerate(jobs):
            path = Path(folder) / f"run{number:03d}.sh"
            path.write_text(shell_script(job, marker))
            paths.append(str(path))
        listing = Path(folder) / "runs.txt"
        listing.write_text("\n".join(paths) + "\n")
        bin_dir = str(Path(python).parent)
        loop = (
            f"PATH={shlex.quote(bin_dir)}:$PATH xargs -P {parallel} -n 1 bash < {shlex.quote(str(listing))}"
        )
        started = time.monotonic()
        subprocess.run(["bash", "-c", loop], check=False)
        elapsed = time.monotonic() - started
    return elapsed, clean_up(marker, before)


def clean_up(marker: str, shm_before: set[str]) -> dict:
    """Ends processes the plain loop left (its timeouts kill only each script's process group)
    and removes the /dev/shm entries it left that no process holds."""
    left = [p for p in psutil.process_iter() if _marked(p, marker)]
    processes.terminate(left)
    held = set()
    for process in psutil.process_iter():
        held |= shm.held_by(process.pid)
    removed = []
    for name in sorted(shm.entries() - shm_before - held):
        with contextlib.suppress(OSError):
            (shm.SHM_DIR / name).unlink()
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
