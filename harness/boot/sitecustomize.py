"""Imposes a multiprocessing start method on a script and every Python process it starts.

The harness puts this folder on PYTHONPATH, so Python imports this module at start-up in the
script's process and in every interpreter started from it (spawn children, the forkserver),
before the script's own code runs. The script itself stays unmodified.

Environment it reads:
    DLP_START_METHOD  fork, forkserver or spawn: made multiprocessing's default.
    DLP_PROBE_DIR     a folder: each process (forked ones too) registers faulthandler to dump
                      the stacks of all its threads into <pid>.stacks there on SIGUSR1, and each
                      DataLoader worker appends "worker_ready <time>" to <pid>.events there when
                      it enters its loop (its Dataset unpickled, before worker_init_fn).
"""

import os


def _impose_start_method(method: str) -> None:
    import multiprocessing

    multiprocessing.set_start_method(method, force=True)


def _arm_stack_dump(probe_dir: str) -> None:
    import faulthandler
    import signal

    def arm() -> None:
        path = os.path.join(probe_dir, f"{os.getpid()}.stacks")
        # Kept open for the life of the process: faulthandler writes to its descriptor.
        stacks = open(path, "w")  # noqa: SIM115
        faulthandler.register(signal.SIGUSR1, file=stacks, all_threads=True)

    arm()
    # A forked child would otherwise write into its parent's file.
    os.register_at_fork(after_in_child=arm)


class _PatchOnImport:
    """A meta path finder that calls `patch(module)` right after the named module is executed."""

    def __init__(self, name, patch):
        self.name = name
        self.patch = patch

    def find_spec(self, fullname, path, target=None):
        import sys

        if fullname != self.name:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None and spec.loader is not None:
                break
        else:
            return None
        execute = spec.loader.exec_module
        patch = self.patch

        def exec_module(module):
            execute(module)
            patch(module)

        spec.loader.exec_module = exec_module
        return spec


def _mark_worker_ready(probe_dir: str) -> None:
    """Wraps torch's worker loop so that each worker says when it starts serving."""
    import functools
    import sys
    import time

    def patch(module) -> None:
        original = getattr(module, "_worker_loop", None)
        if original is None:  # another torch layout: no marks, the harness falls back
            return

        @functools.wraps(original)  # same name, so spawn still pickles it by reference
        def _worker_loop(*args, **kwargs):
            with open(os.path.join(probe_dir, f"{os.getpid()}.events"), "a") as events:
                events.write(f"worker_ready {time.time()}\n")
            return original(*args, **kwargs)

        module._worker_loop = _worker_loop

    sys.meta_path.insert(0, _PatchOnImport("torch.utils.data._utils.worker", patch))


def _chain_to_next_sitecustomize() -> None:
    """Runs the sitecustomize that this one shadows, if the environment has one."""
    import importlib.machinery
    import importlib.util
    import sys

    here = os.path.dirname(os.path.abspath(__file__))
    others = [p for p in sys.path if os.path.abspath(p or ".") != here]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", others)
    if spec is not None and spec.loader is not None:
        spec.loader.exec_module(importlib.util.module_from_spec(spec))


def _main() -> None:
    method = os.environ.get("DLP_START_METHOD")
    if method:
        _impose_start_method(method)
    probe_dir = os.environ.get("DLP_PROBE_DIR")
    if probe_dir and hasattr(os, "register_at_fork"):  # POSIX: SIGUSR1 and fork exist
        _arm_stack_dump(probe_dir)
    if probe_dir:
        _mark_worker_ready(probe_dir)


_main()
_chain_to_next_sitecustomize()
