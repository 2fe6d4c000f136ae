"""Hides from a Python process on Linux what Windows does not have, so that code which needs it
fails the way it fails on Windows.

`hide_from_script()` is what the `windows` profile imposes on a script and its workers: only the
spawn start method (`get_context("fork")` raises ValueError, as on Windows), no `os.fork`, no
`resource` or `fcntl` module (ModuleNotFoundError), and torch's DataLoader without the SIGCHLD
handler that it does not install on Windows. It also makes every descriptor a process inherited
non-inheritable, as every handle is on Windows unless passed on purpose (PEP 446): otherwise
the `torch_shm_manager` that a Linux worker fork-execs for the file_system strategy (Windows has
none) holds the write end of that worker's spawn sentinel pipe, and the DataLoader waits 5 s per
worker at shutdown for an exit that Windows reports at once. What it cannot hide is named in the docs: the
interpreter is still Linux's (`sys.platform`, paths, signals, the file system).
"""

import contextlib
import os
import sys

SCRIPT_MODULES = ("resource", "fcntl")
SCRIPT_OS_NAMES = ("fork", "forkpty")


class _Missing:
    """A meta path finder for which the hidden modules do not exist."""

    def __init__(self, names):
        self.names = set(names)

    def find_spec(self, fullname, path, target=None):
        if fullname in self.names:
            raise ModuleNotFoundError(f"No module named '{fullname}'", name=fullname)
        return None


def hide(modules=(), os_names=(), signal_names=()) -> None:
    """Makes `modules` unimportable and removes the named attributes of os and signal."""
    import signal

    for name in modules:
        sys.modules.pop(name, None)
    if modules:
        sys.meta_path.insert(0, _Missing(modules))
    for name in os_names:
        if hasattr(os, name):
            delattr(os, name)
    for name in signal_names:
        if hasattr(signal, name):
            delattr(signal, name)


def spawn_only() -> None:
    """multiprocessing with spawn as its only start method, as on Windows."""
    import multiprocessing
    from multiprocessing import context

    for method in ("fork", "forkserver"):
        context._concrete_contexts.pop(method, None)

    def get_all_start_methods(self=None):
        return ["spawn"]

    context.DefaultContext.get_all_start_methods = get_all_start_methods
    multiprocessing.get_all_start_methods = get_all_start_methods  # bound when multiprocessing loaded


def no_inherited_descriptors() -> None:
    """Every descriptor above stderr that this process inherited becomes non-inheritable again.

    multiprocessing's spawn passes its pipes with `pass_fds`, which leaves them inheritable in the
    child, so any program the child execs (torch_shm_manager) keeps them open. Python's own
    children are unaffected: subprocess and spawn pass what they need explicitly.
    """
    try:
        descriptors = [int(name) for name in os.listdir("/proc/self/fd")]
    except OSError:
        return
    for fd in descriptors:
        if fd > 2:
            with contextlib.suppress(OSError):  # the listing's own descriptor, closed by now
                os.set_inheritable(fd, False)


def hide_from_script() -> None:
    import dlp_probes

    no_inherited_descriptors()
    spawn_only()
    hide(SCRIPT_MODULES, SCRIPT_OS_NAMES)
    dlp_probes.patch_on_import({"torch.utils.data._utils.signal_handling": _no_sigchld_handler})


def _no_sigchld_handler(module) -> None:
    module._set_SIGCHLD_handler = lambda: None
