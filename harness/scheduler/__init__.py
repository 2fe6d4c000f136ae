"""Runs the case × variant × profile matrix, and single scripts, in parallel (harness/judge.py judges).

`plan` makes the jobs, `execute` runs one and compares it with its case; `run_all` (pool.py) runs
many in one pool; matrix_pass.py observes the whole matrix once per verification pass."""

from __future__ import annotations

from dataclasses import dataclass

from .. import confirmations, judge, verdict
from ..cases import Case
from ..outcomes import Outcome
from ..profiles import Profile
from ..results import RunResult
from ..run.active_runs import ACTIVE_RUNS
from ..run.settings import RunSettings


@dataclass(frozen=True)
class Job:
    case: Case
    variant: str
    profile: Profile
    settings: RunSettings  # built once, from the command line and the case: every limit it runs under
    timeout_given: bool = False  # the command line set the timeout: no way of running stretches it

    @property
    def timeout_s(self) -> float:
        """The timeout it runs under (a slower way of running stretches a case's own)."""
        return self.profile.launcher.settings(self.settings, self.timeout_given).timeout_s

    @property
    def memory_limit_mb(self) -> float:
        """The memory its processes may hold together before the harness stops it (its way of
        running may lower the case's own)."""
        return self.profile.launcher.settings(self.settings, self.timeout_given).memory_limit_mb


def plan(
    cases: list[Case],
    variants: list[str],
    chosen: list[Profile],
    **overrides,
) -> list[Job]:
    """Every case × variant × profile, each with its case's settings; `overrides`: RunSettings fields
    the command line gave (harness/commands/arguments.py `overrides`)."""
    given = "timeout_s" in overrides
    return [
        Job(case, variant, profile, case.settings(**overrides), given)
        for case in cases
        for variant in variants
        for profile in chosen
    ]


def execute(job: Job) -> RunResult:
    """Runs one job (harness/verdict.py, as every command does) and compares it with its expectation.

    An expectation is unverified where case.toml says so, and where this run is the profile's real
    platform (Windows, macOS, Python 3.14) and no results file from there has confirmed it yet: a
    mismatch is then reported, not fatal. A native run that matches confirms it.
    """
    case, profile = job.case, job.profile
    result = verdict.reach(
        case.script(job.variant), profile, job.settings, case,
        needs=case.needs, timeout_given=job.timeout_given, case=case.name, variant=job.variant,
    )  # fmt: skip
    expectation = case.expectation(job.variant, profile)
    native = result.native
    unverified = expectation.unverified or (
        native and not profile.baseline
        and not confirmations.confirmed(profile.name, case.name, job.variant)
    )  # fmt: skip
    matched = None
    if result.outcome is not Outcome.SKIPPED:
        matched = expectation.matches(result.outcome, result.signature)
        # A native run that matched is the confirmation itself (its results file confirms it).
        unverified = unverified and not (native and matched)
    return verdict.compared(
        result,
        expected=expectation.outcome,
        expected_signature=expectation.signature,
        expected_unverified=unverified,
        matched=matched,
    )


def where_stopped() -> list[str]:
    """For each run that an interruption ended: where its processes were, from their stacks."""
    return [
        f"{label}: " + judge.hang_signature(stacks, {}, judge.is_library, root_pid).removeprefix("hang: ")
        for label, root_pid, stacks in ACTIVE_RUNS.stopped
    ]


from .pool import lane, longest_first, run_all  # noqa: E402  (uses the above)

__all__ = [
    "Job",
    "execute",
    "lane",
    "longest_first",
    "plan",
    "run_all",
]
