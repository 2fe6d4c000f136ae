"""`script`: a user's script run unmodified under each profile, each outcome with its cause."""

from __future__ import annotations

import argparse

from rich.console import Console
from rich.markup import escape

from ..outcomes import Outcome
from . import EXIT_FAILED, EXIT_OK, arguments

DEFAULT_TIMEOUT_S = 120.0


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser("script", help="run your own script under each profile")
    arguments.add_script(parser, "feed the code on standard input, as a notebook runs it")
    arguments.add_profiles(parser)
    arguments.add_jobs(parser)
    arguments.add_timeout(parser, DEFAULT_TIMEOUT_S, "per run before it counts as a hang")
    arguments.add_idle(parser)
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace, console: Console) -> int:
    from .. import outcome_table, scheduler, verdict
    from ..run.settings import RunSettings

    console.print(
        f"Running {escape(str(args.path))} under {', '.join(p.name for p in args.profiles)} "
        f"(timeout {args.timeout:g}s each; each run in a working and temporary directory of its own)"
    )
    outcome_table.print_platform_notes(console, list(args.profiles))
    settings = RunSettings(args=tuple(args.script_args), via_stdin=args.stdin, **arguments.overrides(args))

    def run(profile):
        return verdict.reach(args.path, profile, settings, case=args.path.name, variant="script")

    observed = scheduler.run_all(list(args.profiles), args.jobs, run=run)
    for result in observed:
        print_result(console, result)
    return EXIT_OK if all(r.outcome is Outcome.OK for r in observed) else EXIT_FAILED


def print_result(console: Console, result) -> None:
    """The outcome and cause of one run; what it left behind; the end of its output unless ok."""
    from .. import outcome_table

    console.print(
        f"[bold]{result.profile:10}[/] [{result.outcome.style}]{result.outcome}[/] "
        f"{escape(result.signature)}",
        soft_wrap=True,
    )
    outcome_table.print_cleanup_note(console, result, indent=4)
    if result.outcome is not Outcome.OK:
        outcome_table.print_output_end(console, result, indent=4)
