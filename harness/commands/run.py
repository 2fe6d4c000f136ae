"""`run`: cases under each profile, compared with what each case.toml expects, and recorded."""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from ..cases import VARIANTS, discover, select
from . import EXIT_FAILED, EXIT_OK, arguments


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser("run", help="run cases under each profile and compare with expectations")
    parser.add_argument("cases", nargs="*", metavar="CASE", help="number, slug or folder name (default: all)")
    parser.add_argument("--variant", choices=[*VARIANTS, "both"], default="both")
    arguments.add_profiles(parser)
    arguments.add_jobs(parser)
    arguments.add_timeout(parser, None, "per run")
    arguments.add_idle(parser)
    arguments.add_chroot(parser)
    parser.add_argument(
        "--results", type=Path, help="results file (default: results/<os>-py<X.Y>-torch<V>.json)"
    )
    parser.add_argument("--no-record", action="store_true", help="do not write a results file")
    parser.add_argument(
        "--repeat", type=arguments.count, default=1, help="run the matrix N times and count agreement"
    )
    parser.add_argument(
        "--require-ok",
        action="store_true",
        help="also fail when any run that was not skipped is not ok (for fixed variants)",
    )
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace, console: Console) -> int:
    from .. import environment, outcome_table, results, scheduler

    variants = list(VARIANTS) if args.variant == "both" else [args.variant]
    cases = select(discover(args.cases_dir), args.cases)
    chosen, env = arguments.launched(args)
    results_path = args.results or environment.default_results_path(results.RESULTS_DIR, env)
    if not args.no_record and results_path.exists():
        try:
            results.load(results_path)  # refuse a damaged or newer file before spending minutes
        except results.OlderSchemaError as exc:
            console.print(f"[yellow]note:[/] {escape(str(exc))}; this run's results will replace it")
    jobs = scheduler.plan(cases, variants, chosen, **arguments.overrides(args)) * args.repeat
    recorded = {environment.default_results_path(results.RESULTS_DIR, env), results_path}
    jobs = scheduler.longest_first(jobs, results.recorded_durations(*sorted(recorded)))
    console.print(
        f"Running {len(jobs)} runs ({len(cases)} cases × {len(variants)} variants × "
        f"{len(args.profiles)} profiles) on {args.jobs} parallel jobs; "
        f"Python {env['python']}, torch {env['torch']}"
    )
    outcome_table.print_platform_notes(console, chosen)
    earlier = _observed_in_this_pass(console, jobs, args)
    to_run = [job for job in jobs if _key(job) not in earlier]
    width = max(len(case.name) for case in cases)
    observed = [earlier[_key(job)] for job in jobs if _key(job) in earlier]
    observed += _run_with_progress(console, to_run, args.jobs, width) if to_run else []
    outcome_table.print_report(console, observed, [p.name for p in args.profiles])
    if args.repeat > 1:
        console.print(outcome_table.agreement(observed, args.repeat))
    if not args.no_record:
        results.record(results_path, observed, env)
        console.print(f"Results recorded in {escape(str(results_path))}")
    failed = any(r.matched is False and not r.expected_unverified for r in observed)
    if args.require_ok:
        failed = _print_not_ok(console, observed) or failed
    return EXIT_FAILED if failed else EXIT_OK


def _key(job) -> tuple[str, str, str]:
    return (job.case.name, job.variant, job.profile.name)


def _observed_in_this_pass(console: Console, jobs: list, args: argparse.Namespace) -> dict:
    """The runs of `jobs` that a process of this verification pass (`nox -s tests` before
    `reproduce` in one `nox` call) observed already, with the same settings: taken, not run again.
    None with --timeout, --idle, --repeat or --chroot, which ask for runs of their own."""
    from ..scheduler import matrix_pass

    if arguments.overrides(args) or args.repeat > 1 or arguments.another_interpreter(args):
        return {}
    matrix = matrix_pass.read(matrix_pass.pass_folder())
    if matrix is None:
        return {}
    taken = {_key(job): matrix.results[_key(job)] for job in jobs if _key(job) in matrix.results}
    if taken:
        console.print(
            f"{len(taken)} of {len(jobs)} runs were observed earlier in this pass by the test suite, "
            f"with the same code and settings ({escape(str(matrix_pass.pass_folder()))}): taken from there"
        )
    return taken


def _run_with_progress(console: Console, jobs: list, workers: int, width: int) -> list:
    """Runs the jobs: a line per finished run, counted and with the time left, above a progress
    bar (in a terminal; a log gets the lines alone)."""
    from .. import outcome_table, scheduler

    progress = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("left"),
        TimeRemainingColumn(),
        console=console,
        transient=not console.is_terminal,
    )
    started = time.monotonic()
    with progress:
        task = progress.add_task("runs", total=len(jobs))

        def done(result) -> None:
            progress.advance(task)
            count = int(progress.tasks[0].completed)
            verdict = {True: "as expected", False: "MISMATCH", None: result.reason}[result.matched]
            left = time_left(time.monotonic() - started, count, len(jobs))
            progress.console.print(
                f"  {escape(f'[{count:>{len(str(len(jobs)))}}/{len(jobs)}, {left}]')} {result.case:{width}} "
                f"{result.variant:6} {result.profile:10} → {result.outcome}"
                f" ({escape(verdict)}) {result.duration_s:.1f}s",
                highlight=False,
            )
            outcome_table.print_cleanup_note(progress.console, result, indent=6)

        return scheduler.run_all(jobs, workers, scheduler.execute, on_done=done)


def time_left(elapsed_s: float, done: int, total: int) -> str:
    """The time the remaining runs will take at the pace so far, in words ("about 3 min left")."""
    if done >= total:
        return "done"
    seconds = elapsed_s / done * (total - done)
    if seconds < 60:
        return f"about {max(5, round(seconds / 5) * 5):.0f} s left"
    return f"about {round(seconds / 60):.0f} min left"


def _print_not_ok(console: Console, observed: list) -> bool:
    """For --require-ok: names each run that was not ok (skipped runs aside); whether there was one."""
    not_ok = [r for r in observed if r.outcome.is_failure]
    for r in not_ok:
        where = escape(" ".join(r.key))
        console.print(f"[bold red]NOT OK[/] {where}: {r.outcome} {escape(r.signature)}", soft_wrap=True)
    return bool(not_ok)
