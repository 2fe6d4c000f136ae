"""`lint`: the static checks alone, on files or folders, in ruff's format; nothing is run."""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from harness.arguments import UsageError
from harness.commands import EXIT_FAILED, EXIT_OK


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser("lint", help="static checks for DataLoader pitfalls (no code is run)")
    parser.add_argument("paths", nargs="+", type=Path, metavar="PATH", help="files or folders")
    parser.add_argument("--notebook", action="store_true", help="code run interactively (no main module)")
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace, console: Console) -> int:
    findings = lint(args.paths, args.notebook)
    for finding in findings:
        console.print(escape(str(finding)), soft_wrap=True)
    console.print(f"{len(findings)} finding(s)", style="bold red" if findings else "bold green")
    return EXIT_FAILED if findings else EXIT_OK


def lint(paths: list[Path], notebook: bool) -> list:
    """The findings in `paths`; a path that is missing or cannot be read or parsed is a UsageError."""
    from harness.lint import lint_paths

    for path in paths:
        if not path.exists():
            raise UsageError(f"no such file or folder: {path}")
    try:
        return lint_paths(paths, notebook=notebook)
    except SyntaxError as exc:
        raise UsageError(f"cannot parse {exc.filename}:{exc.lineno}: {exc.msg}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read {getattr(exc, 'filename', '') or exc}") from None
