"""`lint --format`: the findings as text (ruff's style), JSON, GitHub Actions annotations, or SARIF
2.1.0 for code scanning. Each is small and written here: no maintained library was worth a
dependency for it."""

from __future__ import annotations

import json
from importlib import metadata
from pathlib import Path, PurePath

from ..links import case_link, site_url
from . import RULES, Finding

TOOL = "dataloader-pitfalls"
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def as_json(findings: list[Finding]) -> str:
    """A list of findings: path, line, col, code, message, case, link (its page or folder)."""
    rows = [
        {
            "path": f.path,
            "line": f.line,
            "col": f.col,
            "code": f.code,
            "message": f.message,
            "case": f.case,
            "link": case_link(f.case),
        }
        for f in findings
    ]
    return json.dumps(rows, indent=2)


def _escape(value: str, in_property: bool = False) -> str:
    """GitHub's workflow-command escaping: %, CR, LF; and in a property, ':' and ','."""
    value = value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return value.replace(":", "%3A").replace(",", "%2C") if in_property else value


def github(findings: list[Finding]) -> str:
    """One `::warning file=…,line=…,col=…,title=…::message` line a finding (GitHub Actions)."""
    return "\n".join(
        f"::warning file={_escape(f.path, True)},line={f.line},col={f.col},title={f.code}::"
        f"{_escape(f'{f.message} (see {case_link(f.case)})')}"
        for f in findings
    )


def _uri(path: str) -> str:
    """A relative path as a URI reference with forward slashes; an absolute one as a file URI."""
    pure = PurePath(path)
    return Path(path).resolve().as_uri() if pure.is_absolute() else pure.as_posix()


def _version() -> str:
    try:
        return metadata.version(TOOL)
    except metadata.PackageNotFoundError:
        return "0+unknown"


def _rule(code: str) -> dict:
    from .explain import explain

    rule, explained = RULES[code], explain(code)
    described = {
        "id": code,
        "name": rule.name,
        "shortDescription": {"text": rule.message.replace("{what}", "…")},
        "fullDescription": {"text": explained.what},
        "help": {
            "text": f"{explained.text()}\n\nSee {case_link(rule.case)}",
            "markdown": f"{explained.markdown()}\n\nSee {case_link(rule.case)}",
        },
    }
    if site_url():
        described["helpUri"] = case_link(rule.case)
    return described


def sarif(findings: list[Finding]) -> str:
    """A SARIF 2.1.0 log with one run: every rule described, one result a finding."""
    codes = sorted(RULES)
    results = [
        {
            "ruleId": f.code,
            "ruleIndex": codes.index(f.code),
            "level": "warning",
            "message": {"text": f"{f.message} (see {case_link(f.case)})"},
            "locations": [
                {
                    "physicalLocation": {
                        "artifactLocation": {"uri": _uri(f.path)},
                        "region": {"startLine": f.line, "startColumn": f.col},
                    }
                }
            ],
        }
        for f in findings
    ]
    driver = {"name": TOOL, "version": _version(), "rules": [_rule(code) for code in codes]}
    log = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{"tool": {"driver": driver}, "results": results}],
    }
    return json.dumps(log, indent=2)


RENDERERS = {"json": as_json, "github": github, "sarif": sarif}
FORMATS = ("text", *RENDERERS)  # text: ruff's style, printed by the command itself
