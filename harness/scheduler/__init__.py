"""Runs the case × variant × profile matrix, and single scripts, in parallel (harness/judge.py judges).

`plan` makes the jobs, `execute` runs one and compares it with its case; `run_all` (pool.py) runs
many in one pool; matrix_pass.py observes the whole matrix once per verification pass."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path

from harness import confirmations, judge, needs, profiles
from harness.cases import Case
from harness.outcomes import Outcome
from harness.profiles import Profile
from harness.results import RunResult
from harness.run import private_shm, runner, wine
from harness.run.active_runs import ACTIVE_RUNS
from harness.run.settings import RunSettings


@dataclass(frozen=True)
class Job:
    case: Case
    variant: str
    profile: Profile
    settings: RunSettings  # built once, from the command line and the case: every limit it runs under

    @property
    def timeout_s(self) -> float:
        return self.settings.timeout_s


def plan(
    cases: list[Case],
    variants: list[str],
    chosen: list[Profile],
    **overrides,
) -> list[Job]:
    """Every case × variant × profile, each with its case's settings; `overrides`: RunSettings fields
    the command line gave (harness/commands/arguments.py `overrides`)."""
    return [
        Job(case, variant, profile, case.settings(**_for_profile(profile, case, overrides)))
        for case in cases
        for variant in variants
        for profile in chosen
    ]


def _for_profile(profile: Profile, case: Case, overrides: dict) -> dict:
    """Under Wine each process starts in seconds (a Windows process, torch imported again): a
    case's own timeout is WINE_TIMEOUT_FACTOR times longer there, unless the command line set one."""
    if profile.under_wine and "timeout_s" not in overrides:
        return {**overrides, "timeout_s": case.timeout * wine.TIMEOUT_FACTOR}
    return overrides


def settings_for(profile: Profile, settings: RunSettings) -> RunSettings:
    """`check`'s settings for one profile: under Wine a worker takes seconds to start, so the stall
    limit (no batch for so long) is wine.TIMEOUT_FACTOR times longer there."""
    if profile.under_wine and settings.stall_s is not None:
        return dataclasses.replace(settings, stall_s=settings.stall_s * wine.TIMEOUT_FACTOR)
    return settings


def observe(
    script: Path, profile: Profile | str, settings: RunSettings, judging: Case | None = None, **labels: str
) -> RunResult:
    """Runs one script under one profile (or the profile of that name) and classifies what happened.

    `judging`: the case whose thresholds judge a run that exited 0 (a leak, a slow start-up).
    `labels` (case, variant) name the run in its result. A profile that cannot run here is skipped.
    """
    profile = profiles.resolve(profile)
    base = dict(
        labels,
        profile=profile.name,
        start_method=profile.start_method,
        emulation=profile.emulation(),
        limits=settings.limits(),
    )
    unavailable = profiles.unavailable(profile) or private_shm.unavailable(settings.dev_shm_mb, profile)
    if unavailable:
        return RunResult(**base, outcome=Outcome.SKIPPED, reason=unavailable)
    try:
        observed = runner.run_script(script, profile, settings)
    except Exception as exc:  # the harness failed, not the script: say so, keep the suite going
        return RunResult(**base, outcome=Outcome.ERROR, reason=f"{type(exc).__name__}: {exc}")
    return judge.result(observed, base, judging)


def execute(job: Job) -> RunResult:
    """Runs one job (or skips it for a missing need) and compares it with its expectation.

    An expectation is unverified where case.toml says so, and where this run is the profile's real
    platform (Windows, macOS, Python 3.14) and no results file from there has confirmed it yet: a
    mismatch is then reported, not fatal. A native run that matches confirms it.
    """
    profile = job.profile
    reason = needs.missing(job.case.needs, profile.under_wine)
    if reason:
        result = RunResult(
            case=job.case.name,
            variant=job.variant,
            profile=profile.name,
            start_method=profile.start_method,
            emulation=profile.emulation(),
            outcome=Outcome.SKIPPED,
            reason=reason,
        )
    else:
        run = [job.case.script(job.variant), profile, job.settings]
        labels = {"judging": job.case, "case": job.case.name, "variant": job.variant}
        result = observe(*run, **labels)
        if profile.under_wine and wine.failed_itself(result.signature):  # Wine's failure, not the script's
            result = observe(*run, **labels)
    expectation = job.case.expectation(job.variant, profile)
    result.expected = expectation.outcome
    result.expected_signature = expectation.signature
    native = not result.emulation
    result.expected_unverified = expectation.unverified or (
        native
        and profile.name != "linux"
        and not confirmations.confirmed(profile.name, job.case.name, job.variant)
    )
    if result.outcome is not Outcome.SKIPPED:
        result.matched = expectation.matches(result.outcome, result.signature)
        # A native run that matched is the confirmation itself (its results file confirms it).
        result.expected_unverified = result.expected_unverified and not (native and result.matched)
    return result


def where_stopped() -> list[str]:
    """For each run that an interruption ended: where its processes were, from their stacks."""
    return [
        f"{label}: " + judge.hang_signature(stacks, {}, judge.is_library, root_pid).removeprefix("hang: ")
        for label, root_pid, stacks in ACTIVE_RUNS.stopped
    ]


from harness.scheduler.pool import WINE_AT_ONCE, lane, longest_first, run_all  # noqa: E402  (uses the above)

__all__ = [
    "WINE_AT_ONCE",
    "Job",
    "execute",
    "lane",
    "longest_first",
    "observe",
    "plan",
    "run_all",
    "settings_for",
]
