"""Rules about how a training loop uses its loader: workers started every epoch, batches kept as
received, the Dataset of persistent workers changed under them."""

from __future__ import annotations

import ast

from .facts import Hits, ModuleFacts, called, dotted, may_have_workers, names_in
from .registry import rule


@rule(
    "DLP011",
    "workers-restarted-every-epoch",
    "13_spawn_startup_cost",
    "DataLoader iterated per epoch without persistent_workers=True: spawn restarts workers each time "
    "(but persistent ones keep the Dataset as it was: cases/15_persistent_workers_stale_dataset)",
)
def dlp011(facts: ModuleFacts) -> Hits:
    """A loader with workers, not persistent, iterated inside an outer loop: once per loader."""
    flagged: set[str] = set()
    for outer in facts.loops:
        for inner in ast.walk(outer):
            if inner is outer or not isinstance(inner, (ast.For, ast.comprehension)):
                continue
            name = dotted(inner.iter)
            loader = facts.loaders.get(name)
            if loader is not None and not loader.persistent and name not in flagged:
                flagged.add(name)
                yield loader.call, {}


@rule(
    "DLP012",
    "batches-kept-from-workers",
    "12_too_many_open_files",
    "received batches kept as they are: each shared tensor holds an open file descriptor",
)
def dlp012(facts: ModuleFacts) -> Hits:
    """Batches from a loader with workers kept as received: [b for b in loader], append(b), list(loader)."""
    for comprehension in facts.comprehensions:
        if isinstance(comprehension, ast.ListComp) and isinstance(comprehension.elt, ast.Name):
            loops = [g for g in comprehension.generators if dotted(g.iter) in facts.loaders]
            if any(comprehension.elt.id in names_in(g.target) for g in loops):
                yield comprehension, {}
    for loop in facts.loops:
        if isinstance(loop, ast.For) and dotted(loop.iter) in facts.loaders:
            received = names_in(loop.target)
            for node in ast.walk(loop):
                kept = node.args[0] if called(node).endswith(".append") and node.args else None
                if isinstance(kept, ast.Name) and kept.id in received:
                    yield node, {}
    for call in facts.calls:
        if called(call) == "list" and call.args and dotted(call.args[0]) in facts.loaders:
            yield call, {}


@rule(
    "DLP014",
    "persistent-dataset-changed",
    "15_persistent_workers_stale_dataset",
    "`{what}` changes the Dataset of a loader with persistent workers: they keep their old copy",
)
def dlp014(facts: ModuleFacts) -> Hits:
    """The Dataset of a loader with persistent workers changed in a loop: an attribute set on it
    (`dataset.epoch = e`) or a setter called (`dataset.set_epoch(e)`). The workers keep their copy."""
    kept = {loader.dataset for loader in facts.loaders.values() if loader.persistent and loader.dataset}
    flagged: set[int] = set()
    for loop in facts.loops:
        for node in ast.walk(loop):
            changed = _changed_object(node)
            if changed in kept and id(node) not in flagged:
                flagged.add(id(node))
                yield node, {"what": ast.unparse(node).split("\n")[0]}


def _changed_object(node: ast.AST) -> str:
    """'dataset' for `dataset.x = …` and `dataset.set_x(…)`; '' for anything else."""
    if isinstance(node, ast.Assign):
        targets = [t for t in node.targets if isinstance(t, ast.Attribute)]
        return dotted(targets[0].value) if targets else ""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        return dotted(node.func.value) if node.func.attr.startswith("set_") else ""
    return ""


# Seconds: a timeout shorter than this may not cover a spawned worker's start-up, which imports torch
# and the script's imports before the first batch (1.7-2 s for four workers on two cores emulated
# here; longer on Windows: cases/20_timeout_counts_worker_startup's results).
TIMEOUT_COVERS_STARTUP_S = 10


@rule(
    "DLP019",
    "timeout-shorter-than-startup",
    "20_timeout_counts_worker_startup",
    "DataLoader(timeout={timeout}) with workers: the clock includes a spawned worker's start-up "
    "(torch imported again), which can take longer on Windows and macOS",
)
def dlp019(facts: ModuleFacts) -> Hits:
    """A DataLoader call with workers whose timeout is a number under TIMEOUT_COVERS_STARTUP_S."""
    for call in facts.calls:
        if called(call).split(".")[-1] != "DataLoader" or not may_have_workers(call):
            continue
        timeout = next((k.value for k in call.keywords if k.arg == "timeout"), None)
        value = timeout.value if isinstance(timeout, ast.Constant) else None
        if isinstance(value, (int, float)) and 0 < value < TIMEOUT_COVERS_STARTUP_S:
            yield timeout, {"timeout": f"{value:g}"}
