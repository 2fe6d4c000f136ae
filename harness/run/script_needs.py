"""What a script needs of the interpreter that runs it, read from its code alone: the packages it
imports that are not Python's own nor its own folder's (a way of running with another interpreter
must bring them), and the needs a case declares in its case.toml (`distributed`: a process group,
whose gloo collectives a way of running may lack).

The script's own modules beside it (`from model import Net`, a local package) are read too, to
the depth of LOCAL_DEPTH, since what they import the script needs as well.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

from .needs import DISTRIBUTED

LOCAL_DEPTH = 3
# The calls that show a need, by the last part of their dotted name.
NEED_CALLS = {DISTRIBUTED: ("init_process_group",)}


def _tree(path: Path) -> ast.Module | None:
    try:
        return ast.parse(path.read_text(encoding="utf-8", errors="replace"), filename=str(path))
    except (OSError, SyntaxError, ValueError):
        return None


def _imported_names(tree: ast.Module) -> set[str]:
    """The top-level names of the absolute imports anywhere in the module (lazy ones too)."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def _local(name: str, folder: Path) -> Path | None:
    """The script's own module or package of that name beside it; None if there is none."""
    for candidate in (folder / f"{name}.py", folder / name / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def third_party_imports(script: Path) -> tuple[str, ...]:
    """The top-level modules the script (and its own modules beside it) imports that are neither
    Python's standard library nor the script's own: what an interpreter must have installed."""
    folder = script.parent
    seen, found, todo = {script}, set(), [(script, 0)]
    while todo:
        path, depth = todo.pop()
        tree = _tree(path)
        for name in _imported_names(tree) if tree else ():
            local = _local(name, folder)
            if local is None:
                found.add(name)
            elif local not in seen and depth < LOCAL_DEPTH:
                seen.add(local)
                todo.append((local, depth + 1))
    return tuple(sorted(found - set(sys.stdlib_module_names) - {"__future__"}))


def _called(node: ast.AST) -> str:
    function = node.func if isinstance(node, ast.Call) else None
    if isinstance(function, ast.Attribute):
        return function.attr
    return function.id if isinstance(function, ast.Name) else ""


def needs(script: Path) -> tuple[str, ...]:
    """The case needs (harness/run/needs.py) the script's own code shows."""
    tree = _tree(script)
    calls = {_called(node) for node in ast.walk(tree) if isinstance(node, ast.Call)} if tree else set()
    return tuple(need for need, names in NEED_CALLS.items() if calls & set(names))
