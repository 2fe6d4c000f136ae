"""`python -m harness`: list the cases, or run them under chosen start methods."""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from harness import check, environment, matrix, report, results
from harness.bench import command as bench
from harness.bench.jobs import BenchError
from harness.cases import CASES_DIR, START_METHODS, VARIANTS, CaseError, discover, select

EXIT_MISMATCH = 1
EXIT_USAGE = 2


class UsageError(Exception):
    """Bad input from the command line; the message names it."""


def _methods(text: str) -> list[str]:
    methods = [m.strip() for m in text.split(",") if m.strip()]
    for method in methods:
        if method not in START_METHODS:
            raise UsageError(f"unknown start method '{method}'; choose from {', '.join(START_METHODS)}")
    if not methods:
        raise UsageError("--start-method needs at least one of " + ", ".join(START_METHODS))
    return methods


def _positive(text: str, option: str = "--timeout") -> float:
    try:
        value = float(text)
    except ValueError:
        raise UsageError(f"{option} must be a number of seconds, not '{text}'") from None
    if value <= 0:
        raise UsageError(f"{option} must be positive, not {text}")
    return value


def _jobs(text: str, option: str = "--jobs") -> int:
    if not text.isdigit() or int(text) < 1:
        raise UsageError(f"{option} must be a whole number of at least 1, not '{text}'")
    return int(text)


class _Parser(argparse.ArgumentParser):
    """Reports bad arguments as a UsageError: one line, exit 2. Subcommand parsers share the class."""

    def error(self, message: str):
        raise UsageError(message)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m harness", description=__doc__)
    parser.add_argument("--cases-dir", type=Path, default=CASES_DIR, help="where the cases live")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("list", help="list the cases")
    run = commands.add_parser("run", help="run cases under start methods and compare with expectations")
    run.add_argument("cases", nargs="*", metavar="CASE", help="number, slug or folder name (default: all)")
    run.add_argument("--variant", choices=[*VARIANTS, "both"], default="both")
    run.add_argument("--start-method", default=",".join(START_METHODS), help="comma-separated list")
    run.add_argument("--jobs", default=str(os.cpu_count() or 1), help="runs in parallel (default: CPU count)")
    run.add_argument("--timeout", help="seconds per run (default: each case's own)")
    run.add_argument(
        "--results", type=Path, help="results file (default: results/<os>-py<X.Y>-torch<V>.json)"
    )
    run.add_argument("--no-record", action="store_true", help="do not write a results file")
    run.add_argument("--repeat", default="1", help="run the matrix N times and count agreement")
    run.add_argument(
        "--require-ok",
        action="store_true",
        help="also fail when any run that was not skipped is not ok (for fixed variants)",
    )
    script = commands.add_parser("script", help="run your own script under each start method")
    script.add_argument("path", type=Path, help="the script, run unmodified as __main__")
    script.add_argument("script_args", nargs="*", metavar="ARG", help="its arguments (after --)")
    script.add_argument("--start-method", default=",".join(START_METHODS), help="comma-separated list")
    script.add_argument("--jobs", default=str(os.cpu_count() or 1), help="runs in parallel")
    script.add_argument("--timeout", default="120", help="seconds per run before it counts as a hang")
    script.add_argument(
        "--stdin", action="store_true", help="feed the code on standard input, as a notebook runs it"
    )
    check.add_parsers(commands, _positive, _jobs)
    bench.add_parser(commands, UsageError)
    return parser


def command_list(args: argparse.Namespace, console: Console) -> int:
    for case in discover(args.cases_dir):
        needs = f" (needs {', '.join(case.needs)})" if case.needs else ""
        console.print(f"[bold]{case.name}[/bold]{needs}: {case.title}")
    return 0


def command_run(args: argparse.Namespace, console: Console) -> int:
    methods = _methods(args.start_method)
    timeout = _positive(args.timeout) if args.timeout is not None else None
    workers = _jobs(args.jobs)
    variants = list(VARIANTS) if args.variant == "both" else [args.variant]
    cases = select(discover(args.cases_dir), args.cases)
    env = environment.describe()
    results_path = args.results or environment.default_results_path(results.RESULTS_DIR, env)
    if not args.no_record and results_path.exists():
        try:
            results.load(results_path)  # refuse a damaged or newer file before spending minutes
        except results.OlderSchemaError as exc:
            console.print(f"[yellow]note:[/] {exc}; this run's results will replace it")

    repeat = _jobs(args.repeat, "--repeat")
    jobs = matrix.plan(cases, variants, methods, timeout) * repeat
    console.print(
        f"Running {len(jobs)} runs ({len(cases)} cases × {len(variants)} variants × {len(methods)} start "
        f"methods) on {workers} parallel jobs; Python {env['python']}, torch {env['torch']}"
    )
    progress = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=not console.is_terminal,
    )
    with progress:
        task = progress.add_task("runs", total=len(jobs))

        width = max(len(case.name) for case in cases)

        def done(result: results.RunResult) -> None:
            verdict = {True: "as expected", False: "MISMATCH", None: result.reason}[result.matched]
            progress.console.print(
                f"  {result.case:{width}} {result.variant:6} {result.start_method:10} → {result.outcome}"
                f" ({verdict}) {result.duration_s:.1f}s"
            )
            if note := report.cleanup_note(result):
                progress.console.print(f"      [yellow]left behind:[/] {escape(note)}", soft_wrap=True)
            progress.advance(task)

        observed = matrix.run_all(jobs, workers, on_done=done)

    report.print_report(console, observed, methods)
    if repeat > 1:
        console.print(report.agreement(observed, repeat))
    if not args.no_record:
        results.record(results_path, observed, env)
        console.print(f"Results recorded in {results_path}")
    failed = any(r.matched is False for r in observed)
    if args.require_ok:
        not_ok = [r for r in observed if r.outcome not in ("ok", "skipped")]
        for r in not_ok:
            console.print(
                f"[bold red]NOT OK[/] {r.case} {r.variant} {r.start_method}: {r.outcome} {r.signature}"
            )
        failed = failed or bool(not_ok)
    return EXIT_MISMATCH if failed else 0


def command_script(args: argparse.Namespace, console: Console) -> int:
    methods = _methods(args.start_method)
    timeout = _positive(args.timeout)
    workers = _jobs(args.jobs)
    if not args.path.is_file():
        raise UsageError(f"no such script: {args.path}")
    console.print(f"Running {args.path} under {', '.join(methods)} (timeout {timeout:g}s each)")

    def run(method: str) -> results.RunResult:
        return matrix.observe(
            args.path,
            method,
            timeout,
            tuple(args.script_args),
            via_stdin=args.stdin,
            case=args.path.name,
            variant="script",
        )

    observed = matrix.run_all(methods, workers, run=run)
    for result in observed:
        style = report.STYLES.get(result.outcome, "")
        console.print(f"[bold]{result.start_method:10}[/] [{style}]{result.outcome}[/] {result.signature}")
        if note := report.cleanup_note(result):
            console.print(f"    [yellow]left behind:[/] {escape(note)}", soft_wrap=True)
        if result.outcome != "ok":
            for line in result.output_tail.splitlines()[-8:]:
                console.print(f"    | {line}", markup=False, soft_wrap=True)
    return 0 if all(r.outcome == "ok" for r in observed) else EXIT_MISMATCH


def main(argv: list[str] | None = None) -> int:
    # Piped (nox, CI): as wide as COLUMNS says, else 120, not rich's default of 80.
    width = None if sys.stdout.isatty() else shutil.get_terminal_size((120, 24)).columns
    console = Console(highlight=False, width=width)
    try:
        argv = list(sys.argv[1:] if argv is None else argv)
        # Everything after "--" belongs to the user's script, whatever options come before it.
        passed = argv[argv.index("--") + 1 :] if "--" in argv else []
        args = build_parser().parse_args(argv[: argv.index("--")] if "--" in argv else argv)
        if passed:
            if not hasattr(args, "script_args"):
                raise UsageError(f"'{args.command}' takes no script arguments after --")
            args.script_args = [*args.script_args, *passed]
        if hasattr(args, "handler"):
            return args.handler(args, console, UsageError)
        commands = {"list": command_list, "run": command_run, "script": command_script}
        return commands[args.command](args, console)
    except (UsageError, CaseError, results.ResultsError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except BenchError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_MISMATCH
    except KeyboardInterrupt:
        print("interrupted: every run was stopped; no results were recorded", file=sys.stderr)
        return 130
