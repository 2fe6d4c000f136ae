"""The harness's modules and what each imports, read with `ast` (relative imports resolved, lazy
imports inside functions too): what the layering and shape tests measure."""

from __future__ import annotations

import ast
from pathlib import Path


def module_name(path: Path, root: Path) -> str:
    """The dotted name of the module at `path`, with `root` the folder that holds its top package."""
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules(package: Path, skip: tuple[str, ...] = ("boot",)) -> dict[str, ast.Module]:
    """{dotted module name: its tree} for every module of the package (boot/ runs in the scripts)."""
    found = {}
    for path in sorted(package.rglob("*.py")):
        if any(part in skip for part in path.relative_to(package).parts):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        tree.is_package = path.name == "__init__.py"  # what a relative import starts from
        found[module_name(path, package.parent)] = tree
    return found


def imported(name: str, tree: ast.Module, known: set[str] | None = None) -> set[str]:
    """Every dotted name the module `name` imports (a module, or a name in one), relative ones made
    absolute. `from package import submodule` names the submodule alone where `known` (the modules
    there are) holds it: the package is the one being imported already."""
    here = name if getattr(tree, "is_package", False) else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = here.split(".")[: len(here.split(".")) - (node.level - 1)]
                base = ".".join([*package, *([node.module] if node.module else [])])
            names = {f"{base}.{alias.name}" for alias in node.names}
            found |= names
            if known is None or not names <= known:
                found.add(base)
    return found


def imports(trees: dict[str, ast.Module]) -> dict[str, set[str]]:
    """{module: the package's modules it imports}."""
    known = set(trees)
    return {
        name: {other for other in imported(name, tree, known) if other in trees and other != name}
        for name, tree in trees.items()
    }
