"""The terminal report: one table of case × variant × start method, observed against expected."""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from .outcomes import Outcome
from .results import RunResult
from .run import shm_leftovers

SIGNATURE_WIDTH = 100  # characters of a signature (or a list of leftovers) shown in a table or a line
OUTPUT_LINES_SHOWN = 8  # lines of a run's output shown under a failed or mismatched run


def shorten(text: str, width: int = SIGNATURE_WIDTH) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def cleanup_note(result: RunResult) -> str:
    """What the run left behind that the harness had to clean up; "" when nothing."""
    parts = []
    if result.leftovers:
        parts.append(f"{len(result.leftovers)} process(es) outlived the script (ended by the harness)")
    if result.shm_leftovers:
        parts.append(
            f"{len(result.shm_leftovers)} shared-memory file(s) left in /dev/shm (removed by the harness): "
            + shorten(", ".join(result.shm_leftovers))
        )
    if result.not_removed:
        parts.append("the harness could not remove " + ", ".join(result.not_removed))
    return "; ".join(parts)


def print_cleanup_note(console: Console, result: RunResult, indent: int) -> None:
    if note := cleanup_note(result):
        console.print(f"{' ' * indent}[yellow]left behind:[/] {escape(note)}", soft_wrap=True)


def output_end(result: RunResult) -> list[str]:
    """The last lines of a run's output, as shown under it."""
    return result.output_tail.splitlines()[-OUTPUT_LINES_SHOWN:]


def print_output_end(console: Console, result: RunResult, indent: int) -> None:
    for line in output_end(result):
        console.print(f"{' ' * indent}| {line}", markup=False, highlight=False, soft_wrap=True)


def cell(result: RunResult) -> Text:
    text = Text(result.outcome.value, style=result.outcome.style)
    if result.signature:
        text.append(f"\n{shorten(result.signature)}", style="dim")
    if result.outcome is Outcome.SKIPPED and result.reason:
        text.append(f"\n{shorten(result.reason)}", style="dim")
    if result.expected_unverified:
        text.append(f"\nexpected {result.expected}, unverified", style="italic dim")
    if result.matched is False:
        text.append(f"\nMISMATCH: expected {result.expected}", style="bold red reverse")
    return text


def print_platform_notes(console: Console, profiles: list) -> None:
    """One line per profile that this machine can only imitate, saying how; and what this machine
    cannot check (no /dev/shm, as on macOS and Windows)."""
    for profile in profiles:
        how = profile.emulation()
        missing = profile.launcher.unavailable()
        described = profile.launcher.describe()
        if missing:  # said once here; each of its runs is `skipped` with the same reason
            console.print(f"  [dim]{profile.name}: not run here: {escape(missing)}[/]", soft_wrap=True)
        elif described:
            console.print(
                f"  [dim]{profile.name}: {escape(described)} here, not {profile.title}[/]", soft_wrap=True
            )
        elif how:
            console.print(f"  [dim]{profile.name}: emulated here ({escape(how)})[/]", soft_wrap=True)
    if not shm_leftovers.SHM_DIR.is_dir():
        console.print(
            f"  [dim]shared-memory files left by a run are not checked here: no {shm_leftovers.SHM_DIR}[/]"
        )


def table(results: list[RunResult], methods: list[str]) -> Table:
    grid = Table(title="Observed outcome per profile (expected in case.toml)", show_lines=True)
    grid.add_column("case")
    grid.add_column("variant")
    for method in methods:
        grid.add_column(method)
    rows: dict[tuple[str, str], dict[str, RunResult]] = {}
    for result in results:
        rows.setdefault((result.case, result.variant), {})[result.profile] = result
    for (case, variant), by_method in sorted(rows.items()):
        cells = [cell(by_method[m]) if m in by_method else Text("—", style="dim") for m in methods]
        grid.add_row(case, variant, *cells)
    return grid


def summary(results: list[RunResult]) -> str:
    matched = sum(r.matched is True for r in results)
    mismatched = sum(r.matched is False for r in results)
    skipped = sum(r.outcome is Outcome.SKIPPED for r in results)
    return f"{len(results)} runs: {matched} as expected, {mismatched} MISMATCHED, {skipped} skipped"


def mismatch_details(results: list[RunResult]) -> list[str]:
    """For each mismatch: what was expected, what was seen, and the end of its output."""
    lines = []
    for r in results:
        if r.matched is not False:
            continue
        expected = f"{r.expected}" + (f" matching /{r.expected_signature}/" if r.expected_signature else "")
        seen = f"{r.outcome}" + (f": {r.signature}" if r.signature else "")
        seen += f" ({r.reason})" if r.reason else ""
        lines.append(f"MISMATCH {r.case} {r.variant} {r.profile}: expected {expected}, observed {seen}")
        if r.expected_unverified:
            lines.append("    (that expectation is unverified on this platform: reported, not fatal)")
        lines.extend(f"    | {line}" for line in output_end(r))
    return lines


def print_report(console: Console, results: list[RunResult], methods: list[str]) -> None:
    console.print(table(results, methods))
    for line in mismatch_details(results):
        console.print(Text(line, style="red" if line.startswith("MISMATCH") else ""), soft_wrap=True)
    style = "bold red" if any(r.matched is False for r in results) else "bold green"
    console.print(Text(summary(results), style=style))


def agreement(results: list[RunResult], repeat: int) -> Table:
    """How many of the repeated runs of each case × variant × start method matched expectations."""
    grid = Table(title=f"Agreement with the expectation over {repeat} repetitions")
    for column in ("case", "variant", "profile", "agreed", "outcomes seen"):
        grid.add_column(column)
    by_key: dict[tuple[str, str, str], list[RunResult]] = {}
    for result in results:
        by_key.setdefault(result.key, []).append(result)
    for (case, variant, method), runs in sorted(by_key.items()):
        agreed = sum(r.matched is True for r in runs)
        judged = sum(r.matched is not None for r in runs)
        seen = ", ".join(sorted({r.outcome.value for r in runs}))
        style = "green" if agreed == judged else "bold red"
        count = f"{agreed}/{judged}" if judged else Outcome.SKIPPED.value
        grid.add_row(case, variant, method, Text(count, style=style if judged else "dim"), seen)
    return grid
