"""The layers of the harness, stated: which code may import which (direct imports, lazy ones too)."""

from __future__ import annotations

import ast
import re

from tests.conftest import ROOT
from tests.import_graph import imported, imports, module_name, modules

HARNESS = ROOT / "harness"
TOP_LEVEL_MODULES_AT_MOST = 18
INSTALLED_NAME = "dataloader_pitfalls"  # the one top-level import package of the wheel
# The run machinery (harness/run/) and the parsing it shares with the judge.
RUN_FILES = [*sorted((HARNESS / "run").glob("*.py")), HARNESS / "tracebacks.py"]
# What the run machinery must never reach up to: the catalog, the CLI, check, the results files.
ABOVE_RUN = {
    "cases", "cli", "commands", "diagnose", "results", "scheduler", "judge", "outcome_table", "site", "lint",
}  # fmt: skip


def harness_imports(path) -> set[str]:
    """The harness modules a file imports, dotted below `harness` ("run.runner", "boot", "lint"…),
    relative imports resolved."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    tree.is_package = path.name == "__init__.py"
    name = module_name(path, ROOT) if ROOT in path.parents else f"harness.run.{path.stem}"
    return {
        other.removeprefix("harness.") for other in imported(name, tree) if other.startswith("harness.")
    } | ({"harness"} & imported(name, tree))


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

    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(setuptools["packages"])
    installed = {folder: name for name, folder in setuptools["package-dir"].items()}
    assert installed["harness"] == INSTALLED_NAME
    packages = {
        ".".join([INSTALLED_NAME, *p.parent.relative_to(HARNESS).parts])
        for p in HARNESS.glob("**/__init__.py")
    }
    assert packages - listed == set()
    assert {name.split(".")[0] for name in listed} == {INSTALLED_NAME}, "one top-level import package"


# The harness's floors, lowest first: a module imports from its own floor or below, never above.
# Recording knows nothing of cases or verdicts; judging nothing of reports; only commands join all.
FLOORS = [
    ("base", {"harness", "boot", "tracebacks", "outcomes", "links", "environment"}),
    ("recording", {"run"}),  # launchers, the runner, its watches and probes' records
    ("model", {"profiles", "results", "measurements", "recognition", "cases", "confirmations", "lint"}),
    ("judging", {"judge", "skips", "verdict", "diagnose"}),
    ("scheduling", {"scheduler", "bench", "experiments"}),
    ("reporting", {"outcome_table", "site"}),
    ("commands", {"commands", "cli", "__main__"}),
]


def floor(module: str) -> int:
    """The floor of a harness module ("harness.run.runner" → 1)."""
    top = module.split(".")[1] if "." in module else module
    return next(index for index, (_, names) in enumerate(FLOORS) if top in names)


def arrows_up(graph: dict[str, set[str]]) -> list[str]:
    return sorted(f"{a} → {b}" for a, others in graph.items() for b in others if floor(b) > floor(a))


def test_no_import_points_up_a_floor():
    graph = imports(modules(HARNESS, skip=()))
    assert all(floor(module) is not None for module in graph), "every module has a floor"
    assert arrows_up(graph) == []


def test_the_floor_test_sees_an_arrow_up():
    graph = {"harness.run.runner": {"harness.profiles"}, "harness.profiles": {"harness.run.launch"}}
    assert arrows_up(graph) == ["harness.run.runner → harness.profiles"]


# The floors of the run machinery (harness/run/), lowest first: a module there imports from its own
# floor or below. On the "ways" floor, the confinements and the launchers never import each other:
# a run is launched one way and confined any number of ways, and the runner joins them.
RUN_FLOORS = [
    ("facts", {"settings", "observation", "needs", "idleness", "shm_leftovers", "mount_namespace"}),
    ("processes", {"processes", "memory", "probe_records", "script_needs", "watchdog", "active_runs"}),
    ("ways", {"confine", "launch"}),
    ("runner", {"runner"}),
]
# Who outside harness/run/ may import these parts of it. The rest of the harness runs a script
# through verdict.reach; the confinements' family is read (options, case.toml keys, words), and no
# member of it (a module of confine/ or launch/ by name) is imported from outside its package.
REACHED_FROM_OUTSIDE = {
    "run.runner": {"verdict", "bench.overhead"},
    "run.confine": {"cases", "profiles", "skips", "commands.check", "site.pages"},
    "run.mount_namespace": {"commands.observe_chroot"},
}
MEMBERS = {"run.confine": {"base"}, "run.launch": {"base", "wine_env"}}  # members others may name
# wine_env: the Windows environment, which `nox -s windows-env` (commands.windows_env) prepares


def run_part(module: str) -> str:
    """Its part of harness/run/ ("harness.run.confine.base" → "confine"); "" outside it."""
    parts = module.split(".")
    return parts[2] if parts[:2] == ["harness", "run"] and len(parts) > 2 else ""


def run_arrows_wrong(graph: dict[str, set[str]]) -> list[str]:
    """Imports within harness/run/ that point up a floor, or across the "ways" floor."""
    level = {part: index for index, (_, parts) in enumerate(RUN_FLOORS) for part in parts}
    wrong = []
    for source, targets in graph.items():
        for target in targets:
            a, b = run_part(source), run_part(target)
            if a and b and a != b and (level[b] > level[a] or level[a] == level[b] == 2):
                wrong.append(f"{source} → {target}")
    return sorted(wrong)


def _within(name: str, part: str) -> bool:
    return name == part or name.startswith(part + ".")


def reached_wrongly(graph: dict[str, set[str]]) -> list[str]:
    """Imports of a part of harness/run/ from outside it that its table does not allow, and of a
    member of a family from outside its package."""
    wrong = set()
    for source, targets in graph.items():
        here = source.removeprefix("harness.")
        for name in (target.removeprefix("harness.") for target in targets):
            for part, allowed in REACHED_FROM_OUTSIDE.items():
                if _within(name, part) and not run_part(source) and here not in allowed:
                    wrong.add(f"{source} → harness.{name}")
            for package, named in MEMBERS.items():
                member = name.removeprefix(package + ".").split(".")[0]
                if name.startswith(package + ".") and member not in named and not _within(here, package):
                    wrong.add(f"{source} → harness.{name}")
    return sorted(wrong)


def test_every_module_of_the_run_machinery_has_a_floor():
    parts = {run_part(m) for m in modules(HARNESS, skip=())} - {""}
    assert parts == {part for _, names in RUN_FLOORS for part in names}


def test_the_run_machinery_imports_down_its_floors_and_is_reached_as_its_table_says():
    graph = imports(modules(HARNESS, skip=()))
    assert run_arrows_wrong(graph) == []
    assert reached_wrongly(graph) == []


def test_the_run_floor_tests_see_a_wrong_import():
    graph = {
        "harness.run.settings": {"harness.run.processes"},  # up a floor
        "harness.run.confine.private_shm": {"harness.run.launch.base"},  # across the ways
        "harness.run.runner": {"harness.run.confine"},  # down: right
    }
    assert run_arrows_wrong(graph) == [
        "harness.run.confine.private_shm → harness.run.launch.base",
        "harness.run.settings → harness.run.processes",
    ]
    graph = {
        "harness.judge": {"harness.run.runner"},  # not through verdict.reach
        "harness.site.pages": {"harness.run.confine", "harness.run.confine.memory_cgroup"},  # a member
        "harness.profiles": {"harness.run.launch", "harness.run.launch.chroot"},  # a launcher by name
        "harness.run.runner": {"harness.run.confine"},  # inside: right
    }
    assert reached_wrongly(graph) == [
        "harness.judge → harness.run.runner",
        "harness.profiles → harness.run.launch.chroot",
        "harness.site.pages → harness.run.confine.memory_cgroup",
    ]


LAUNCHERS = HARNESS / "run" / "launch"
# The commands that build a launcher's environment (the Windows one for Wine, a Debian root for the
# chroot launcher): its installers, not runs; and where the command line's --chroot becomes a launcher.
WINE_INSTALLER = HARNESS / "commands" / "windows_env.py"
CHROOT_INSTALLER = HARNESS / "commands" / "observe_chroot.py"
CHROOT_OPTION = HARNESS / "commands" / "arguments.py"


def asks_for(path, word: str, said=lambda name: False) -> list[str]:
    """Where a file's code asks about `word` (a way of running, a confinement): a condition naming
    it, a comparison with a string that does, an import of its modules (comments, prose and
    declarations aside; names that `said(name)` lets through)."""
    found = []
    tree = ast.parse(path.read_text(encoding="utf-8"))
    tests = [n.test for n in ast.walk(tree) if isinstance(n, (ast.If, ast.IfExp, ast.While, ast.Assert))]
    tests += [condition for n in ast.walk(tree) if isinstance(n, ast.comprehension) for condition in n.ifs]
    tests += [n for n in ast.walk(tree) if isinstance(n, (ast.Compare, ast.BoolOp))]
    names = {
        ast.Name: lambda n: [n.id],
        ast.Attribute: lambda n: [n.attr],
        ast.Constant: lambda n: [n.value],
    }
    for node in (inner for test in tests for inner in ast.walk(test)):
        for kind, read in names.items():
            if isinstance(node, kind):
                found += [f"{path.name}:{node.lineno}: {n}" for n in read(node) if _says(n, word, said)]
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            named = [alias.name for alias in node.names] + [getattr(node, "module", None) or ""]
            found += [f"{path.name}:{node.lineno}: import {n}" for n in named if _says(n, word, said)]
    return sorted(set(found))


def _says(name, word: str, said) -> bool:
    return isinstance(name, str) and word in name.lower() and not said(name)


def _outside(folder, *allowed) -> list:
    return [p for p in HARNESS.glob("**/*.py") if folder not in p.parents and p not in allowed]


def test_nothing_outside_the_launchers_asks_whether_it_is_wine():
    asked = [spot for path in _outside(LAUNCHERS, WINE_INSTALLER) for spot in asks_for(path, "wine")]
    assert asked == []


def test_nothing_outside_the_launchers_asks_whether_it_is_a_chroot():
    files = _outside(LAUNCHERS, CHROOT_INSTALLER, CHROOT_OPTION)
    assert [spot for path in files for spot in asks_for(path, "chroot")] == []


def test_the_guard_sees_a_question(tmp_path):
    asking = tmp_path / "pages.py"
    asking.write_text('if source.how_ran(p) == "wine":\n    pass\nif profile.under_wine:\n    pass\n')
    assert len(asks_for(asking, "wine")) == 2
    asking.write_text(
        '"""Windows binaries under Wine."""\nkind = t(f"column.{how.kind}")  # not Wine\nway = launch.WINE\n'
    )
    assert asks_for(asking, "wine") == []


def profile_names_written(path) -> list[str]:
    """Where a file writes a profile's name as a literal; a system's name ("linux", "windows") in
    a comparison or a call about the system or the platform is not one."""
    from harness.profiles import PROFILE_NAMES

    source = path.read_text(encoding="utf-8")
    tree = ast.parse(source)
    parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Constant) and node.value in PROFILE_NAMES):
            continue
        context = parents.get(node)
        while context is not None and not isinstance(context, (ast.Compare, ast.Call, ast.stmt)):
            context = parents.get(context)
        said = ast.get_source_segment(source, context) if context is not None else ""
        if isinstance(context, (ast.Compare, ast.Call)) and re.search(r"system|platform", said or ""):
            continue
        found.append(f"{path.name}:{node.lineno}: {node.value!r}")
    return found


def test_profile_names_are_written_only_where_profiles_are_defined():
    files = [p for p in HARNESS.glob("**/*.py") if p != HARNESS / "profiles.py"]
    assert [spot for path in files for spot in profile_names_written(path)] == []


def test_the_profile_name_test_sees_one(tmp_path):
    written = tmp_path / "plots.py"
    written.write_text('for m in ("linux", "windows-emulated"):\n    pass\nif system == "linux":\n    pass\n')
    assert profile_names_written(written) == ["plots.py:1: 'linux'", "plots.py:1: 'windows-emulated'"]
