"""The layers of the harness, stated: which code may import which (direct imports, lazy ones too)."""

from __future__ import annotations

import ast

from tests.conftest import ROOT

HARNESS = ROOT / "harness"
# The run machinery: what runs one script under one profile and watches it.
RUN = {
    "runner", "settings", "observation", "processes", "memory", "idleness", "watchdog",
    "active_runs", "events", "shm", "shm_limit", "tracebacks",
}  # fmt: skip
# What the run machinery must never reach up to: the catalog, the CLI, check, the results files.
ABOVE_RUN = {"cases", "cli", "commands", "diagnose", "results", "matrix", "judge", "report", "site", "lint"}


def harness_imports(path) -> set[str]:
    """The harness modules a file imports, as names below `harness` ("runner", "boot", "lint"…)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "harness":
            parts = node.module.split(".")
            if len(parts) > 1:
                found.add(parts[1])
            else:
                found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(a.name.split(".")[1] for a in node.names if a.name.startswith("harness."))
    return found


def test_run_code_never_imports_the_catalog_the_cli_check_or_results():
    wrong = {m: harness_imports(HARNESS / f"{m}.py") & ABOVE_RUN for m in sorted(RUN)}
    assert not any(wrong.values()), {m: names for m, names in wrong.items() if names}


def test_lint_never_imports_the_run_code():
    wrong = {p.name: harness_imports(p) & RUN for p in (HARNESS / "lint").glob("*.py")}
    assert not any(wrong.values()), {m: names for m, names in wrong.items() if names}


def test_the_boot_modules_import_nothing_from_the_harness():
    """They run inside the script's processes, with only their own folder on the path."""
    wrong = {p.name: harness_imports(p) for p in (HARNESS / "boot").glob("*.py")}
    assert not any(wrong.values()), wrong
    texts = {p.name: p.read_text(encoding="utf-8") for p in (HARNESS / "boot").glob("*.py")}
    assert not [name for name, text in texts.items() if "import harness" in text or "from harness" in text]
