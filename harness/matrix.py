"""Runs the case × variant × start method matrix in parallel and judges each run."""

from __future__ import annotations

import concurrent.futures
from collections.abc import Callable
from dataclasses import dataclass

from harness import needs, runner
from harness.cases import Case
from harness.outcomes import Outcome, classify
from harness.results import RunResult

OUTPUT_TAIL_LINES = 40
OUTPUT_TAIL_CHARS = 6000


@dataclass(frozen=True)
class Job:
    case: Case
    variant: str
    start_method: str
    timeout_s: float

    @property
    def label(self) -> str:
        return f"{self.case.name} {self.variant} {self.start_method}"


def plan(cases: list[Case], variants: list[str], methods: list[str], timeout_s: float | None) -> list[Job]:
    return [
        Job(case, variant, method, timeout_s or case.timeout)
        for case in cases
        for variant in variants
        for method in methods
    ]


def tail(output: str) -> str:
    lines = output.splitlines()[-OUTPUT_TAIL_LINES:]
    return "\n".join(lines)[-OUTPUT_TAIL_CHARS:]


def judge(job: Job, outcome: str, signature: str) -> tuple[str, str | None, bool | None]:
    """(expected outcome, expected signature, matched) for an observation of `job`."""
    expectation = job.case.expect[(job.variant, job.start_method)]
    matched = None if outcome == Outcome.SKIPPED else expectation.matches(outcome, signature)
    return expectation.outcome, expectation.signature, matched


def execute(job: Job) -> RunResult:
    """Runs one job (or skips it for a missing need) and compares it with its expectation."""
    base = dict(case=job.case.name, variant=job.variant, start_method=job.start_method)
    reason = needs.missing(job.case.needs)
    if reason:
        expected, expected_signature, _ = judge(job, Outcome.SKIPPED, "")
        return RunResult(
            **base,
            outcome=Outcome.SKIPPED.value,
            expected=expected,
            expected_signature=expected_signature,
            reason=reason,
        )
    try:
        observed = runner.run_script(job.case.script(job.variant), job.start_method, job.timeout_s)
    except Exception as exc:  # the harness failed, not the script: say so, keep the suite going
        expected, expected_signature, _ = judge(job, Outcome.ERROR, "")
        return RunResult(
            **base,
            outcome=Outcome.ERROR.value,
            expected=expected,
            expected_signature=expected_signature,
            matched=False,
            reason=f"{type(exc).__name__}: {exc}",
        )
    outcome, signature = classify(observed.output, observed.returncode, observed.timed_out)
    expected, expected_signature, matched = judge(job, outcome.value, signature)
    return RunResult(
        **base,
        outcome=outcome.value,
        signature=signature,
        expected=expected,
        expected_signature=expected_signature,
        matched=matched,
        returncode=observed.returncode,
        signal=observed.signal,
        duration_s=observed.duration_s,
        output_tail=tail(observed.output),
        stacks=observed.stacks,
        leftover_pids=observed.leftover_pids,
    )


def run_all(jobs: list[Job], workers: int, on_done: Callable[[RunResult], None] | None = None) -> list[RunResult]:
    """Runs the jobs on `workers` threads (each waits on its own process tree)."""
    results: list[RunResult] = []
    with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(execute, job) for job in jobs]
        try:
            for future in concurrent.futures.as_completed(futures):
                result = future.result()
                results.append(result)
                if on_done:
                    on_done(result)
        except BaseException:
            for future in futures:
                future.cancel()
            runner.ACTIVE_RUNS.end_all()
            raise
    return sorted(results, key=lambda r: r.key)
