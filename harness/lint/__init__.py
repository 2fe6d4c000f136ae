"""A static pass over Python files for DataLoader pitfalls: `python -m harness lint PATH...`.

Reads the code with `ast`, never runs it. One pass collects the module's facts (`facts.py`); each
rule is a function of those facts, registered beside it with `@rule` (`registry.py`), in a module
of its theme (`main_module`, `pickling`, `dataset_copies`, `randomness`, `worker_threads`,
`loader_use`, `workers`, `distributed`). A finding has a rule code, a position, a message
and the case that shows the pitfall, printed as `path:line:col: CODE message (see cases/NN_slug)`.
A line ending in `# noqa` (or `# noqa: DLP001, DLP002`) has no finding (of those codes).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

from ..links import case_link
from . import (  # noqa: F401  (importing a theme registers its rules)
    dataset_copies,
    distributed,
    loader_use,
    main_module,
    pickling,
    randomness,
    worker_threads,
    workers,
)
from .facts import collect
from .registry import RULES as _REGISTERED
from .registry import Rule

RULES = {code: _REGISTERED[code] for code in sorted(_REGISTERED)}

__all__ = ["RULES", "Finding", "Rule", "lint_paths", "lint_source", "select_rules"]
NOQA = re.compile(r"#\s*noqa(?::\s*(?P<codes>[A-Z]+[0-9]+(?:[\s,]+[A-Z]+[0-9]+)*))?", re.IGNORECASE)


@dataclass(frozen=True)
class Finding:
    path: str
    line: int
    col: int
    code: str
    message: str

    @property
    def case(self) -> str:
        return RULES[self.code].case

    def __str__(self) -> str:
        return f"{self.path}:{self.line}:{self.col}: {self.code} {self.message} (see {case_link(self.case)})"


def select_rules(select: tuple[str, ...] = (), ignore: tuple[str, ...] = ()) -> frozenset[str]:
    """The codes that `select` (codes or prefixes; all when empty) names, less those `ignore` names.
    A selector that names no rule is a ValueError: a typo would otherwise silence nothing or all."""

    def named(code: str, selectors: tuple[str, ...]) -> bool:
        return any(code.startswith(selector.upper()) for selector in selectors)

    for selector in (*select, *ignore):
        if not any(named(code, (selector,)) for code in RULES):
            raise ValueError(f"unknown rule code or prefix '{selector}' (known: {', '.join(RULES)})")
    return frozenset(c for c in RULES if (not select or named(c, select)) and not named(c, ignore))


def _silenced(line: str, code: str) -> bool:
    """`# noqa` silences every code on its line, `# noqa: DLP001, DLP002` those codes."""
    mark = NOQA.search(line)
    if mark is None:
        return False
    codes = mark.group("codes")
    return codes is None or code in re.split(r"[\s,]+", codes.upper())


def lint_source(
    source: str, path: str = "<string>", notebook: bool = False, rules: frozenset[str] | None = None
) -> list[Finding]:
    """Findings in one file's source; `notebook` for code run interactively (no main module);
    `rules`: the codes to check (all by default)."""
    facts = collect(ast.parse(source, filename=path))
    lines = source.splitlines()
    findings = [
        Finding(path, node.lineno, node.col_offset + 1, rule.code, rule.message.format(**fields))
        for rule in RULES.values()
        if not (notebook and rule.script_only) and (rules is None or rule.code in rules)
        if facts.workers_possible or not rule.about_workers
        for node, fields in rule.check(facts)
    ]
    kept = [f for f in findings if not _silenced(lines[f.line - 1] if f.line <= len(lines) else "", f.code)]
    return sorted(kept, key=lambda f: (f.line, f.col, f.code))


def python_files(paths: list[Path]) -> list[Path]:
    files: list[Path] = []
    for path in paths:
        files.extend(sorted(path.rglob("*.py")) if path.is_dir() else [path])
    return files


def lint_paths(
    paths: list[Path], notebook: bool = False, rules: frozenset[str] | None = None
) -> list[Finding]:
    """Findings for every Python file under `paths`; raises OSError or SyntaxError."""
    findings: list[Finding] = []
    for file in python_files(paths):
        findings.extend(lint_source(file.read_text(encoding="utf-8"), str(file), notebook, rules))
    return findings
