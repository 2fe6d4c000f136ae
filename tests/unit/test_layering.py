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


LAUNCHERS = HARNESS / "run" / "launch"
# The command that builds the Windows environment for the Wine launcher: its installer, not a run.
WINE_INSTALLER = HARNESS / "commands" / "windows_env.py"


def asks_for_wine(path) -> list[str]:
    """Where a file's code asks whether it is Wine: a condition naming it, a comparison with a string
    that does, an import of the Wine launcher's modules (comments, prose and declarations aside)."""
    found = []
    tree = ast.parse(path.read_text(encoding="utf-8"))
    tests = [n.test for n in ast.walk(tree) if isinstance(n, (ast.If, ast.IfExp, ast.While, ast.Assert))]
    tests += [condition for n in ast.walk(tree) if isinstance(n, ast.comprehension) for condition in n.ifs]
    tests += [n for n in ast.walk(tree) if isinstance(n, (ast.Compare, ast.BoolOp))]
    for node in (inner for test in tests for inner in ast.walk(test)):
        names = {
            ast.Name: lambda n: [n.id],
            ast.Attribute: lambda n: [n.attr],
            ast.Constant: lambda n: [n.value],
        }
        for kind, read in names.items():
            if isinstance(node, kind):
                found += [f"{path.name}:{node.lineno}: {n}" for n in read(node) if _says_wine(n)]
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            named = [alias.name for alias in node.names] + [getattr(node, "module", None) or ""]
            found += [f"{path.name}:{node.lineno}: import {n}" for n in named if _says_wine(n)]
    return sorted(set(found))


def _says_wine(name) -> bool:
    return isinstance(name, str) and "wine" in name.lower()


def test_nothing_outside_the_launchers_asks_whether_it_is_wine():
    files = [p for p in HARNESS.glob("**/*.py") if LAUNCHERS not in p.parents and p != WINE_INSTALLER]
    asked = [spot for path in files for spot in asks_for_wine(path)]
    assert asked == []


def test_the_wine_test_sees_a_question(tmp_path):
    asking = tmp_path / "pages.py"
    asking.write_text('if source.how_ran(p) == "wine":\n    pass\nif profile.under_wine:\n    pass\n')
    assert len(asks_for_wine(asking)) == 2
    asking.write_text(
        '"""Windows binaries under Wine."""\nkind = t(f"column.{how.kind}")  # not Wine\nway = launch.WINE\n'
    )
    assert asks_for_wine(asking) == []
