"""Hides from a Python process on Linux what Windows does not have, so that code which needs it
fails the way it fails on Windows.

`hide_from_script()` is what the `windows` profile imposes on a script and its workers: only the
spawn start method (`get_context("fork")` raises ValueError, as on Windows), no `os.fork`, no
`resource` or `fcntl` module (ModuleNotFoundError), and torch's DataLoader without the SIGCHLD
handler that it does not install on Windows. The modules are hidden from the script and its own
modules, not from installed packages: a package's Linux build (psutil's imports `resource`) is what
runs here, and its Windows build would not import them at all, so hiding them from it would
invent a crash that Windows never has. It also makes every descriptor a process inherited
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
    """A meta path finder for which the hidden modules do not exist, except for an installed
    package's import of them (`_installed`); once one is loaded, `_guard` keeps it from the script."""

    def __init__(self, names):
        self.names = set(names)
        self.guarded = False

    def find_spec(self, fullname, path, target=None):
        if fullname not in self.names:
            return None
        if not _installed(_importer(sys._getframe(1))):
            raise ModuleNotFoundError(f"No module named '{fullname}'", name=fullname)
        if not self.guarded:
            _guard(self.names)
            self.guarded = True
        return None


def _installed(path):
    """Whether a module's file belongs to an installed package (site-packages, dist-packages)."""
    parts = path.replace("\\", "/").split("/")
    return "site-packages" in parts or "dist-packages" in parts


def _importer(frame):
    """The file of the innermost frame that is not the import system's (or this module's)."""
    while frame is not None:
        path = frame.f_code.co_filename
        if not (path.startswith("<frozen") or path == __file__ or "/importlib/" in path.replace("\\", "/")):
            return path
        frame = frame.f_back
    return ""


def _guard(names):
    """`import` statements of the hidden modules fail outside installed packages, also once a
    package loaded one into sys.modules (where the finder is no longer asked)."""
    import builtins

    original = builtins.__import__

    def __import__(name, globals=None, locals=None, fromlist=(), level=0):
        if level == 0 and name in names and not _installed((globals or {}).get("__file__") or ""):
            raise ModuleNotFoundError(f"No module named '{name}'", name=name)
        return original(name, globals, locals, fromlist, level)

    builtins.__import__ = __import__


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
