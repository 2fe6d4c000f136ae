"""One path from a script to its verdict, for every command (`run`, `check`, `script`, `experiment`).

Every run goes the same way here (`reach`): the settings its launcher gives it (a slower way
stretches the time limits), whether it can run at all and what the script imports brought to it
(harness/skips.py says why not), the run itself (harness/run/runner.py), and the one verdict on
what it showed (`report`).

As pytest's `TestReport.from_item_and_call` makes one report from one call, `report` makes one
verdict from one Observation: the outcome and its evidence (harness/judge.py classifies), or why
the run shows nothing about the script (`skipped`, the reason in words from harness/skips.py), or
that its way of running failed by itself once and it is run again (`again`). The runner, the
judge, the launchers and skips.py only supply facts and words.

Nothing here invents a failure: a run stopped as hung while its processes still worked is not
judged (too slow here, not stuck); a run the command's deadline cut short is not judged; a failure
that its way of running, this machine's missing GPU or this machine's own OOM killer caused is not
the script's. The same script under the same profile gets the same
verdict whichever command ran it.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass
from pathlib import Path

from . import judge, profiles, recognition, skips
from .cases import Case
from .outcomes import Outcome
from .profiles import Profile
from .results import RunResult
from .run import launch, runner
from .run.observation import Observation
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
    settings = profile.launcher.settings(settings.confined_by_default(dict(profile.confined)), timeout_given)
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
    made = _reported(script, profile, settings, judging, base, prepared_s)
    if made.again:  # its way of running failed by itself: once more
        made = _reported(script, profile, settings, judging, base, prepared_s, retried=True)
    return made.result


def _reported(
    script: Path,
    profile: Profile,
    settings: RunSettings,
    judging: Case | None,
    base: dict,
    prepared_s: float,
    retried: bool = False,
) -> Report:
    """The verdict on one run (`report` decides it from what the run observed)."""
    try:
        observed = runner.run_script(script, profile, settings)
    except Exception as exc:  # the harness failed, not the script: say so, keep the suite going
        return Report(RunResult(**base, outcome=Outcome.ERROR, reason=f"{type(exc).__name__}: {exc}"))
    return report(
        observed, base, judging, profile.launcher,
        retried=retried, prepared_s=prepared_s, quiet_s=settings.quiet_s,
    )  # fmt: skip


@dataclass(frozen=True)
class Report:
    """The verdict on one run: its result, and whether its way of running asks for one more run."""

    result: RunResult
    again: bool = False  # a passing fault of its way of running, seen for the first time


def report(
    observed: Observation,
    base: dict,
    judging: Case | None = None,
    launcher: launch.Launcher | None = None,
    *,
    retried: bool = False,
    prepared_s: float = 0.0,
    quiet_s: float = 0.0,
) -> Report:
    """The verdict on a finished run (`base`: its labels, profile and emulation; `judging`: the case
    whose thresholds judge a run that exited 0; `launcher`: its way of running, which says where it
    failed by itself; `retried`: this is the run made again; `prepared_s`: what preparing its
    imports took; `quiet_s`: the window over which its CPU share shows whether its processes waited)."""
    paths = judge.paths_for(launcher)
    tail = paths.tail(observed.output)
    if cut := skips.cut_short(observed):  # stopped by the command: nothing shown about the script
        reason = cut + skips.preparation(prepared_s)
        return Report(RunResult(**base, outcome=Outcome.SKIPPED, reason=reason, output_tail=tail))
    if failed := observed.boot_failure:
        return Report(RunResult(**base, outcome=Outcome.ERROR, reason=failed, output_tail=tail))
    result = judge.result(observed, base, judging, paths)
    if reason := skips.still_working(observed, quiet_s):  # slow here, not stuck: what it did is kept
        return Report(skips.skipped(result, reason + skips.preparation(prepared_s)))
    if reason := skips.memory_unreadable(observed, judging):
        return Report(skips.skipped(result, reason))
    if not result.outcome.is_failure:
        return Report(result)
    raised = recognition.raised(result) if result.outcome.script_raised else [result.signature]
    fault = launcher.fault(observed, raised) if launcher is not None else None
    if fault is not None and fault.passing and not retried:
        return Report(result, again=True)
    reason = (
        (fault and skips.fault_reason(fault, retried))
        or skips.no_gpu(result)
        or skips.machine_oom(observed, raised)
    )
    return Report(skips.skipped(result, reason) if reason else result)


def compared(result: RunResult, **expectation) -> RunResult:
    """`result` with what its case expected (RunResult fields: expected, matched, …) beside it."""
    return dataclasses.replace(result, **expectation)
