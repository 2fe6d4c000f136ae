"""The comparison table, read as a compatibility table: one row per case, the broken script's outcome
in each column, the fixed script's folded into a mark, signatures on demand, a legend.

Written as HTML (the columns are grouped under their system, which a Markdown table cannot say). On a
narrow screen the stylesheet (docs/stylesheets/outcomes.css) turns each row into a card whose cells
carry their column's name (`data-label`).
"""

from __future__ import annotations

import html

from ..cases import Case
from ..outcomes import Outcome
from ..results import RunResult
from . import badges
from .columns import Column, groups
from .wording import N_, t


def table(cases: list[Case], found: list[Column], up: str, confirmed=lambda *key: False) -> str:
    """The table as one HTML block; `up` leads from the page's address to the site's (in its
    language): "../" from `comparison/`. HTML links are not rewritten by MkDocs."""
    if not found:
        return t('!!! warning "No results recorded"\n    Run `nox -s reproduce` and `nox -s verify`.\n')
    head = _head(found)
    rows = "\n".join(_row(case, found, up, confirmed) for case in cases)
    return (
        f'<div class="dlp-compat-wrap">\n<table class="dlp-compat">\n{head}\n<tbody>\n{rows}\n</tbody>\n'
        f"</table>\n</div>\n\n{legend()}\n"
    )


def _head(found: list[Column]) -> str:
    systems = "".join(
        f'<th scope="colgroup" colspan="{len(members)}" class="dlp-system">{html.escape(name)}</th>'
        for name, members in groups(found)
    )
    each = "".join(
        f'<th scope="col" class="dlp-col dlp-kind-{c.kind}" title="{html.escape(c.described())}">'
        f"{html.escape(c.heading())}<br><small>{html.escape(c.produced_by())}</small></th>"
        for c in found
    )
    heading = html.escape(t("case"))
    case = f'<th scope="col" rowspan="2" class="dlp-case">{heading}</th>'
    return f"<thead>\n<tr>{case}{systems}</tr>\n<tr>{each}</tr>\n</thead>"


def _row(case: Case, found: list[Column], up: str, confirmed) -> str:
    number, _, slug = case.name.partition("_")
    words = html.escape(slug.replace("_", " "))
    # the case's folder, a name: the same in every language
    name = f'<a href="{up}cases/{case.name}/"><strong>{number}</strong> <span lang="en">{words}</span></a>'
    cells = "".join(_cell(case, column, confirmed) for column in found)
    return f'<tr><th scope="row" class="dlp-case">{name}</th>{cells}</tr>'


def _cell(case: Case, column: Column, confirmed) -> str:
    label = html.escape(column.label())
    broken, fixed = column.get(case.name, "broken"), column.get(case.name, "fixed")
    notes = badges.notes(case, "broken", column, broken, confirmed)
    body = _folded(badges.badge(broken) + badges.marks(broken, notes), badges.detail(broken, notes))
    below = _fixed(case, column, fixed, confirmed)
    return f'<td class="dlp-kind-{column.kind}" data-label="{label}">{body}{below}</td>'


def _folded(shown: str, detail: str) -> str:
    """`shown`, opening on a tap or a click to `detail` where there is one."""
    return f"<details><summary>{shown}</summary>{detail}</details>" if detail else shown


FIXED_OK = '<span class="dlp-fixed-ok" title="{title}">✓ fixed</span>'


def _fixed(case: Case, column: Column, result: RunResult | None, confirmed) -> str:
    """✓ where fixed.py was ok as expected; its outcome in full where not."""
    notes = badges.notes(case, "fixed", column, result, confirmed)
    if result is not None and result.outcome is Outcome.OK and result.matched is not False and not notes:
        return FIXED_OK.format(title=html.escape(t("fixed.py: ok, as expected")))
    if result is None:
        return ""
    shown = f'<span class="dlp-fixed">fixed</span> {badges.badge(result)}{badges.marks(result, notes)}'
    return f'<div class="dlp-fixed-row">{_folded(shown, badges.detail(result, notes))}</div>'


# What each outcome means, for the legend (translated through the catalog).
MEANINGS = {
    Outcome.OK: N_("finishes, correct"),
    Outcome.CRASH: N_("an exception or a killed worker"),
    Outcome.HANG: N_("stops making progress"),
    Outcome.WRONG: N_("finishes with a wrong result"),
    Outcome.LEAK: N_("memory or files keep growing"),
    Outcome.SLOW: N_("correct, but far slower"),
    Outcome.SKIPPED: N_("not run here (a need unmet)"),
}


def legend() -> str:
    """What each badge, mark and column style means."""
    items = "".join(
        f"<li>{badges.badge_for(outcome)} {html.escape(t(MEANINGS[outcome]))}</li>" for outcome in MEANINGS
    )
    marks = [
        (
            FIXED_OK.format(title=""),
            t("fixed.py: ok (its outcome is shown in full where it is not)"),
        ),
        (
            '<span class="dlp-mark">†</span>',
            t("a note inside: an expectation not yet observed on the real system"),
        ),
        ('<strong class="dlp-mismatch">≠</strong>', t("observed differs from case.toml's expectation")),
        (
            '<span class="dlp-legend-emulated">&nbsp;&nbsp;&nbsp;</span>',
            t("emulated column (hatched): imitated on Linux, not the system itself"),
        ),
    ]
    more = "".join(f"<li>{mark} {html.escape(text)}</li>" for mark, text in marks)
    title, details = (
        html.escape(t("Legend")),
        html.escape(
            t("Tap or click a badge to read the run's signature: the error or the line that tells it.")
        ),
    )
    return (
        f'<div class="dlp-legend" markdown="0"><strong>{title}</strong>'
        f"<ul>{items}{more}</ul><p>{details}</p></div>"
    )
