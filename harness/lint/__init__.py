"""A static pass over Python files for DataLoader pitfalls: `python -m harness lint PATH...`.

Reads the code with `ast`, never runs it. One pass collects the module's facts (`facts.py`); each
rule is a function of those facts (`rules.py`). A finding has a rule code, a position, a message
and the case that shows the pitfall, printed as `path:line:col: CODE message (see cases/NN_slug)`.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

from harness.lint.facts import collect
from harness.lint.rules import RULES, Rule

__all__ = ["RULES", "Finding", "Rule", "lint_paths", "lint_source"]


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
        return f"{self.path}:{self.line}:{self.col}: {self.code} {self.message} (see cases/{self.case})"


def lint_source(source: str, path: str = "<string>", notebook: bool = False) -> list[Finding]:
    """Findings in one file's source; `notebook` for code run interactively (no main module)."""
    facts = collect(ast.parse(source, filename=path))
    findings = [
        Finding(path, node.lineno, node.col_offset + 1, rule.code, rule.message.format(**fields))
        for rule in RULES.values()
        if not (notebook and rule.script_only)
        for node, fields in rule.check(facts)
    ]
    return sorted(findings, key=lambda f: (f.line, f.col, f.code))


def python_files(paths: list[Path]) -> list[Path]:
    files: list[Path] = []
    for path in paths:
        files.extend(sorted(path.rglob("*.py")) if path.is_dir() else [path])
    return files


def lint_paths(paths: list[Path], notebook: bool = False) -> list[Finding]:
    """Findings for every Python file under `paths`; raises OSError or SyntaxError."""
    findings: list[Finding] = []
    for file in python_files(paths):
        findings.extend(lint_source(file.read_text(encoding="utf-8"), str(file), notebook))
    return findings
