"""The table of rules: each rule registers itself beside its function with `@rule(...)`.

A rule is a function of the module's facts yielding `(node, fields)`: where a finding is, and the
values its message is formatted with. What the rule finds is its function's docstring, shown by
`lint --explain` (harness/lint/explain.py) and in SARIF.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from .facts import Hits, ModuleFacts

CODE = re.compile(r"DLP\d{3}")
NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
CASE = re.compile(r"\d{2}_\w+")


@dataclass(frozen=True)
class Rule:
    code: str
    name: str  # kebab-case, what `lint --explain` and SARIF show beside the code
    case: str  # the case folder that shows the pitfall
    message: str
    check: Callable[[ModuleFacts], Hits]
    script_only: bool = False  # assumes a main script: not for code run in a notebook
    # about DataLoader workers: not raised where every loader of the module has none (num_workers 0)
    about_workers: bool = True


RULES: dict[str, Rule] = {}


def rule(
    code: str, name: str, case: str, message: str, *, script_only: bool = False, about_workers: bool = True
):
    """Registers the decorated function as rule `code`; a code or name used twice is an error."""

    def register(check: Callable[[ModuleFacts], Hits]) -> Callable[[ModuleFacts], Hits]:
        for value, pattern in ((code, CODE), (name, NAME), (case, CASE)):
            if not pattern.fullmatch(value):
                raise ValueError(f"{check.__name__}: {value!r} is not of the form {pattern.pattern}")
        taken = [r.code for r in RULES.values() if r.code == code or r.name == name]
        if taken:
            raise ValueError(f"{check.__name__}: {code} {name} repeats {taken[0]}")
        RULES[code] = Rule(code, name, case, message, check, script_only, about_workers)
        return check

    return register
