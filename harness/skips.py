"""Every reason a run shows nothing about the script, in words: such a run is `skipped`, never
judged, and its result says why. Each function reads facts and returns a reason ("" where there is
none); harness/verdict.py asks before a run, harness/report.py after it, and they decide.

Before the run (`before`): its way of running is missing here, a need of the script is unmet there,
the profile cannot be imposed here, a confinement it asks for cannot be made; then (`too_late`)
the command's deadline came while what the script imports was brought to that way's interpreter.
During it: the command's deadline stopped it (`cut_short`), or a stall or the timeout ended it
while its processes still worked (`still_working`: slow here, not hung). After it: its worker
memory could be read only as RSS where a threshold is set for USS (`memory_unreadable`), its way of
running failed by itself (`fault_reason`), this machine has no GPU for what the script asks of one
(`no_gpu`), or this machine's own OOM killer ended one of its processes (`machine_oom`).
"""

from __future__ import annotations

import dataclasses
import re
import time

from . import profiles
from .cases import Case
from .outcomes import Outcome
from .profiles import Profile
from .results import RunResult
from .run import confine
from .run.idleness import WAITING_CPU_S_PER_S
from .run.launch.base import Fault
from .run.memory import largest_growth
from .run.observation import Observation, Stop
from .run.settings import RunSettings

PREPARATION_NOTED_S = 5.0  # preparing the script's packages took long enough to say so

# What torch raises where the script asks for CUDA and this machine has no usable GPU.
NO_GPU = re.compile(
    r"Torch not compiled with CUDA enabled|Found no NVIDIA driver|No CUDA GPUs are available"
    r"|CUDA driver initialization failed|no CUDA-capable device"
)
# What shows that a process of the run was killed by SIGKILL: its exit, or torch's word for a worker.
KILLED = re.compile(r"killed by (?:signal: )?(?:Killed|SIGKILL)")


def before(profile: Profile, settings: RunSettings, needs: tuple[str, ...]) -> str:
    """Why a run under `profile` with `settings` and `needs` cannot happen here; "" when it can."""
    return (
        profile.launcher.missing(needs)
        or profiles.unavailable(profile)
        or confine.unavailable(settings, profile.system, profile.title)
    )


def too_late(settings: RunSettings, prepared_s: float) -> str:
    """Why a run prepared for `prepared_s` cannot start: the command's deadline came; "" if not."""
    if settings.deadline is None or time.monotonic() < settings.deadline:
        return ""
    return "the command's deadline came before this run could start" + preparation(prepared_s)


def preparation(prepared_s: float) -> str:
    """What preparing the run took, where it took long enough to explain a deadline."""
    if prepared_s < PREPARATION_NOTED_S:
        return ""
    return f" (preparing what the script imports for this way of running took {prepared_s:.0f} s before it)"


def cut_short(observed: Observation) -> str:
    """Why the runner stopped a run before it could show anything (the command's deadline); ""."""
    return observed.stop_note if observed.stop is Stop.DEADLINE else ""


def still_working(observed: Observation, window_s: float) -> str:
    """Why a run stopped as hung (a stall, the timeout) shows nothing: its processes were still
    using the CPU over the last `window_s`, and no worker was blocked for good; "" where they were
    seen waiting."""
    if not observed.stop.hung or observed.waited():
        return ""
    ended = "its timeout" if observed.stop is Stop.TIMEOUT else f"a stall ({observed.stop_note})"
    used = observed.cpu_words()
    return (
        f"not judged: {observed.batches} batches in {observed.duration_s:.0f} s, too slow here to "
        f"finish: its processes were still working when {ended} ended it (over its last "
        f"{window_s:g} s: {used}; a hang needs them seen waiting, under {WAITING_CPU_S_PER_S:.0%}, "
        "or a worker blocked for good)"
    )


def memory_unreadable(observed: Observation, judging: Case | None) -> str:
    """Why a run that exited 0 cannot be judged against its case's memory threshold: its workers'
    memory could be read only as RSS here (macOS without root), and the threshold is set for USS;
    ""."""
    if observed.returncode != 0 or judging is None or judging.leak_threshold_mb is None:
        return ""
    growth = largest_growth(observed.memory or {})
    if growth is None or growth[2] == "uss":
        return ""
    return (
        f"worker memory could be read only as {growth[2].upper()} here (USS of another process needs "
        f"more rights); the leak threshold of {judging.leak_threshold_mb:g} MB is set for USS"
    )


def fault_reason(fault: Fault, retried: bool) -> str:
    """What its way of running failing by itself says; a passing fault seen again says so too."""
    if fault.passing and retried:
        return f"{fault.reason} (seen again when the run was made once more)"
    return fault.reason


def no_gpu(result: RunResult) -> str:
    """Why a run that asked a GPU of a machine without one shows nothing; ""."""
    if result.outcome.script_raised and NO_GPU.search(result.signature):
        return f"this machine has no usable GPU ({result.signature})"
    return ""


def machine_oom(observed: Observation, raised: list[str]) -> str:
    """Why a run whose process this machine's own OOM killer ended (not a memory limit the harness
    set: `ended_processes` counts those) shows nothing about the script; ""."""
    outside = (observed.machine_oom_kills or 0) - observed.ended_processes
    killed = (observed.returncode == -9) or any(KILLED.search(line) for line in [*raised, observed.output])
    if outside <= 0 or not killed:
        return ""
    return (
        f"this machine's own OOM killer ended {outside} process(es) while the run went on, and a "
        "process of the run was killed (SIGKILL): this machine ran out of memory, which is not the "
        "script's doing here (a memory limit of the harness's, --memory-mb, judges that)"
    )


def skipped(result: RunResult, reason: str) -> RunResult:
    """`result`, skipped for `reason`: what it observed kept, no signature of the script's."""
    return dataclasses.replace(result, outcome=Outcome.SKIPPED, signature="", reason=reason)
