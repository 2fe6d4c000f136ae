"""Each rule explained, for `lint --explain CODE` and the `help` of every SARIF rule.

Nothing here is written a second time: what the rule finds is its function's docstring; why that
is bad, the summary of its case (case.toml); the example, the lines of the case's own `broken.py`
where the rule fires; the fix, the case's `[diagnose] fix`.
"""

from __future__ import annotations

import inspect
import sys
from dataclasses import dataclass

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from . import RULES, lint_source


@dataclass(frozen=True)
class Explanation:
    code: str
    name: str
    case: str
    what: str
    why: str
    example: str  # numbered lines of the case's broken.py, or "" where it has none
    fix: str

    def text(self) -> str:
        example = self.example or "(no line of the case's broken.py shows it)"
        return "\n".join(
            [
                f"{self.code} ({self.name}), case {self.case}",
                "",
                "What it finds:",
                _indent(self.what),
                "",
                "Why it is bad:",
                _indent(self.why),
                "",
                f"Example, from cases/{self.case}/broken.py:",
                _indent(example),
                "",
                "Fix:",
                _indent(self.fix),
            ]
        )

    def markdown(self) -> str:
        example = f"```python\n{self.example}\n```" if self.example else ""
        return "\n\n".join(
            part
            for part in (
                f"**{self.code} {self.name}** ({self.case})",
                f"**What it finds.** {self.what}",
                f"**Why it is bad.** {self.why}",
                example,
                f"**Fix.** {self.fix}",
            )
            if part
        )


def _indent(text: str) -> str:
    return "\n".join(f"    {line}" if line else "" for line in text.splitlines())


def _words(text: str) -> str:
    return " ".join(text.split())


def explain(code: str) -> Explanation:
    """The explanation of rule `code` (KeyError for an unknown code)."""
    from ..cases import CASES_DIR

    rule = RULES[code]
    folder = CASES_DIR / rule.case
    data = tomllib.loads((folder / "case.toml").read_text(encoding="utf-8"))
    broken = folder / "broken.py"
    source = broken.read_text(encoding="utf-8")
    lines = source.splitlines()
    hits = lint_source(source, str(broken), rules=frozenset({code}))
    example = "\n".join(f"{f.line:>3}  {lines[f.line - 1]}" for f in hits)
    return Explanation(
        code=code,
        name=rule.name,
        case=rule.case,
        what=_words(inspect.getdoc(rule.check) or rule.message),
        why=_words(data["summary"]),
        example=example,
        fix=_words(data["diagnose"]["fix"]),
    )
