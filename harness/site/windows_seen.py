"""What Windows users see, on a case page: the errors that Windows' own Python and torch printed
for both scripts, taken from the reference results file's runs under Wine."""

from __future__ import annotations

from ..cases import VARIANTS, Case
from ..outcomes import Outcome
from ..results import RunResult
from ..tracebacks import find_exceptions
from . import how_words
from .badges import literal
from .results_data import Recorded
from .wording import t

MAX_ERRORS = 4  # distinct exception lines shown per script


def placed(body: str) -> str:
    """The case README's body with the block's placeholder after its first section (the Symptom)."""
    first = body.find("\n## ")
    second = body.find("\n## ", first + 1) if first >= 0 else -1
    if second < 0:
        return body
    return f"{body[:second]}\n\n<!-- dlp:on-windows -->\n{body[second:]}"


def block(case: Case, reference: Recorded | None) -> str:
    """An admonition with each script's outcome as another system's own binaries printed it (under
    Wine) and its errors; "" where the reference file has no such run of the case."""
    foreign = [name for name in reference.profiles_run() if reference.ran_foreign(name)] if reference else []
    parts = [
        _variant(result)
        for name in foreign[:1]
        for v in VARIANTS
        if (result := reference.get(case.name, v, name))
    ]
    if not parts:
        return ""
    body = "\n\n".join(
        [
            t(
                "Run by the harness with the official Windows binaries under Wine, not on "
                "Windows; the times are Wine's, not Windows'."
            ),
            *parts,
        ]
    )
    title = t(
        "On Windows: what Windows' own Python and torch printed ({how}, on Linux)",
        how=how_words.plain(reference.emulation(foreign[0])),
    )
    return f'!!! info "{title}"\n\n' + "\n".join(f"    {line}".rstrip() for line in body.splitlines()) + "\n"


def _variant(result: RunResult) -> str:
    if result.outcome is Outcome.SKIPPED:
        reason = f"<code>{literal(result.reason)}</code>"
        return t("`{variant}.py`: not run under Wine: {reason}.", variant=result.variant, reason=reason)
    head = t(
        "`{variant}.py`: **{outcome}** after {seconds} s.",
        variant=result.variant,
        outcome=result.outcome.value,
        seconds=f"{result.duration_s:.0f}",
    )
    errors = errors_printed(result.output_tail, first=result.signature)
    if errors:
        return head + "\n\n```text\n" + "\n".join(errors) + "\n```"
    return head + (f" <code>{literal(result.signature)}</code>" if result.signature else "")


def errors_printed(output: str, first: str = "") -> list[str]:
    """The distinct exception lines of the output, in the order printed (at most MAX_ERRORS), after
    `first` (the run's signature, its root cause: the output's tail may have lost its traceback)
    where that is an exception line."""
    seen: list[str] = [first] if find_exceptions(f"Traceback (most recent call last):\n{first}") else []
    for exception in find_exceptions(output):
        if exception.line not in seen:
            seen.append(exception.line)
    return seen[:MAX_ERRORS]
