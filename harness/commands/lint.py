"""`lint`: the static checks alone, on files or folders; nothing is run. Rules are chosen with
--select/--ignore or the user's `[tool.dataloader-pitfalls]`; `# noqa` silences a line."""

from __future__ import annotations

import argparse
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from ..lint.formats import FORMATS, RENDERERS
from . import EXIT_FAILED, EXIT_OK
from .arguments import UsageError


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser("lint", help="static checks for DataLoader pitfalls (no code is run)")
    parser.add_argument("paths", nargs="*", type=Path, metavar="PATH", help="files or folders")
    parser.add_argument("--notebook", action="store_true", help="code run interactively (no main module)")
    parser.add_argument(
        "--explain",
        metavar="CODE",
        help="print what a rule finds, why, an example and the fix; nothing is linted",
    )
    add_rule_choice(parser)
    parser.add_argument("--format", choices=FORMATS, default="text", help="how findings are printed")
    parser.set_defaults(handler=handle)


def add_rule_choice(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--select",
        type=_codes,
        metavar="CODES",
        help="rule codes or prefixes, comma-separated (default: all)",
    )
    parser.add_argument("--ignore", type=_codes, metavar="CODES", help="rule codes or prefixes to leave out")
    parser.add_argument(
        "--config", type=Path, metavar="PYPROJECT", help="read [tool.dataloader-pitfalls] from this file"
    )


def _codes(text: str) -> tuple[str, ...]:
    return tuple(code.strip() for code in text.split(",") if code.strip())


def chosen_rules(args: argparse.Namespace) -> frozenset[str]:
    """The rules to check: the command line's --select/--ignore, else the user's configuration's.
    Also takes the configured site URL for the links to each case."""
    from .. import links
    from ..lint import select_rules
    from . import user_config

    if args.config is not None and not args.config.is_file():
        raise UsageError(f"no such configuration file: {args.config}")
    settings = user_config.load(args.config)
    links.configure(settings.site_url)
    select = args.select if args.select is not None else settings.select
    ignore = args.ignore if args.ignore is not None else settings.ignore
    try:
        return select_rules(select, ignore)
    except ValueError as exc:
        where = f" (from {settings.path})" if settings.path and args.select is None else ""
        raise UsageError(f"{exc}{where}") from None


def handle(args: argparse.Namespace, console: Console) -> int:
    if args.explain:
        return explain(args.explain.strip().upper(), console)
    if not args.paths:
        raise UsageError("name the files or folders to lint (or --explain CODE)")
    findings = lint(args.paths, args.notebook, chosen_rules(args))
    if args.format == "text":
        for finding in findings:
            console.print(escape(str(finding)), soft_wrap=True)
        console.print(f"{len(findings)} finding(s)", style="bold red" if findings else "bold green")
    else:
        print(RENDERERS[args.format](findings))
    return EXIT_FAILED if findings else EXIT_OK


def explain(code: str, console: Console) -> int:
    """Prints rule `code` explained; an unknown code is a UsageError naming the known ones."""
    from ..lint import RULES
    from ..lint.explain import explain as explanation

    if code not in RULES:
        raise UsageError(f"unknown rule code '{code}' (known: {', '.join(RULES)})")
    console.print(explanation(code).text(), markup=False, highlight=False, soft_wrap=True)
    return EXIT_OK


def lint(paths: list[Path], notebook: bool, rules: frozenset[str] | None = None) -> list:
    """The findings in `paths`; a path that is missing or cannot be read or parsed is a UsageError."""
    from ..lint import lint_paths

    for path in paths:
        if not path.exists():
            raise UsageError(f"no such file or folder: {path}")
    try:
        return lint_paths(paths, notebook=notebook, rules=rules)
    except SyntaxError as exc:
        raise UsageError(f"cannot parse {exc.filename}:{exc.lineno}: {exc.msg}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read {getattr(exc, 'filename', '') or exc}") from None
