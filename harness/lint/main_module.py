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
