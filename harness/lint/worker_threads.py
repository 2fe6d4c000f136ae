"""Rules about thread pools in a forked worker: a library's pool copied without its threads."""

from __future__ import annotations

import ast

from .facts import Hits, ModuleFacts, called
from .registry import rule


@rule(
    "DLP009",
    "torch-threads-in-worker-init",
    "14_openmp_threads_in_worker",
    "torch.set_num_threads({what}) in worker_init_fn: hangs forked workers",
)
def dlp009(facts: ModuleFacts) -> Hits:
    """torch.set_num_threads(N), N not 1, in a worker_init_fn."""
    yield from _worker_init_calls(facts, "torch.set_num_threads", allowed=1)


@rule(
    "DLP010",
    "opencv-threads-in-worker-init",
    "04_opencv_thread_deadlock",
    "cv2.setNumThreads({what}) in worker_init_fn: hangs forked workers; use 0",
)
def dlp010(facts: ModuleFacts) -> Hits:
    """cv2.setNumThreads(N), N not 0, in a worker_init_fn."""
    yield from _worker_init_calls(facts, "cv2.setNumThreads", allowed=0)


def _worker_init_calls(facts: ModuleFacts, function: str, allowed: int) -> Hits:
    for definition in facts.worker_init_functions:
        for node in ast.walk(definition):
            if called(node) != function or not node.args:
                continue
            value = node.args[0]
            if not (isinstance(value, ast.Constant) and value.value == allowed):
                yield node, {"what": _literal(value)}


def _literal(node: ast.expr) -> str:
    return repr(node.value) if isinstance(node, ast.Constant) else ast.unparse(node)
