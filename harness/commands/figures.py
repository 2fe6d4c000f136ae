"""`figures`: writes the measured figures of the course's Markdown (README.md, docs/, each case's
README) as the committed results files and case settings give them now (harness/site/figures.py)."""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from .. import experiments
from ..cases import discover
from ..results import RESULTS_DIR
from ..site import figures, results_data, wording
from . import EXIT_FAILED, EXIT_OK

ROOT = Path(__file__).resolve().parents[2]


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "figures", help="write the course's measured figures from the results files (its Markdown)"
    )
    parser.add_argument("--results-dir", type=Path, default=RESULTS_DIR, help="where the results files are")
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 where a figure is stale")
    parser.set_defaults(handler=handle)


def markdown_files(cases_dir: Path) -> list[Path]:
    return [
        ROOT / "README.md",
        *sorted((ROOT / "docs").rglob("*.md")),
        *sorted(cases_dir.glob("*/README*.md")),
    ]


def sources(cases_dir: Path, results_dir: Path) -> figures.Sources:
    recorded = results_data.load_all(results_dir)
    found = experiments.load_recorded(results_dir / "experiments")
    return figures.Sources(discover(cases_dir), recorded, results_data.reference(recorded), found)


def handle(args: argparse.Namespace, console: Console) -> int:
    given = sources(args.cases_dir, args.results_dir)
    stale = []
    for path in markdown_files(args.cases_dir):
        text = path.read_text(encoding="utf-8")
        try:
            with wording.language("zh" if path.name.endswith(".zh.md") else wording.DEFAULT):
                filled = figures.fill(text, given, str(path.relative_to(ROOT)))
        except figures.FigureError as exc:
            console.print(f"[red]{escape(str(exc))}[/red]")
            return EXIT_FAILED
        if filled != text:
            stale.append(path)
            if not args.check:
                path.write_text(filled, encoding="utf-8")
    verb = "stale" if args.check else "rewritten"
    for path in stale:
        console.print(f"{verb}: {path.relative_to(ROOT)}")
    console.print(f"{len(stale)} file(s) {verb}" if stale else "every figure is as the results say")
    return EXIT_FAILED if stale and args.check else EXIT_OK
