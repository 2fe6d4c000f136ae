"""`list`: the cases of the catalog, with what each needs."""

from __future__ import annotations

import argparse

from rich.console import Console
from rich.markup import escape

from ..cases import discover
from . import EXIT_OK


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser("list", help="list the cases")
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace, console: Console) -> int:
    for case in discover(args.cases_dir):
        needs = f" (needs {', '.join(case.needs)})" if case.needs else ""
        console.print(f"[bold]{case.name}[/bold]{escape(needs)}: {escape(case.title)}")
    return EXIT_OK
