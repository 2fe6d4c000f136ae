"""Runs the case × variant × profile matrix in parallel and judges each run."""

from __future__ import annotations

import concurrent.futures
import dataclasses
import sys
import sysconfig
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from harness import confirmations, needs, profiles, runner, shm_limit
from harness.active_runs import ACTIVE_RUNS
from harness.cases import CASES_DIR, Case
from harness.idleness import DEFAULT_IDLE_S
from harness.measurements import startup_figures, startup_wait
from harness.memory import largest_growth
from harness.observation import Observation, Stop
from harness.outcomes import Outcome, classify, hang_signature
from harness.profiles import Profile
from harness.results import RunResult
from harness.settings import RunSettings

OUTPUT_TAIL_LINES = 40
OUTPUT_TAIL_CHARS = 6000


@dataclass(frozen=True)
class Job:
    case: Case
    variant: str
    profile: Profile
    timeout_s: float
    idle_s: float | None = DEFAULT_IDLE_S


def plan(
    cases: list[Case],
    variants: list[str],
    chosen: list[Profile],
    timeout_s: float | None,
    idle_s: float | None = DEFAULT_IDLE_S,
) -> list[Job]:
    return [
        Job(case, variant, profile, timeout_s or case.timeout, idle_s)
        for case in cases
        for variant in variants
        for profile in chosen
    ]


def _path_aliases() -> list[tuple[str, str]]:
    """Machine-specific path prefixes and the neutral names recorded instead, longest first."""
    aliases = {
        sysconfig.get_path("purelib"): "<site-packages>",
        sysconfig.get_path("stdlib"): "<stdlib>",
        str(CASES_DIR.parent): "<project>",
    }
    return sorted(aliases.items(), key=lambda item: -len(item[0]))


PATH_ALIASES = _path_aliases()
LIBRARY_PATHS = tuple(
    {sysconfig.get_path(name) for name in ("stdlib", "platstdlib", "purelib", "platlib")}
    | {sys.prefix, str(runner.BOOT_DIR)}
)


def is_library(path: str) -> bool:
    """Whether a frame's file belongs to Python or an installed package rather than the script."""
    return path.startswith("<") or path.startswith(LIBRARY_PATHS)


def scrub(text: str) -> str:
    """The text with this machine's install paths replaced, so results compare across machines."""
    for prefix, alias in PATH_ALIASES:
        text = text.replace(prefix, alias)
    return text


def tail(output: str) -> str:
    lines = output.splitlines()[-OUTPUT_TAIL_LINES:]
    return scrub("\n".join(lines)[-OUTPUT_TAIL_CHARS:])


def observe(
    script: Path, profile: Profile | str, settings: RunSettings, judging: Case | None = None, **labels: str
) -> RunResult:
    """Runs one script under one profile (or the profile of that name) and classifies what happened.

    `judging`: the case whose thresholds judge a run that exited 0 (a leak, a slow start-up).
    `labels` (case, variant) name the run in its result. A profile that cannot run here is skipped.
    """
    profile = profiles.resolve(profile)
    base = dict(
        labels, profile=profile.name, start_method=profile.start_method, emulation=profile.emulation()
    )
    unavailable = profiles.unavailable(profile) or shm_limit.unavailable(settings.dev_shm_mb, profile)
    if unavailable:
        return RunResult(**base, outcome=Outcome.SKIPPED, reason=unavailable)
    try:
        observed = runner.run_script(script, profile, settings)
    except Exception as exc:  # the harness failed, not the script: say so, keep the suite going
        return RunResult(**base, outcome=Outcome.ERROR, reason=f"{type(exc).__name__}: {exc}")
    if observed.boot_failure:
        return RunResult(
            **base, outcome=Outcome.ERROR, reason=observed.boot_failure, output_tail=tail(observed.output)
        )
    outcome, signature = judge(observed, judging)
    return RunResult(
        **base,
        outcome=outcome,
        signature=scrub(signature),
        returncode=observed.returncode,
        signal=observed.signal,
        duration_s=observed.duration_s,
        output_tail=tail(observed.output),
        stacks={pid: scrub(text) for pid, text in observed.stacks.items()},
        native_stacks={pid: scrub(text) for pid, text in observed.native_stacks.items()},
        native_stacks_note=observed.native_stacks_note,
        memory=observed.memory,
        loader_epochs=observed.loader_epochs,
        rng=observed.rng,
        dataset_sizes=observed.dataset_sizes,
        first_batches=observed.first_batches,
        stopped_after_batches=observed.stopped_after_batches,
        leftovers=[scrub(text) for text in observed.leftovers],
        shm_leftovers=observed.shm_leftovers,
    )


def judge(observed: Observation, judging: Case | None) -> tuple[Outcome, str]:
    """(outcome, signature) of a finished run: why the harness stopped it, else how it ended."""
    stop = observed.stop
    if stop in (Stop.PROCESSES, Stop.OUTPUT):
        return Outcome.CRASH, observed.stop_note
    if stop is Stop.MEMORY:
        return Outcome.LEAK, observed.stop_note
    if stop is Stop.BATCHES:
        return Outcome.OK, f"stopped by the harness after {observed.stopped_after_batches} batches"
    outcome, signature = classify(observed.output, observed.returncode, observed.timed_out, is_library)
    if outcome is Outcome.HANG:
        signature = hang_signature(observed.stacks, observed.native_stacks, is_library, observed.root_pid)
        if stop in (Stop.STALL, Stop.IDLE):
            signature = f"{signature}; {observed.stop_note}"
    if outcome is Outcome.OK and judging is not None and judging.leak_threshold_mb is not None:
        return judge_memory(observed.memory or {}, judging.leak_threshold_mb)
    if outcome is Outcome.OK and judging is not None and judging.slow_startup_share is not None:
        return judge_startup(observed.loader_epochs, judging.slow_startup_share)
    return outcome, signature


def judge_memory(memory: dict, threshold_mb: float) -> tuple[Outcome, str]:
    """`leak` when a worker grew past the threshold from its baseline; else `ok`, with the figures.

    The threshold is set for USS (what a worker holds alone); where only RSS could be read (macOS
    without root), the run is not judged: `skipped`, saying why.
    """
    growth = largest_growth(memory)
    if growth is None:
        return Outcome.ERROR, "no worker memory was sampled"
    grew, baseline, metric = growth
    if metric != "uss":
        return Outcome.SKIPPED, (
            f"worker memory could be read only as {metric.upper()} here (USS of another process needs "
            f"more rights); the leak threshold of {threshold_mb:g} MB is set for USS"
        )
    figures = f"worker grew {grew:.0f} MB over its {baseline:.0f} MB baseline (threshold {threshold_mb:g} MB)"
    return (Outcome.LEAK if grew > threshold_mb else Outcome.OK), figures


def judge_startup(epochs: list[dict], threshold: float) -> tuple[Outcome, str]:
    """`slow` when the epochs after the first spent more than `threshold` of their time waiting
    for their first batch (re-starting workers, re-sending the Dataset); else `ok`, with figures."""
    waited = startup_wait(epochs)
    if waited is None:
        return Outcome.ERROR, f"no complete epoch after the first was recorded ({len(epochs)} epochs)"
    share = waited[1]
    figures = f"{startup_figures(epochs)} (threshold {threshold:.0%})"
    return (Outcome.SLOW if share > threshold else Outcome.OK), figures


def execute(job: Job) -> RunResult:
    """Runs one job (or skips it for a missing need) and compares it with its expectation.

    An expectation is unverified where case.toml says so, and where this run is the profile's real
    platform (Windows, macOS, Python 3.14) and no results file from there has confirmed it yet: a
    mismatch is then reported, not fatal.
    """
    profile = job.profile
    reason = needs.missing(job.case.needs)
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
        result = observe(
            job.case.script(job.variant),
            profile,
            dataclasses.replace(job.case.settings(job.timeout_s), idle_s=job.idle_s),
            judging=job.case,
            case=job.case.name,
            variant=job.variant,
        )
    expectation = job.case.expectation(job.variant, profile)
    result.expected = expectation.outcome
    result.expected_signature = expectation.signature
    result.expected_unverified = expectation.unverified or (
        not result.emulation
        and profile.name != "linux"
        and not confirmations.confirmed(profile.name, job.case.name, job.variant)
    )
    if result.outcome is not Outcome.SKIPPED:
        result.matched = expectation.matches(result.outcome, result.signature)
    return result


def where_stopped() -> list[str]:
    """For each run that an interruption ended: where its processes were, from their stacks."""
    return [
        f"{label}: " + hang_signature(stacks, {}, is_library, root_pid).removeprefix("hang: ")
        for label, root_pid, stacks in ACTIVE_RUNS.stopped
    ]


def run_all(
    tasks: list, workers: int, on_done: Callable[[RunResult], None] | None = None, run=execute
) -> list[RunResult]:
    """Runs `run(task)` for each task on `workers` threads (each waits on its own process tree)."""
    results: list[RunResult] = []
    ACTIVE_RUNS.open()
    with concurrent.futures.ThreadPoolExecutor(max_workers=workers) as pool:
        futures = [pool.submit(run, task) for task in tasks]
        try:
            for future in concurrent.futures.as_completed(futures):
                result = future.result()
                results.append(result)
                if on_done:
                    on_done(result)
        except BaseException:
            for future in futures:
                future.cancel()
            ACTIVE_RUNS.end_all()
            raise
    return sorted(results, key=lambda r: r.key)
