"""The layers of the harness, stated: which code may import which (direct imports, lazy ones too)."""

from __future__ import annotations

import ast

from tests.conftest import ROOT

HARNESS = ROOT / "harness"
TOP_LEVEL_MODULES_AT_MOST = 18
# The run machinery (harness/run/) and the parsing it shares with the judge.
RUN_FILES = [*sorted((HARNESS / "run").glob("*.py")), HARNESS / "tracebacks.py"]
# What the run machinery must never reach up to: the catalog, the CLI, check, the results files.
ABOVE_RUN = {
    "cases", "cli", "commands", "diagnose", "results", "scheduler", "judge", "outcome_table", "site", "lint",
}  # fmt: skip


def harness_imports(path) -> set[str]:
    """The harness modules a file imports, dotted below `harness` ("run.runner", "boot", "lint"…)."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "harness":
            below = node.module.split(".")[1:]
            found.update([".".join(below)] if below else [alias.name for alias in node.names])
            found.update(".".join([*below, alias.name]) for alias in node.names if below)
        elif isinstance(node, ast.Import):
            found.update(a.name.split(".", 1)[1] for a in node.names if a.name.startswith("harness."))
    return found


def reaching(path, names: set[str]) -> set[str]:
    """The imports of a file that fall in `names` or below them."""
    return {m for m in harness_imports(path) if m.split(".")[0] in names}


def test_run_code_never_imports_the_catalog_the_cli_check_or_results():
    wrong = {p.name: reaching(p, ABOVE_RUN) for p in RUN_FILES}
    assert not any(wrong.values()), {m: names for m, names in wrong.items() if names}


def test_lint_never_imports_the_run_code():
    wrong = {p.name: reaching(p, {"run"}) for p in (HARNESS / "lint").glob("*.py")}
    assert not any(wrong.values()), {m: names for m, names in wrong.items() if names}


def test_the_layering_test_sees_an_import_up_a_floor(tmp_path):
    wrong = tmp_path / "runner.py"
    wrong.write_text("from harness import results\nfrom harness.run import memory\n")
    assert reaching(wrong, ABOVE_RUN) == {"results"}
    wrong.write_text("def f():\n    from harness.commands.arguments import UsageError\n")
    assert reaching(wrong, ABOVE_RUN) == {"commands.arguments", "commands.arguments.UsageError"}


def test_the_boot_modules_import_nothing_from_the_harness():
    """They run inside the script's processes, with only their own folder on the path."""
    wrong = {p.name: harness_imports(p) for p in (HARNESS / "boot").glob("*.py")}
    assert not any(wrong.values()), wrong
    texts = {p.name: p.read_text(encoding="utf-8") for p in (HARNESS / "boot").glob("*.py")}
    assert not [name for name, text in texts.items() if "import harness" in text or "from harness" in text]


def test_the_top_of_the_harness_stays_small():
    """Modules live in the package named for their job; the top holds what joins them."""
    top = sorted(p.name for p in HARNESS.glob("*.py"))
    assert len(top) <= TOP_LEVEL_MODULES_AT_MOST, top


def test_every_package_of_the_harness_goes_into_the_wheel():
    from harness.cases import tomllib

    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    packages = {".".join(p.parent.relative_to(ROOT).parts) for p in HARNESS.glob("**/__init__.py")}
    assert packages - listed == set()
