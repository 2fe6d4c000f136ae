"""What a process does while it imports the main script again, as spawn's children and the
forkserver do (case 08): files opened for writing, directories made, files removed or renamed,
connections and downloads started by the script's own top level.

`watch(record)` wraps multiprocessing's `_fixup_main_from_path` (spawn's `prepare` and the
forkserver's preload both import the script through it) and, while it runs, an audit hook (PEP
578) records each such event whose cause is the script's top level: the script's frame is on the
stack, and no other module's top level (a library importing itself, which writes its own cache)
lies between. Events (dlp_probes lists the lines):
    import_main               this process imports the main script again
    import_effect <what> <path>
                              its top level did `what` (open-w: opened to write, emptying it;
                              open-x: created it; mkdir, remove, rename, rmtree, truncate,
                              connect, download) to `path` (relative to the working folder
                              where inside it; spaces as %20)
"""

import functools
import os
import sys

import dlp_contract as contract

EFFECTS_KEPT = 20  # events recorded per process: the first ones
# A file opened to be emptied or created; one opened to append to or to update changes nothing
# by being opened (`logging.basicConfig(filename=...)` opens its log to append), and is left out.
_EMPTIES = os.O_CREAT | os.O_TRUNC
_EVENTS = {
    "os.mkdir": "mkdir",
    "os.remove": "remove",
    "os.rename": "rename",
    "os.rmdir": "remove",
    "shutil.rmtree": "rmtree",
    "os.truncate": "truncate",
    "socket.connect": "connect",
    "urllib.Request": "download",
}


class _Watch:
    def __init__(self, record):
        self.record = record
        self.main_path = None  # the script being imported, while it is
        self.kept = 0
        self.recording = False  # the record's own open is not the script's

    def hook(self, event, args):
        if self.main_path is None or self.kept >= EFFECTS_KEPT or self.recording:
            return
        self.recording = True
        try:
            self._note(event, args)
        except Exception:  # an error in a hook would fail the script's own operation: none here
            pass
        finally:
            self.recording = False

    def _note(self, event, args):
        what = _effect(event, args)
        if what is None or _is_probes(event, args) or not self._caused_by_script():
            return
        self.kept += 1
        self.record("import_effect", what, _shown(_target(event, args)))

    def _caused_by_script(self):
        """The script's frame is on the stack, with no other module's top level after it."""
        frame = sys._getframe(3)  # _note, then hook, then the frame that raised the event
        while frame is not None:
            filename = frame.f_code.co_filename
            if os.path.abspath(filename) == self.main_path:
                return True
            if frame.f_code.co_name == "<module>" and not filename.startswith("<frozen"):
                return False  # a library's own import, under the script's import statement
            frame = frame.f_back
        return False


def _effect(event, args):
    if event == "open":
        path, mode, flags = args
        if not isinstance(path, (str, bytes)) or str(path).endswith((".pyc", ".pyc.tmp")):
            return None
        if isinstance(mode, str):
            writes = next((m for m in ("w", "x") if m in mode), None)
            return f"open-{writes}" if writes else None
        return "open-w" if isinstance(flags, int) and flags & _EMPTIES else None
    if event == "os.mkdir" and isinstance(args[0], (str, bytes, os.PathLike)) and os.path.isdir(args[0]):
        return None  # makedirs(..., exist_ok=True) of a folder there already: nothing made
    return _EVENTS.get(event)


def _is_probes(event, args):
    """The harness's own files (the probes record what the script's loaders do)."""
    probes = os.environ.get(contract.PROBE_DIR)
    path = args[0] if args and event != "socket.connect" else None
    if not probes or not isinstance(path, (str, bytes, os.PathLike)):
        return False
    return os.path.abspath(os.fsdecode(path)).startswith(os.path.abspath(probes) + os.sep)


def _target(event, args):
    """A path (relative to the working folder where inside it), an address or a URL."""
    if event == "socket.connect":
        return str(args[1])
    target = args[0] if args else ""
    if event == "urllib.Request" or not isinstance(target, (str, bytes, os.PathLike)):
        return str(target)
    here, full = os.getcwd(), os.path.abspath(os.fsdecode(target))
    return os.path.relpath(full, here) if full.startswith(here + os.sep) else full


def _shown(text):
    """One field of an event line: no spaces."""
    return text.replace("%", "%25").replace(" ", "%20") or "-"


def watch(record):
    """Watches this process's import of the main script, where it may make one: only a process
    that multiprocessing started with `python -c` (spawn's children, the forkserver) imports the
    script again; the script's own process and the processes fork made are left as they are."""
    if sys.argv[:1] != ["-c"]:
        return
    try:
        from multiprocessing import spawn
    except ImportError:
        return
    original = getattr(spawn, "_fixup_main_from_path", None)
    if original is None:  # another CPython layout: nothing watched
        return
    watcher = _Watch(record)
    sys.addaudithook(watcher.hook)

    @functools.wraps(original)
    def _fixup_main_from_path(main_path):
        if getattr(sys.modules.get("__main__"), "__file__", None) == main_path:
            return original(main_path)  # imported already (a fork of the forkserver): not again
        record("import_main")
        watcher.main_path = os.path.abspath(main_path)
        try:
            return original(main_path)
        finally:
            watcher.main_path = None

    spawn._fixup_main_from_path = _fixup_main_from_path
