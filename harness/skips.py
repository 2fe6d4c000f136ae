"""Every reason a run shows nothing about the script, in one place: such a run is `skipped`, never
judged, and its result says why (harness/verdict.py asks here at each step of a run).

Before the run (`before`): its way of running is missing here, a need of the script is unmet there,
the profile cannot be imposed here, a confinement it asks for cannot be made; then (`too_late`)
the command's deadline came while what the script imports was brought to that way's interpreter.
During it (`cut_short`): the command's deadline stopped it. After it (`after`): its way of running
failed by itself (its launcher's `fault`: a passing one is run once more first), or this machine
has no GPU for what the script asks of one.
"""

from __future__ import annotations

import dataclasses
import re
import time

from . import profiles, recognition
from .outcomes import Outcome
from .profiles import Profile
from .results import RunResult
from .run import confine
from .run.launch.base import Fault, Launcher
from .run.observation import Observation, Stop
from .run.settings import RunSettings

PREPARATION_NOTED_S = 5.0  # preparing the script's packages took long enough to say so

# What torch raises where the script asks for CUDA and this machine has no usable GPU.
NO_GPU = re.compile(
    r"Torch not compiled with CUDA enabled|Found no NVIDIA driver|No CUDA GPUs are available"
    r"|CUDA driver initialization failed|no CUDA-capable device"
)


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


def after(result: RunResult, output: str, launcher: Launcher) -> Fault | None:
    """What made a judged run's failure (`output`: the whole of it) not the script's: its way of
    running, failing by itself, or a GPU this machine lacks; None where the failure stands."""
    if not result.outcome.is_failure:
        return None
    raised = recognition.raised(result) if result.outcome.script_raised else [result.signature]
    if fault := launcher.fault(output, raised):
        return fault
    if result.outcome.script_raised and NO_GPU.search(result.signature):
        return Fault(f"this machine has no usable GPU ({result.signature})")
    return None


def skipped(result: RunResult, reason: str) -> RunResult:
    """`result`, skipped for `reason`: what it observed kept, no signature of the script's."""
    return dataclasses.replace(result, outcome=Outcome.SKIPPED, signature="", reason=reason)
