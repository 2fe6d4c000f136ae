"""Imposes a profile (a start method and what its platform does differently) on a script and on
every Python process it starts.

The harness puts this folder on PYTHONPATH, so Python imports this module at start-up in the
script's process and in every interpreter started from it (spawn children, the forkserver),
before the script's own code runs. The script itself stays unmodified. A profile that cannot be
imposed ends the process at once with BOOT_EXIT_CODE and the reason in <probe dir>/boot-failed:
the harness reports an error, never a run under something else.

Environment it reads (harness/profiles.py sets them):
    DLP_START_METHOD      fork, forkserver or spawn: made multiprocessing's default.
    DLP_PRELOAD_MAIN      1: the forkserver imports __main__ once, as CPython 3.14.1+ does.
    DLP_SHARING_STRATEGY  torch.multiprocessing's sharing strategy, its only one (as on macOS).
    DLP_WINDOWS_APIS      1: what Windows lacks is hidden (see dlp_windows).
    DLP_PROBE_DIR         a folder: the main process writes main.pid there; each process dumps
                          the stacks of its threads into <pid>.stacks when asked (dlp_stacks),
                          and dlp_probes records DataLoader events into <pid>.events.
    DLP_STACK_TRIGGER     signal (SIGUSR1, POSIX) or file (<probe dir>/dump-stacks appears).
    DLP_PID_MARKER        1 (under Wine): each process keeps <probe dir>/<pid>.pid open while it
                          lives, which names its Windows pid to the harness outside.
"""

import os

import dlp_contract as contract


def _impose_profile() -> None:
    import multiprocessing

    if os.environ.get(contract.WINDOWS_APIS) == "1":
        import dlp_windows

        dlp_windows.hide_from_script()
    method = os.environ.get(contract.START_METHOD)
    if method:
        multiprocessing.set_start_method(method, force=True)  # ValueError where the platform lacks it
    if os.environ.get(contract.PRELOAD_MAIN) == "1":
        import dlp_forkserver

        dlp_forkserver.preload_main()
    strategy = os.environ.get(contract.SHARING_STRATEGY)
    if strategy:
        import dlp_probes

        dlp_probes.patch_on_import({"torch.multiprocessing": lambda module: _only_strategy(module, strategy)})


def _only_strategy(module, strategy: str) -> None:
    """torch.multiprocessing with `strategy` as its default and only sharing strategy."""
    module._sharing_strategy = strategy
    module._all_sharing_strategies = {strategy}


def _note_main_pid(probe_dir: str) -> None:
    """The first Python process of the run is the script's (on Windows a venv's python.exe is a
    launcher whose child is the interpreter): its pid goes to main.pid, for the harness."""
    if contract.MAIN_PID in os.environ:
        return
    os.environ[contract.MAIN_PID] = str(os.getpid())
    with open(os.path.join(probe_dir, contract.MAIN_PID_FILE), "w") as main_pid:
        main_pid.write(str(os.getpid()))


_PID_MARKER = []  # the open marker file: kept for the life of the process


def _hold_pid_marker(probe_dir: str) -> None:
    """Opens <pid>.pid and keeps it open: under Wine the harness sees this process as a Linux
    process with another pid, and finds the file among its open descriptors."""
    marker = open(os.path.join(probe_dir, f"{os.getpid()}{contract.PID_SUFFIX}"), "w")  # noqa: SIM115
    marker.write(str(os.getpid()))
    marker.flush()  # Wine hands the process its own descriptor of the file at the first write
    _PID_MARKER.append(marker)


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


def _fail(probe_dir: str | None) -> None:
    """The profile could not be imposed: say why, where the harness looks, and end the process."""
    import sys
    import traceback

    reason = "".join(traceback.format_exception_only(*sys.exc_info()[:2])).strip()
    message = f"harness boot: could not impose the profile: {reason}"
    print(message, file=sys.stderr, flush=True)
    if probe_dir:
        with open(os.path.join(probe_dir, contract.BOOT_FAILED_FILE), "a", encoding="utf-8") as failed:
            failed.write(message + "\n")
    os._exit(contract.BOOT_EXIT_CODE)


def _main() -> None:
    probe_dir = os.environ.get(contract.PROBE_DIR)
    try:
        if probe_dir:
            _note_main_pid(probe_dir)
            if os.environ.get(contract.PID_MARKER) == "1":
                _hold_pid_marker(probe_dir)
        _impose_profile()
        if probe_dir:
            import dlp_stacks

            dlp_stacks.arm(probe_dir, os.environ.get(contract.STACK_TRIGGER, "signal"))
            import dlp_probes  # beside this file: watches torch's DataLoader from outside the script

            dlp_probes.install(probe_dir)
    except Exception:
        _fail(probe_dir)


_main()
_chain_to_next_sitecustomize()
