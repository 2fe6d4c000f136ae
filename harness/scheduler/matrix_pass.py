"""One observation of the case matrix per verification pass, for every process of the pass.

A pass is a folder named by DLP_MATRIX_PASS (the noxfile sets one per `nox` invocation; the test
suite one per pytest session). The first process of the pass that needs the whole matrix observes
it: every case × variant × profile, and each run of RERUN_PROFILE made again in the folder where it
ran (a reader who runs a script twice must see the lesson twice). It writes both as results files
into the pass folder. Every other process of the pass (another pytest worker; `reproduce` and
`verify` after `nox -s tests`) reads them under a lock instead of running the cases again. Nothing
is read from another pass, or from a pass made by another Python, torch or OpenCV.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import filelock

from .. import environment, profiles, results, scheduler
from ..cases import VARIANTS, Case
from ..outcomes import Outcome
from ..profiles import PROFILES
from ..results import RunResult

PASS_VARIABLE = "DLP_MATRIX_PASS"
MATRIX_FILE = "matrix.json"
RERUNS_FILE = "reruns.json"
# fork: the fastest profile, and the one under which the workers of cases 08 and 18 write into the
# run's folder as the main process does, so that a leftover of the first run shows in the second.
RERUN_PROFILE = profiles.BASELINE
# What a result depends on: a pass made with other versions is not this environment's.
SAME_ENVIRONMENT = ("os", "python", "torch", "numpy", "opencv")

Key = tuple[str, str, str]


@dataclass
class Matrix:
    results: dict[Key, RunResult]  # every case × variant × profile
    reruns: dict[Key, RunResult]  # the second run of each RERUN_PROFILE run, in the first's folder


def pass_folder() -> Path | None:
    """The folder of the pass this process belongs to; None outside a pass."""
    named = os.environ.get(PASS_VARIABLE, "").strip()
    return Path(named) if named else None


def observe(catalog: list[Case], workers: int, folder: Path, on_done: Callable | None = None) -> Matrix:
    """Every case × variant × profile in one pool (harness/scheduler/pool.py), longest first; each
    RERUN_PROFILE run in a folder of its own under `folder`, and then again in that folder."""
    jobs = scheduler.plan(catalog, list(VARIANTS), list(PROFILES.values()))
    durations = results.recorded_durations(environment.default_results_path(results.RESULTS_DIR))
    reruns: dict[Key, RunResult] = {}
    rerun_root = folder / "reruns"

    def run(job: scheduler.Job) -> RunResult:
        if job.profile.name != RERUN_PROFILE or job.profile.launcher.missing(job.case.needs):
            return scheduler.execute(job)
        where = rerun_root / f"{job.case.name}-{job.variant}"
        where.mkdir(parents=True, exist_ok=True)
        in_folder = dataclasses.replace(job, settings=dataclasses.replace(job.settings, cwd=where))
        first = scheduler.execute(in_folder)
        if first.outcome is not Outcome.SKIPPED:
            reruns[first.key] = scheduler.execute(in_folder)
        return first

    try:
        observed = scheduler.run_all(scheduler.longest_first(jobs, durations), workers, run, on_done)
    finally:
        shutil.rmtree(rerun_root, ignore_errors=True)
    return Matrix({r.key: r for r in observed}, reruns)


def shared(catalog: list[Case], workers: int, folder: Path) -> Matrix:
    """The pass's matrix: read from `folder` where a process of this pass observed it, else
    observed now and written there (one process at a time: the others wait and read it)."""
    folder.mkdir(parents=True, exist_ok=True)
    with filelock.FileLock(folder / "matrix.lock"):
        earlier = read(folder)
        wanted = {(c.name, v, p) for c in catalog for v in VARIANTS for p in PROFILES}
        if earlier is not None and wanted <= set(earlier.results):
            return earlier
        matrix = observe(catalog, workers, folder)
        here = environment.describe()
        results.save(folder / RERUNS_FILE, results.ResultsFile(here, list(matrix.reruns.values())))
        results.save(folder / MATRIX_FILE, results.ResultsFile(here, list(matrix.results.values())))
        return matrix


def read(folder: Path | None) -> Matrix | None:
    """The matrix that a process of this pass observed in this environment; None where there is none."""
    if folder is None:
        return None
    try:
        made = results.load(folder / MATRIX_FILE)
        again = results.load(folder / RERUNS_FILE)
    except (OSError, results.ResultsError):
        return None
    here = environment.describe()
    if any(made.environment.get(name) != here.get(name) for name in SAME_ENVIRONMENT):
        return None
    return Matrix({r.key: r for r in made.results}, {r.key: r for r in again.results})


def main(argv: list[str]) -> int:
    """`python -m harness.scheduler.matrix_pass [JOBS]`: the matrix of the pass that DLP_MATRIX_PASS
    names, observed there (or found made): what the test suite starts ahead, in a process of its
    own, so that its runs meet nothing of the tests' (their processes, their session id)."""
    from ..cases import discover

    folder = pass_folder()
    if folder is None:
        print(f"{PASS_VARIABLE} names no pass folder", file=sys.stderr)
        return 2
    matrix = shared(discover(), int(argv[0]) if argv else 2 * (os.cpu_count() or 1), folder)
    print(f"{len(matrix.results)} runs and {len(matrix.reruns)} reruns in {folder}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
