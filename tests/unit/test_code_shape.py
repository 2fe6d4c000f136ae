"""The shape the harness keeps: no function over 60 lines, no import cycle between its modules,
and outcome names written only in outcomes.py. Measured on the source with `ast`."""

from __future__ import annotations

import ast

from harness.outcomes import OUTCOME_NAMES
from tests.conftest import ROOT
from tests.import_graph import imports, modules

LONGEST_FUNCTION = 60


def function_lengths(trees: dict[str, ast.Module]) -> dict[str, int]:
    """{module.function: lines from `def` to its last line}, methods and nested functions too."""
    return {
        f"{name}.{node.name}": node.end_lineno - node.lineno + 1
        for name, tree in trees.items()
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
    }


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Import cycles, a package's own __init__ included (a submodule that imports its package's
    __init__, which imports it back, is a circle too)."""
    found, done = [], set()

    def visit(module: str, path: list[str]) -> None:
        for other in sorted(graph[module]):
            if other in path:
                found.append([*path[path.index(other) :], other])
            elif other not in done:
                visit(other, [*path, other])
        done.add(module)

    for module in sorted(graph):
        visit(module, [module])
    return found


TREES = modules(ROOT / "harness")


def test_no_function_is_longer_than_a_screen():
    lengths = function_lengths(TREES)
    assert lengths["harness.run.runner.run_script"] > 10, "the measure reads the harness"
    assert {name: n for name, n in lengths.items() if n > LONGEST_FUNCTION} == {}


def test_no_import_cycle_between_the_harness_modules():
    assert cycles(imports(TREES)) == []


def test_the_cycle_finder_finds_one():
    cli = ast.parse("from . import check\n")
    check = ast.parse("def f():\n    from harness.cli import main\n")
    graph = imports({"harness.cli": cli, "harness.check": check, "harness": ast.parse("")})
    assert cycles(graph) == [["harness.check", "harness.cli", "harness.check"]]
    package = ast.parse("from .pool import run_all\n")
    package.is_package = True
    pool = ast.parse("def f():\n    from . import execute\n")
    graph = imports({"harness.scheduler": package, "harness.scheduler.pool": pool})
    assert cycles(graph) == [["harness.scheduler", "harness.scheduler.pool", "harness.scheduler"]]


def test_outcome_names_are_written_only_in_outcomes_py():
    """Callers ask the Outcome enum; no module compares with "ok", "hang" … as strings."""
    written = {
        (name, node.lineno, node.value)
        for name, tree in TREES.items()
        if name != "harness.outcomes"
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and node.value in OUTCOME_NAMES
    }
    assert written == set()
