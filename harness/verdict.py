"""One path from a script to its verdict, for every command (`run`, `check`, `script`, `experiment`).

As pytest turns what happened (`CallInfo`) into a report in one place, every run goes the same way
here: the settings its launcher gives it (a slower way stretches the time limits), whether it can
run at all and what the script imports brought to it, the run itself (harness/run/runner.py), the
judge (harness/judge.py), and whether the failure was the script's; where a run shows nothing
about the script, harness/skips.py says why. The same script under the same profile gets the same
verdict whichever command ran it.
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path

from . import judge, profiles, skips
from .cases import Case
from .outcomes import Outcome
from .profiles import Profile
from .results import RunResult
from .run import runner
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
    `needs`: what the script needs (harness/run/needs.py). `timeout_given`: the timeout was asked
    for (kept as it is), not a case's own (stretched by a slower way of running). `labels` (case,
    variant) name the run in its result.
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
    reason = skips.before(profile, settings, needs)
    prepared_s = 0.0
    if not reason:  # what the script imports, brought where the way's interpreter lacks it
        started = time.monotonic()
        python_path, reason = profile.launcher.for_script(Path(script), settings.deadline)
        prepared_s = time.monotonic() - started
        settings = dataclasses.replace(settings, python_path=(*python_path, *settings.python_path))
        reason = reason or skips.too_late(settings, prepared_s)
    if reason:
        return RunResult(**base, outcome=Outcome.SKIPPED, reason=reason)
    result, output = _judged(script, profile, settings, judging, base)
    fault = skips.after(result, output, profile.launcher)
    if fault is not None and fault.passing:  # the way of running failed by itself: once more
        result, output = _judged(script, profile, settings, judging, base)
        fault = skips.after(result, output, profile.launcher)
    if result.outcome is Outcome.SKIPPED:
        result = dataclasses.replace(result, reason=result.reason + skips.preparation(prepared_s))
    if fault is not None and not fault.passing:
        result = skips.skipped(result, fault.reason)
    return result


def _judged(
    script: Path, profile: Profile, settings: RunSettings, judging: Case | None, base: dict
) -> tuple[RunResult, str]:
    """The judged result of one run, and its whole output."""
    try:
        observed = runner.run_script(script, profile, settings)
    except Exception as exc:  # the harness failed, not the script: say so, keep the suite going
        return RunResult(**base, outcome=Outcome.ERROR, reason=f"{type(exc).__name__}: {exc}"), ""
    return judge.result(observed, base, judging, profile.launcher), observed.output


def compared(result: RunResult, **expectation) -> RunResult:
    """`result` with what its case expected (RunResult fields: expected, matched, …) beside it."""
    return dataclasses.replace(result, **expectation)
