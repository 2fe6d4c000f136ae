"""One path from a script to its verdict, for every command (`run`, `check`, `script`, `experiment`).

As pytest turns what happened (`CallInfo`) into a report in one place, every run goes the same way
here: why it cannot run (the way of running is missing, a need is unmet, a private /dev/shm cannot be
made), the settings its launcher gives it (a slower way stretches the time limits), the run itself
(harness/run/runner.py), the judge (harness/judge.py), a second run where the way of running failed by
itself, and the no-GPU rule. The same script under the same profile gets the same verdict whichever
command ran it.
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

from . import judge, profiles
from .cases import Case
from .outcomes import Outcome
from .profiles import Profile
from .results import RunResult
from .run import memory_cgroup, private_shm, runner
from .run.settings import RunSettings


def reach(
    script: Path,
    profile: Profile | str,
    settings: RunSettings,
    judging: Case | None = None,
    *,
    needs: tuple[str, ...] = (),
    timeout_given: bool = True,
    **labels: str,
) -> RunResult:
    """Runs `script` under `profile` (or the profile of that name) and judges what happened.

    `judging`: the case whose thresholds judge a run that exited 0 (a leak, a slow start-up).
    `needs`: what the script needs (a case's: cuda, opencv, distributed). `timeout_given`: the
    timeout was asked for (kept as it is), not a case's own (stretched by a slower way of running).
    `labels` (case, variant) name the run in its result.
    """
    profile = profiles.resolve(profile)
    settings = profile.launcher.settings(settings, timeout_given)
    base = dict(
        labels,
        profile=profile.name,
        start_method=profile.start_method,
        emulation=profile.emulation(),
        how=profile.how(),
        limits=settings.limits(),
    )
    reason = cannot_run(profile, settings, needs)
    prepared_s = 0.0
    if not reason:  # what the script imports, brought where the way's interpreter lacks it
        started = time.monotonic()
        python_path, reason = profile.launcher.for_script(Path(script), settings.deadline)
        prepared_s = time.monotonic() - started
        settings = dataclasses.replace(settings, python_path=(*python_path, *settings.python_path))
    if not reason and settings.deadline is not None and time.monotonic() >= settings.deadline:
        reason = "the command's deadline came before this run could start" + _preparation(prepared_s)
    if reason:
        return RunResult(**base, outcome=Outcome.SKIPPED, reason=reason)
    result = _judged(script, profile, settings, judging, base)
    if result.outcome is Outcome.SKIPPED and prepared_s >= PREPARATION_NOTED_S:
        result = dataclasses.replace(result, reason=result.reason + _preparation(prepared_s))
    if profile.launcher.failed_itself(result.signature):  # the way of running failed, not the script
        result = _judged(script, profile, settings, judging, base)
    if not profile.launcher.own_packages:
        result = judge.unless_module_missing_there(result, profile.title)
    return judge.unless_no_gpu(result)


PREPARATION_NOTED_S = 5.0  # preparing the script's packages took long enough to say so


def _preparation(seconds: float) -> str:
    if seconds < PREPARATION_NOTED_S:
        return ""
    return f" (preparing what the script imports for this way of running took {seconds:.0f} s before it)"


def cannot_run(profile: Profile, settings: RunSettings, needs: tuple[str, ...]) -> str:
    """Why a run under `profile` with `settings` and `needs` cannot happen here; "" when it can."""
    return (
        profile.launcher.missing(needs)
        or profiles.unavailable(profile)
        or private_shm.unavailable(settings.dev_shm_mb, profile.system, profile.title)
        or memory_cgroup.unavailable(settings.memory_cgroup_mb, profile.system, profile.title)
    )


def _judged(
    script: Path, profile: Profile, settings: RunSettings, judging: Case | None, base: dict
) -> RunResult:
    try:
        observed = runner.run_script(script, profile, settings)
    except Exception as exc:  # the harness failed, not the script: say so, keep the suite going
        return RunResult(**base, outcome=Outcome.ERROR, reason=f"{type(exc).__name__}: {exc}")
    return judge.result(observed, base, judging, profile.launcher)


def compared(result: RunResult, **expectation) -> RunResult:
    """`result` with what its case expected (RunResult fields: expected, matched, …) beside it."""
    return dataclasses.replace(result, **expectation)
