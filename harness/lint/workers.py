"""Rules about what a worker process is: a daemonic process, which cannot have children (DLP015),
and a process with logging of its own (DLP016)."""

from __future__ import annotations

import ast
import logging

from .facts import Hits, ModuleFacts, called, dotted, mentions
from .registry import rule

PROCESS_POOLS = ("Pool", "ProcessPoolExecutor", "Process")
# Modules whose `Process` inspects a running process and starts none (psutil.Process(pid)).
INSPECTING = ("psutil",)
_LOGGER = logging.Logger
LOG_METHODS = {m.__name__ for m in (_LOGGER.debug, _LOGGER.info, _LOGGER.warning, _LOGGER.error)} | {
    m.__name__ for m in (_LOGGER.exception, _LOGGER.critical, _LOGGER.log)
}
LOG_SETUP = ("logging.basicConfig", "logging.config.dictConfig", "logging.config.fileConfig")


@rule(
    "DLP015",
    "process-pool-in-worker",
    "17_pool_inside_worker",
    "{what}(…) in code that runs in a DataLoader worker: a daemonic worker cannot have children",
)
def dlp015(facts: ModuleFacts) -> Hits:
    """A process pool or process started in a Dataset method other than __init__ (which runs in the
    main process), or in a collate_fn or worker_init_fn: DataLoader workers are daemonic."""
    in_workers = [m for d in facts.datasets for name, m in d.methods.items() if name != "__init__"]
    in_workers += [f for f in facts.functions if f.name in facts.handed_names]
    inspecting = _names_from(facts.tree, INSPECTING)
    for function in in_workers:
        for node in ast.walk(function):
            what = called(node)
            if what.split(".")[-1] in PROCESS_POOLS and what.split(".")[0] not in inspecting:
                yield node, {"what": what}


def _names_from(tree: ast.Module, modules: tuple[str, ...]) -> set[str]:
    """The modules, and the names imported from them (`from psutil import Process`), as the module
    calls them."""
    names = set(modules)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in modules:
            names |= {alias.asname or alias.name for alias in node.names}
        elif isinstance(node, ast.Import):
            names |= {a.asname or a.name for a in node.names if a.name.split(".")[0] in modules}
    return names


@rule(
    "DLP016",
    "worker-logging-not-configured",
    "18_logging_lost_in_workers",
    "Dataset logs in its workers, but logging is set up in the main process only: spawned "
    "workers drop the records",
)
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
