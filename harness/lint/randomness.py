"""DLP004: random generators copied into every worker in the same state, on a Dataset or on an
object it holds (a transform), unless a worker_init_fn replaces them in each worker."""

from __future__ import annotations

import ast

from .facts import Hits, ModuleFacts, called
from .registry import rule

GENERATORS = (
    "np.random.default_rng",
    "numpy.random.default_rng",
    "np.random.RandomState",
    "numpy.random.RandomState",
    "np.random.Generator",
    "random.Random",
    "torch.Generator",
)


@rule(
    "DLP004",
    "random-generator-on-dataset",
    "09_duplicated_randomness",
    "Dataset keeps a random generator: every worker gets a copy in the same state",
)
def dlp004(facts: ModuleFacts) -> Hits:
    """A random generator object kept on a Dataset, unless a worker_init_fn of the module replaces
    that attribute in each worker (`worker_info.dataset.rng = …(worker_info.seed)`: the documented fix)."""
    for dataset in facts.datasets:
        reseeded = _set_by_worker_init(facts, dataset.node.name)
        for target, value in dataset.self_assignments("__init__"):
            if called(value) in GENERATORS and target.attr not in reseeded:
                yield value, {}
    yield from _generators_on_held_objects(facts)


def _generators_on_held_objects(facts: ModuleFacts) -> Hits:
    """Generators kept by objects that a Dataset holds (a transform): copied to every worker too.
    Not where a worker_init_fn of the module replaces an attribute of that name (which loader's
    Dataset holds the object is not followed here)."""
    held = _held_by_datasets(facts)
    reseeded = set().union(*(_set_by_worker_init(facts, d.node.name) for d in facts.datasets))
    for holder in (c for c in ast.walk(facts.tree) if isinstance(c, ast.ClassDef) and c.name in held):
        init = next((m for m in holder.body if isinstance(m, ast.FunctionDef) and m.name == "__init__"), None)
        for node in ast.walk(init) if init else ():
            replaced = isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Attribute) and t.attr in reseeded for t in node.targets
            )
            if isinstance(node, ast.Assign) and called(node.value) in GENERATORS and not replaced:
                yield node.value, {}


def _held_by_datasets(facts: ModuleFacts) -> set[str]:
    """Names of the other classes whose instances a Dataset holds: made in its __init__, or passed
    to its constructor (directly, inside a list such as Compose([...]), or through a variable)."""
    dataset_names = {d.node.name for d in facts.datasets}
    made = {  # variable -> the classes called in the value assigned to it
        t.id: {called(c).split(".")[-1] for c in ast.walk(node.value) if isinstance(c, ast.Call)}
        for node in ast.walk(facts.tree)
        if isinstance(node, ast.Assign)
        for t in node.targets
        if isinstance(t, ast.Name)
    }
    held: set[str] = set()
    for dataset in facts.datasets:
        for _, value in dataset.self_assignments("__init__"):
            held |= {called(c).split(".")[-1] for c in ast.walk(value) if isinstance(c, ast.Call)}
    for call in facts.calls:
        if called(call).split(".")[-1] in dataset_names:
            for argument in [*call.args, *(k.value for k in call.keywords)]:
                for node in ast.walk(argument):
                    held |= {called(node).split(".")[-1]} if isinstance(node, ast.Call) else set()
                    held |= made.get(node.id, set()) if isinstance(node, ast.Name) else set()
    return held - dataset_names - {""}


def _set_by_worker_init(facts: ModuleFacts, dataset: str) -> set[str]:
    """The attribute names (`x.dataset.rng = …`) that the worker_init_fn of a loader which may load
    `dataset` assigns: a loader built on `dataset(...)`, or on a name whose class is not known."""
    names = set()
    for call in facts.calls:
        keywords = {k.arg: k.value for k in call.keywords}
        init = keywords.get("worker_init_fn")
        if called(call).split(".")[-1] != "DataLoader" or not isinstance(init, ast.Name):
            continue
        loaded = call.args[0] if call.args else keywords.get("dataset")
        if isinstance(loaded, ast.Call) and called(loaded).split(".")[-1] != dataset:
            continue
        for function in (f for f in facts.functions if f.name == init.id):
            for node in ast.walk(function):
                if isinstance(node, ast.Assign):
                    names |= {t.attr for t in node.targets if isinstance(t, ast.Attribute)}
    return names
