"""`dataloader-pitfalls` (or `dlp`, or `python -m harness`): list the cases, run them, run or check
your own script, lint, bench."""

from __future__ import annotations

import argparse
import importlib
import shutil
import signal
import sys
from pathlib import Path

from rich.console import Console

from .cases import CASES_DIR, CaseError
from .commands.arguments import EXIT_USAGE, Parser, UsageError
from .results import ResultsError

# The commands in the order `--help` lists them; each is the module of its name in harness/commands
# (a hyphen in the name is an underscore in the module's).
COMMAND_NAMES = (
    "list",
    "run",
    "script",
    "check",
    "lint",
    "bench",
    "windows-env",
    "observe-chroot",
    "figures",
    "experiment",
)
COMMANDS = tuple(
    importlib.import_module(f".commands.{name.replace('-', '_')}", __package__) for name in COMMAND_NAMES
)
EXIT_INTERRUPTED = 128 + signal.SIGINT
# Ended as Ctrl-C ends it: every run stopped, no results recorded. SIGKILL is for the watchdog.
STOPPING_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))


class Stopped(BaseException):
    """The harness was asked to stop by a signal (SIGTERM, SIGHUP); raised where it was."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _stop(signum: int, frame) -> None:
    for number in STOPPING_SIGNALS:  # a second signal must not cut the ending short
        signal.signal(number, signal.SIG_IGN)
    raise Stopped(signum)


def _program() -> str:
    """The name it was called by: a console command's, or `python -m harness` (in a checkout;
    `python -m dataloader_pitfalls` installed)."""
    called = Path(sys.argv[0]).stem if sys.argv and sys.argv[0] else ""
    return called if called in ("dataloader-pitfalls", "dlp") else f"python -m {__package__}"


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(prog=_program(), description=__doc__)
    parser.add_argument("--cases-dir", type=Path, default=CASES_DIR, help="where the cases live")
    subparsers = parser.add_subparsers(dest="command", required=True)
    for command in COMMANDS:
        command.add_parser(subparsers)
    return parser


def parse(argv: list[str]) -> argparse.Namespace:
    """The arguments; everything after "--" belongs to the user's script, whatever comes before it."""
    passed = argv[argv.index("--") + 1 :] if "--" in argv else []
    args = build_parser().parse_args(argv[: argv.index("--")] if "--" in argv else argv)
    if passed:
        if not hasattr(args, "script_args"):
            raise UsageError(f"'{args.command}' takes no script arguments after --")
        args.script_args = [*args.script_args, *passed]
    return args


def _print_where_stopped() -> None:
    """Where the runs that were ended were, when there were any (the runner was in use)."""
    if f"{__package__}.scheduler" in sys.modules:
        for line in sys.modules[f"{__package__}.scheduler"].where_stopped():
            print(f"  {line}", file=sys.stderr)


def _utf8_output() -> None:
    """Writes UTF-8 whatever the console's code page (a cp1252 pipe on Windows cannot encode →);
    a character the terminal cannot show becomes a replacement, never an exception."""
    for stream in (sys.stdout, sys.stderr):
        encoding = (getattr(stream, "encoding", None) or "").lower().replace("-", "")
        if encoding != "utf8" and hasattr(stream, "reconfigure"):
            stream.reconfigure(encoding="utf-8", errors="replace")


def main(argv: list[str] | None = None) -> int:
    _utf8_output()
    # Piped (nox, CI): as wide as COLUMNS says, else 120, not rich's default of 80.
    width = None if sys.stdout.isatty() else shutil.get_terminal_size((120, 24)).columns
    console = Console(highlight=False, width=width)
    previous = {number: signal.signal(number, _stop) for number in STOPPING_SIGNALS}
    try:
        args = parse(list(sys.argv[1:] if argv is None else argv))
        return args.handler(args, console)
    except (UsageError, CaseError, ResultsError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("interrupted: every run was stopped; no results were recorded", file=sys.stderr)
        _print_where_stopped()
        return EXIT_INTERRUPTED
    except Stopped as stop:
        name = signal.Signals(stop.signum).name
        print(f"stopped by {name}: every run was stopped; no results were recorded", file=sys.stderr)
        _print_where_stopped()
        return 128 + stop.signum
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)
