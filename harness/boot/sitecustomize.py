"""Imposes a multiprocessing start method on a script and every Python process it starts.

The harness puts this folder on PYTHONPATH, so Python imports this module at start-up in the
script's process and in every interpreter started from it (spawn children, the forkserver),
before the script's own code runs. The script itself stays unmodified.

Environment it reads:
    DLP_START_METHOD  fork, forkserver or spawn: made multiprocessing's default.
    DLP_PROBE_DIR     a folder: each process (forked ones too) registers faulthandler to dump
                      the stacks of all its threads into <pid>.stacks there on SIGUSR1, and
                      dlp_probes records DataLoader events into <pid>.events there.
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
        import dlp_probes  # beside this file: watches torch's DataLoader from outside the script

        dlp_probes.install(probe_dir)


_main()
_chain_to_next_sitecustomize()
