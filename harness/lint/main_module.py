"""Rules about the main module, which a spawned (or forkserver) worker imports again as
`__mp_main__`: what runs at its top level, and what is defined only under its main guard."""

from __future__ import annotations

import ast
from collections.abc import Iterator

from .facts import Hits, ModuleFacts, called, is_dataset, is_main_guard
from .registry import rule

SIDE_EFFECTS = ("os.makedirs", "os.mkdir", "shutil.rmtree", "os.remove", "os.unlink")


@rule(
    "DLP001",
    "dataloader-outside-main-guard",
    "01_missing_main_guard",
    'DataLoader used at module level, outside `if __name__ == "__main__":`',
    script_only=True,
)
def dlp001(facts: ModuleFacts) -> Hits:
    """A DataLoader built at module level, outside the `__main__` guard: one finding a statement."""
    for statement in facts.module_level:
        for node in ast.walk(statement):
            if called(node).split(".")[-1] == "DataLoader":
                yield node, {}
                break


@rule(
    "DLP008",
    "side-effect-at-module-level",
    "08_module_side_effects",
    "side effect at module level ({what}): spawned workers repeat it",
    script_only=True,
)
def dlp008(facts: ModuleFacts) -> Hits:
    """Folders made or files removed or written at module level of a script that uses DataLoader."""
    if not facts.uses_dataloader:
        return
    for statement in facts.module_level:
        for node in ast.walk(statement):
            name = called(node) or _method(node)
            if name in SIDE_EFFECTS or name.endswith("mkdir") or _opens_for_writing(node):
                yield node, {"what": f"{name}(…)"}


def _method(node: ast.AST) -> str:
    """'.mkdir' for a method called on an expression that is not a plain name: Path("x").mkdir()."""
    is_method = isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
    return f"….{node.func.attr}" if is_method else ""


def _opens_for_writing(node: ast.AST) -> bool:
    if called(node) != "open":
        return False
    modes = list(node.args[1:2]) + [k.value for k in node.keywords if k.arg == "mode"]
    return any(isinstance(m, ast.Constant) and isinstance(m.value, str) and "w" in m.value for m in modes)


@rule(
    "DLP013",
    "definition-under-main-guard",
    "07_interactive_main_class",
    '{what} is defined under `if __name__ == "__main__":`: spawned workers cannot find it; '
    "define it at the top level",
)
def dlp013(facts: ModuleFacts) -> Hits:
    """A Dataset class, or a function handed to a DataLoader as collate_fn or worker_init_fn, defined
    under `if __name__ == "__main__":`: a spawned (or forkserver) worker imports the script as
    `__mp_main__`, where the guard is false and the definition does not exist."""
    handed = facts.handed_names
    for statement in facts.tree.body:
        if is_main_guard(statement):
            for node in _defined_in(statement.body):
                if (isinstance(node, ast.ClassDef) and is_dataset(node)) or (
                    isinstance(node, ast.FunctionDef) and node.name in handed
                ):
                    yield node, {"what": node.name}


def _defined_in(body: list[ast.stmt]) -> Iterator[ast.ClassDef | ast.FunctionDef]:
    """Classes and functions defined in a block and in the blocks it nests (if, with, try, loops),
    not inside other definitions."""
    for statement in body:
        if isinstance(statement, (ast.ClassDef, ast.FunctionDef)):
            yield statement
        else:
            for field in ("body", "orelse", "finalbody", "handlers"):
                inner = getattr(statement, field, [])
                blocks = [h.body for h in inner] if field == "handlers" else [inner]
                for block in blocks:
                    yield from _defined_in(block)


@rule(
    "DLP020",
    "main-state-read-in-worker",
    "23_main_state_lost_in_workers",
    "`{name}` is read in code that runs in a DataLoader worker and set in {where}, which a spawned "
    "worker never runs: it has {had}; pass it to the Dataset",
    script_only=True,
)
def dlp020(facts: ModuleFacts) -> Hits:
    """A module global read in a Dataset method (not __init__, which runs in the main process), a
    collate_fn or a worker_init_fn, and set (assigned, or changed by item or attribute) only in
    a function that declares it `global`, or under `if __name__ == "__main__":` - never in code
    that runs in the worker. A spawned or forkserver worker imports the script as `__mp_main__`
    without running main() or the guard: it has the value the top level gave, or no name at all.
    Once a name, at its first read."""
    in_worker = _worker_code(facts)
    set_by_main = _set_by_main(facts, {id(f) for f in in_worker})
    at_top = _top_level_names(facts.tree)
    reported = set()
    for function in in_worker:
        local = _locals(function)
        for node in ast.walk(function):
            name = node.id if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) else ""
            if name in set_by_main and name not in local and name not in reported:
                reported.add(name)
                had = "the value the top level gives it" if name in at_top else "no such name"
                yield node, {"name": name, "where": set_by_main[name], "had": had}


def _worker_code(facts: ModuleFacts) -> list[ast.FunctionDef]:
    """Dataset methods other than __init__, functions handed as collate_fn or worker_init_fn."""
    in_worker = [m for d in facts.datasets for name, m in d.methods.items() if name != "__init__"]
    handed = facts.handed_names | facts.worker_init_names
    return in_worker + [f for f in facts.functions if f.name in handed and f not in in_worker]


def _set_by_main(facts: ModuleFacts, in_worker: set[int]) -> dict[str, str]:
    """{name: where} of the module globals set in a function that declares them global, or under
    the main guard, less those that code running in a worker sets too."""
    found: dict[str, str] = {}
    worker_set: set[str] = set()
    data = _top_level_names(facts.tree, data_only=True)
    for function in facts.functions:
        changed = _changed(function.body, _declared_global(function), data - _locals(function))
        if id(function) in in_worker:
            worker_set |= changed
        else:
            found.update({name: f"{function.name}()" for name in changed if name not in found})
    for statement in facts.tree.body:
        if is_main_guard(statement):
            bound = {n for node in statement.body for n in _bound(node)}
            changed = _changed(statement.body, set(), data) | bound
            found.update({name: "the main guard" for name in changed if name not in found})
    return {name: where for name, where in found.items() if name not in worker_set}


def _changed(body: list[ast.stmt], names: set[str], data: set[str]) -> set[str]:
    """Which of `names` the statements assign, and which of `data` (values the top level assigns,
    not modules, functions or classes) they change by item or attribute (x[k] = …, x.a = …,
    x.update(…)), not inside nested definitions."""
    found = set()
    for statement in body:
        for node in _walk_here(statement):
            targets = []
            if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr == "update"
            ):
                targets = [node.func]
            for target in targets:
                root = target
                while isinstance(root, (ast.Subscript, ast.Attribute)):
                    root = root.value
                if isinstance(root, ast.Name) and root.id in (names if root is target else names | data):
                    found.add(root.id)
    return found


def _walk_here(node: ast.AST):
    """The nodes under `node`, not entering function or class definitions."""
    yield node
    for child in ast.iter_child_nodes(node):
        if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            yield from _walk_here(child)


def _bound(statement: ast.stmt) -> set[str]:
    """Plain names a statement under the guard binds (assignments, for and with targets, imports)."""
    found = set()
    for node in _walk_here(statement):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            found.add(node.id)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            found |= {(alias.asname or alias.name).split(".")[0] for alias in node.names}
    return found


def _top_level_names(tree: ast.Module, data_only: bool = False) -> set[str]:
    """Names the module's top level binds outside the main guard: assignments, imports and
    definitions; with `data_only`, assignments alone."""
    found = set()
    for statement in tree.body:
        if is_main_guard(statement) or (data_only and isinstance(statement, (ast.Import, ast.ImportFrom))):
            continue
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found |= set() if data_only else {statement.name}
        else:
            found |= _bound(statement)
    return found


def _declared_global(function: ast.FunctionDef) -> set[str]:
    return {name for node in ast.walk(function) if isinstance(node, ast.Global) for name in node.names}


def _locals(function: ast.FunctionDef) -> set[str]:
    """Its parameters and the names it binds without declaring them global."""
    arguments = function.args
    parameters = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]
    parameters += [a for a in (arguments.vararg, arguments.kwarg) if a]
    bound = {p.arg for p in parameters}
    for statement in function.body:
        bound |= _bound(statement)
    return bound - _declared_global(function)
