"""`check`'s progress while it waits: a line per finished run, and every PROGRESS_EVERY_S the runs
still going with how long each has run, so that a long wait (runs under Wine, a script slow to its
first batch) never looks like a hang of `check` itself."""

from __future__ import annotations

import contextlib
import threading
import time

from rich.console import Console
from rich.markup import escape

PROGRESS_EVERY_S = 30.0


class Progress:
    """Prints to `console` as runs start and end; a context manager whose thread names the runs
    still going every `every_s` seconds."""

    def __init__(self, console: Console, total: int, every_s: float = PROGRESS_EVERY_S) -> None:
        self.console = console
        self.total = total
        self.every_s = every_s
        self.started = time.monotonic()
        self._running: dict[str, float] = {}
        self._finished = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._tell, name="dlp-check-progress", daemon=True)

    def __enter__(self) -> Progress:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    @contextlib.contextmanager
    def running(self, name: str):
        """Marks the run of profile `name` as going while the block runs."""
        with self._lock:
            self._running[name] = time.monotonic()
        try:
            yield
        finally:
            with self._lock:
                self._running.pop(name, None)

    def done(self, result) -> None:
        """One run finished: its profile, outcome and time."""
        with self._lock:
            self._finished += 1
            count = self._finished
        took = f"{result.duration_s:.0f} s"
        self.console.print(
            f"  [{count}/{self.total}] {escape(result.profile)} → {result.outcome} ({took})", highlight=False
        )

    def still_going(self) -> str:
        """The runs going now, with how long each has run ("" when none)."""
        now = time.monotonic()
        with self._lock:
            going = sorted(self._running.items(), key=lambda item: item[1])
        return ", ".join(f"{name} {now - since:.0f} s" for name, since in going)

    def _tell(self) -> None:
        while not self._stop.wait(self.every_s):
            if going := self.still_going():
                elapsed = time.monotonic() - self.started
                self.console.print(f"  … {elapsed:.0f} s: still running: {escape(going)}", highlight=False)
