"""What each start method's workers fetched (case 23): the same sample index, fetched under fork
and under spawn or forkserver, with nothing drawn at random for it, should give the same data.

Where it does not, the sample was made from state that a forked worker copied from the main
process and a spawned one, which imported the script afresh, lacks: a module global that main()
or the main guard set. Samples fetched while a random generator drew (augmentations), or that
differed within one run, are left out by the probe (harness/run/probe_records.py `samples`).
Runs are compared only with runs of the same interpreter (a pickle differs between versions).
A difference is confirmed only where a second run that imported the script afresh fetched the
same data as the first: data made at random in the main process (unseeded synthetic data, a
random split) differs from run to run, and then from each of them.
"""

from __future__ import annotations

from ..results import RunResult
from ..run.probe_records import VARIED
from .verdict import CONFIRMED, REFUTED, UNKNOWN, Measurement

FORK = "fork"
FRESH = ("spawn", "forkserver")  # start methods whose workers import the script afresh
SHOWN = 3  # differing samples named in the text


def fetched_by_key(result: RunResult) -> dict[str, str]:
    """{"<dataset>:<index>" or a batch's key: digest} of what the run's workers fetched, less the
    keys whose data differed within the run."""
    fetched = (result.samples or {}).get("fetched", {})
    return {key: digest for key, digest in fetched.items() if digest != VARIED}


def _interpreter(result: RunResult) -> tuple[str, str]:
    return (result.how.launcher, result.how.python) if result.how else ("", "")


def _differing(fork: dict[str, str], fresh: dict[str, str]) -> tuple[list[str], int]:
    shared = sorted(set(fork) & set(fresh))
    return [key for key in shared if fork[key] != fresh[key]], len(shared)


def main_state(results: list[RunResult], case=None) -> Measurement:
    """Confirmed where a sample index gave other data under spawn or forkserver than under fork
    (and, with two such runs or more, the same other data in each: not chance); refuted where
    every sample compared was the same; unknown where none could be compared."""
    forks = [r for r in results if r.start_method == FORK and fetched_by_key(r)]
    fresh = [r for r in results if r.start_method in FRESH and fetched_by_key(r)]
    pairs = [(f, r) for f in forks for r in fresh if _interpreter(f) == _interpreter(r)]
    compared = [(f, r, *_differing(fetched_by_key(f), fetched_by_key(r))) for f, r in pairs]
    compared = [entry for entry in compared if entry[3]]
    if not compared:
        return Measurement(UNKNOWN, _nothing_compared(results))
    differing = [entry for entry in compared if entry[2]]
    if not differing:
        runs = ", ".join(sorted({r.profile for _, r, _, _ in compared}))
        count = max(n for *_, n in compared)
        return Measurement(
            REFUTED,
            f"the {count} samples and batches fetched by index under fork and under {runs}, with "
            "nothing drawn at random for them, were the same",
        )
    return _judged(*differing[0], fresh)


def _judged(
    fork: RunResult, first: RunResult, keys: list[str], count: int, fresh: list[RunResult]
) -> Measurement:
    """Samples that differed between `fork` and `first`: confirmed where another run that imported
    the script afresh fetched them too and agrees with `first` (the data does not vary from run
    to run); unknown where one disagrees, or where no other run can tell."""
    named = ", ".join(_key(key) for key in keys[:SHOWN]) + (
        f" and {len(keys) - SHOWN} more" if len(keys) > SHOWN else ""
    )
    seen = (
        f"{len(keys)} of {count} samples and batches fetched by the same index differed between "
        f"{fork.profile} (fork) and {first.profile} ({named}), with nothing drawn at random for them"
    )
    theirs = fetched_by_key(first)
    controls = [
        r
        for r in fresh
        if r is not first and _interpreter(r) == _interpreter(first) and set(keys) & set(fetched_by_key(r))
    ]
    disagree = [
        r.profile for r in controls if any(fetched_by_key(r).get(k, theirs[k]) != theirs[k] for k in keys)
    ]
    if not controls:
        return Measurement(
            UNKNOWN,
            f"{seen}; but no other run that imported the script afresh fetched them, to tell state "
            "that only the main process set from data that varies from run to run (unseeded data, a "
            "random split): check with more profiles (linux-3.14, macos)",
        )
    if disagree:
        return Measurement(
            UNKNOWN,
            f"{seen}; but {', '.join(disagree)} fetched yet other data for them: data that varies "
            "from run to run, not state that only the main process set",
        )
    agreeing = ", ".join(r.profile for r in controls)
    return Measurement(
        CONFIRMED,
        f"{seen}, and {agreeing} fetched the same data as {first.profile}: the workers that imported "
        "the script afresh made them from other state than the forked copies of the main process",
    )


def _key(key: str) -> str:
    dataset, index = key.rsplit(":", 1)
    what = "a batch" if index.startswith("b") else f"sample {index}"
    return f"{what} of {dataset.split('/')[0]}"


def _nothing_compared(results: list[RunResult]) -> str:
    fetched = [r for r in results if fetched_by_key(r)]
    drawn = sum((r.samples or {}).get("random", 0) for r in results)
    forks = {_interpreter(r) for r in fetched if r.start_method == FORK}
    if not forks & {_interpreter(r) for r in fetched if r.start_method in FRESH}:
        return (
            "no map-style Dataset's samples were fetched by workers under both fork and spawn or "
            "forkserver with the same interpreter: nothing to compare"
            + (f" ({drawn} were fetched while a random generator drew)" if drawn else "")
        )
    return "the runs under fork and under spawn or forkserver fetched no sample index in common"
