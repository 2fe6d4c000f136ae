"""An observed outcome as the site shows it: a badge (colour, icon and word, so that it reads without
colour), the marks beside it, and what it says on demand (signature, skip reason, notes)."""

from __future__ import annotations

import html

from ..cases import Case
from ..outcomes import Outcome
from ..profiles import PROFILES
from ..results import RunResult
from ..run.launch import How
from .wording import t

# A shape per outcome, for readers who do not tell the colours apart.
ICONS = {
    Outcome.OK: "✓",
    Outcome.CRASH: "✗",
    Outcome.HANG: "∞",
    Outcome.WRONG: "≠",
    Outcome.LEAK: "▲",
    Outcome.SLOW: "◷",
    Outcome.SKIPPED: "–",
    Outcome.ERROR: "⚠",
}


def badge_for(outcome: Outcome | None) -> str:
    if outcome is None:
        none = html.escape(t("not recorded"))
        return f'<span class="dlp-outcome dlp-none">{none}</span>'
    icon = f'<span class="dlp-icon" aria-hidden="true">{ICONS[outcome]}</span>'
    return f'<span class="dlp-outcome dlp-{outcome.value}">{icon}{outcome.value}</span>'


def badge(result: RunResult | None) -> str:
    return badge_for(result.outcome if result is not None else None)


def literal(text: str) -> str:
    """Text shown as it is inside a Markdown table cell: HTML-escaped, and no `__x__` emphasis."""
    return html.escape(text).replace("_", "&#95;").replace("*", "&#42;")


def short(text: str, limit: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def said(result: RunResult | None) -> str:
    """What the run said: its signature, or why it was skipped."""
    if result is None:
        return ""
    return result.signature or (result.reason if result.outcome is Outcome.SKIPPED else "")


def notes(case: Case, variant: str, column, result: RunResult | None, confirmed) -> list[str]:
    """What a reader must know about a cell beyond its outcome: an expectation not yet verified, or
    one of the profile's own that no run on the real system has confirmed."""
    found = []
    if result is not None and result.expected_unverified:
        found.append(t("expected {outcome}, unverified", outcome=result.expected))
    if column.kind != How.NATIVE:
        found += unconfirmed(case, variant, column.profile, confirmed)
    return found


def unconfirmed(case: Case, variant: str, profile: str, confirmed) -> list[str]:
    """For an emulated cell whose expectation is the profile's own (case.toml overrides its start
    method for it) and no results file from the real platform has confirmed."""
    own = PROFILES[profile]
    # the profile's own names, and those of the profile it stands for
    names = [n for n in own.expectation_names if n != own.start_method]
    if not any((variant, n) in case.expect for n in names) or confirmed(
        own.stands_for or profile, case.name, variant
    ):
        return []
    return [t("not yet observed on {system}", system=own.platform)]


def marks(result: RunResult | None, notes: list[str]) -> str:
    """Always visible: a dagger where a note waits inside, the mismatch in full."""
    shown = '<span class="dlp-mark">†</span>' if notes else ""
    if result is not None and result.matched is False:
        mismatch = html.escape(t("MISMATCH: expected {outcome}", outcome=result.expected))
        shown += f' <strong class="dlp-mismatch">≠ {mismatch}</strong>'
    return shown


def detail(result: RunResult | None, notes: list[str], limit: int = 300) -> str:
    """What opens under a badge: the signature as code, then the notes."""
    parts = []
    if text := said(result):
        parts.append(f"<code>{literal(short(text, limit))}</code>")
    parts += [f"<em>{html.escape(note)}</em>" for note in notes]
    return "".join(f'<div class="dlp-detail">{part}</div>' for part in parts)


def full(result: RunResult | None, notes: list[str], limit: int) -> str:
    """A badge with everything shown at once (a case page's own table): signature, notes, mismatch."""
    return badge(result) + marks(result, notes) + detail(result, notes, limit)
