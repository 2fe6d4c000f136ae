"""Rules about what a worker is: a copy made once (DLP014), a daemonic process (DLP015), a process
with its own logging (DLP016), one of many on each rank of a distributed run (DLP017)."""

from __future__ import annotations

import ast
import logging

from harness.lint.facts import Hits, ModuleFacts, called, dotted, mentions

PROCESS_POOLS = ("Pool", "ProcessPoolExecutor", "Process")
_LOGGER = logging.Logger
LOG_METHODS = {m.__name__ for m in (_LOGGER.debug, _LOGGER.info, _LOGGER.warning, _LOGGER.error)} | {
    m.__name__ for m in (_LOGGER.exception, _LOGGER.critical, _LOGGER.log)
}
LOG_SETUP = ("logging.basicConfig", "logging.config.dictConfig", "logging.config.fileConfig")


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


def dlp015(facts: ModuleFacts) -> Hits:
    """A process pool or process started in a Dataset method other than __init__ (which runs in the
    main process), or in a collate_fn or worker_init_fn: DataLoader workers are daemonic."""
    in_workers = [m for d in facts.datasets for name, m in d.methods.items() if name != "__init__"]
    in_workers += [f for f in facts.functions if f.name in facts.handed_names]
    for function in in_workers:
        for node in ast.walk(function):
            name = called(node).split(".")[-1]
            if name in PROCESS_POOLS:
                yield node, {"what": called(node)}


def dlp016(facts: ModuleFacts) -> Hits:
    """A Dataset logs from its worker-side methods while logging is configured only in the main
    process (basicConfig, dictConfig, addHandler outside any worker_init_fn): spawned workers
    start with no handlers. Not where a worker_init_fn sets logging up, or names logging (a
    helper such as fixes.worker_logging.log_to_queue). Once a module, at its first such call."""
    configured = [c for c in facts.calls if called(c) in LOG_SETUP or called(c).endswith(".addHandler")]
    in_worker_init = {id(node) for f in facts.worker_init_functions for node in ast.walk(f)}
    init_fns = [k.value for k in facts.callable_keywords if k.arg == "worker_init_fn"]
    if (
        not configured
        or any(id(c) in in_worker_init for c in configured)
        or any(mentions(value, "log", "Log") for value in init_fns)
    ):
        return
    loggers = _logger_names(facts.tree)
    for dataset in facts.datasets:
        for name, method in dataset.methods.items():
            logging_call = next((n for n in ast.walk(method) if _logs(n, loggers)), None)
            if name != "__init__" and logging_call is not None:
                yield logging_call, {}
                return


def _logger_names(tree: ast.Module) -> set[str]:
    """'logging', and the names that module-level `x = logging.getLogger(…)` binds."""
    names = {"logging"}
    for statement in tree.body:
        if isinstance(statement, ast.Assign) and called(statement.value) == "logging.getLogger":
            names |= {dotted(t) for t in statement.targets}
    return names


def _logs(node: ast.AST, loggers: set[str]) -> bool:
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
        return False
    return node.func.attr in LOG_METHODS and dotted(node.func.value) in loggers


def dlp017(facts: ModuleFacts) -> Hits:
    """A shuffling DistributedSampler whose set_epoch() is never called, and torch.manual_seed()
    with a seed that does not mention the rank, in a function that joins a process group (the same
    seed on every rank: `torch.manual_seed(args.seed)`)."""
    epochs_set = {dotted(c.func.value) for c in facts.calls if called(c).endswith(".set_epoch")}
    for node in ast.walk(facts.tree):
        if isinstance(node, ast.Assign) and called(node.value).split(".")[-1] == "DistributedSampler":
            shuffle = next((k.value for k in node.value.keywords if k.arg == "shuffle"), None)
            if isinstance(shuffle, ast.Constant) and shuffle.value is False:
                continue
            names = {dotted(t) for t in node.targets}
            if not names & epochs_set and not any(n.endswith(".sampler") for n in epochs_set):
                yield node.value, {"what": "DistributedSampler without set_epoch(epoch): every epoch repeats"}
    for function in facts.functions:
        joins = any(called(n).endswith("init_process_group") for n in ast.walk(function))
        for node in ast.walk(function) if joins else ():
            if called(node) == "torch.manual_seed" and node.args and not mentions(node.args[0], "rank"):
                yield node, {"what": "the same torch.manual_seed on every rank: ranks repeat augmentations"}
