"""One pass over a module: the facts that the rules read (DataLoaders, Datasets, worker_init_fn, …).

Every rule reads the same `ModuleFacts`, built before any rule runs, so no rule depends on another
having run first.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field

CALLABLE_KEYWORDS = ("collate_fn", "worker_init_fn")
# What a rule yields: where each finding is, and the values its message is formatted with.
Hits = Iterator[tuple[ast.AST, dict[str, str]]]


def dotted(node: ast.AST) -> str:
    """'np.random.default_rng' for the expression np.random.default_rng; '' if not a plain name."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = dotted(node.value)
        return f"{base}.{node.attr}" if base else ""
    return ""


def called(node: ast.AST) -> str:
    """The dotted name a call calls ('' for anything else)."""
    return dotted(node.func) if isinstance(node, ast.Call) else ""


def names_in(target: ast.AST) -> set[str]:
    return {node.id for node in ast.walk(target) if isinstance(node, ast.Name)}


def mentions(node: ast.AST, *words: str) -> bool:
    """Whether a name or attribute under `node` contains one of `words`."""
    for child in ast.walk(node):
        name = ""
        if isinstance(child, ast.Name):
            name = child.id
        elif isinstance(child, ast.Attribute):
            name = child.attr
        if name and any(word in name for word in words):
            return True
    return False


def is_main_guard(node: ast.stmt) -> bool:
    if not isinstance(node, ast.If) or not isinstance(node.test, ast.Compare):
        return False
    parts = [node.test.left, *node.test.comparators]
    names = {dotted(p) for p in parts} | {p.value for p in parts if isinstance(p, ast.Constant)}
    return "__name__" in names and "__main__" in names


@dataclass(frozen=True)
class DatasetClass:
    """A class deriving from a `…Dataset`, with its methods by name."""

    node: ast.ClassDef
    methods: dict[str, ast.FunctionDef]

    @property
    def iterable(self) -> bool:
        return any(dotted(base).split(".")[-1] == "IterableDataset" for base in self.node.bases)

    def self_assignments(self, method: str) -> Iterator[tuple[ast.Attribute, ast.expr]]:
        """`self.x = value` in one of its methods: (target, value)."""
        function = self.methods.get(method)
        for node in ast.walk(function) if function else ():
            if isinstance(node, ast.Assign):
                for target in node.targets:
                    if isinstance(target, ast.Attribute) and dotted(target.value) == "self":
                        yield target, node.value


@dataclass(frozen=True)
class Loader:
    """A `name = DataLoader(..., num_workers=N)` with N not 0."""

    call: ast.Call
    persistent: bool  # persistent_workers=True
    dataset: str = ""  # the dotted name of the Dataset it loads from ('' for an expression)


@dataclass
class ModuleFacts:
    tree: ast.Module
    uses_dataloader: bool = False
    module_level: list[ast.stmt] = field(default_factory=list)  # run on import: not defs, imports, guard
    datasets: list[DatasetClass] = field(default_factory=list)
    functions: list[ast.FunctionDef] = field(default_factory=list)
    # names of functions defined in functions, and of lambdas kept in a name: neither pickles by name
    nested_functions: set[str] = field(default_factory=set)
    callable_keywords: list[ast.keyword] = field(default_factory=list)  # collate_fn=…, worker_init_fn=…
    worker_init_names: set[str] = field(default_factory=set)  # names passed as worker_init_fn
    loaders: dict[str, Loader] = field(default_factory=dict)  # by the name they are assigned to
    loops: list[ast.For | ast.While] = field(default_factory=list)
    comprehensions: list[ast.ListComp | ast.GeneratorExp] = field(default_factory=list)
    calls: list[ast.Call] = field(default_factory=list)
    # False where every DataLoader the module makes has no workers (num_workers absent or 0): the
    # rules about workers have nothing to say; True where one may have some, or none is made here
    workers_possible: bool = True

    @property
    def handed_names(self) -> set[str]:
        """Names of functions passed as collate_fn or worker_init_fn: they run in the workers."""
        return {k.value.id for k in self.callable_keywords if isinstance(k.value, ast.Name)}

    @property
    def worker_init_functions(self) -> list[ast.FunctionDef]:
        """Functions passed as worker_init_fn, or named as one."""
        return [f for f in self.functions if f.name in self.worker_init_names or "worker_init" in f.name]


def collect(tree: ast.Module) -> ModuleFacts:
    """The facts of one module, in one walk over its tree."""
    facts = ModuleFacts(tree=tree, uses_dataloader=mentions(tree, "DataLoader"))
    facts.module_level = [
        statement
        for statement in tree.body
        if not is_main_guard(statement)
        and not isinstance(statement, (ast.FunctionDef, ast.ClassDef, ast.Import, ast.ImportFrom))
    ]
    for node in ast.walk(tree):
        _note(facts, node)
    made = [call for call in facts.calls if called(call).split(".")[-1] == "DataLoader"]
    facts.workers_possible = not made or any(may_have_workers(call) for call in made)
    return facts


LOADER_POSITIONAL = 5  # DataLoader(dataset, batch_size, shuffle, sampler, batch_sampler, num_workers…)


def may_have_workers(call: ast.Call) -> bool:
    """A DataLoader call whose num_workers is not left at its default or given as 0."""
    if len(call.args) > LOADER_POSITIONAL or any(k.arg is None for k in call.keywords):
        return True  # positional num_workers, or **options: not known
    workers = next((k.value for k in call.keywords if k.arg == "num_workers"), None)
    return workers is not None and not (isinstance(workers, ast.Constant) and workers.value == 0)


def _note(facts: ModuleFacts, node: ast.AST) -> None:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        facts.functions.append(node)
        facts.nested_functions |= {
            inner.name
            for inner in ast.walk(node)
            if inner is not node and isinstance(inner, (ast.FunctionDef, ast.AsyncFunctionDef))
        }
    elif isinstance(node, ast.ClassDef) and is_dataset(node):
        methods = {m.name: m for m in node.body if isinstance(m, ast.FunctionDef)}
        facts.datasets.append(DatasetClass(node, methods))
    elif isinstance(node, ast.Call):
        facts.calls.append(node)
        for keyword in node.keywords:
            if keyword.arg in CALLABLE_KEYWORDS:
                facts.callable_keywords.append(keyword)
            if keyword.arg == "worker_init_fn" and isinstance(keyword.value, ast.Name):
                facts.worker_init_names.add(keyword.value.id)
    elif isinstance(node, (ast.For, ast.While)):
        facts.loops.append(node)
    elif isinstance(node, (ast.ListComp, ast.GeneratorExp)):
        facts.comprehensions.append(node)
    elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Lambda):
        facts.nested_functions |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    elif isinstance(node, ast.Assign) and (loader := _loader_with_workers(node.value)):
        facts.loaders.update({dotted(t): loader for t in node.targets if dotted(t)})


def is_dataset(node: ast.ClassDef) -> bool:
    return any(dotted(base).split(".")[-1].endswith("Dataset") for base in node.bases)


def _loader_with_workers(value: ast.expr) -> Loader | None:
    if called(value).split(".")[-1] != "DataLoader":
        return None
    keywords = {k.arg: k.value for k in value.keywords}
    workers = keywords.get("num_workers")
    if workers is None or (isinstance(workers, ast.Constant) and workers.value == 0):
        return None
    kept_alive = keywords.get("persistent_workers")
    persistent = isinstance(kept_alive, ast.Constant) and kept_alive.value is True
    dataset = value.args[0] if value.args else keywords.get("dataset")
    return Loader(value, persistent, dotted(dataset) if dataset is not None else "")
