"""The fixed vocabulary of outcomes: what a run can be judged to be (harness/judge.py judges)."""

from __future__ import annotations

import enum


class Outcome(str, enum.Enum):
    OK = "ok"  # the script exited 0
    CRASH = "crash"  # it failed: a non-zero exit or a signal, with a signature
    HANG = "hang"  # it was still running at its timeout; the stacks were recorded
    WRONG = "wrong"  # its own AssertionError fired: a silent bug made visible
    LEAK = "leak"  # measured worker memory grew past the case's threshold
    SLOW = "slow"  # measured start-up waits took more than the case's share of later epochs
    SKIPPED = "skipped"  # a need of the case is missing here (e.g. a GPU); not run
    ERROR = "error"  # the harness itself failed to run it

    def __str__(self) -> str:
        return self.value

    @classmethod
    def named(cls, name: str) -> Outcome:
        """The outcome called `name` in a results file or case.toml; ValueError naming the choices."""
        try:
            return cls(name)
        except ValueError:
            raise ValueError(f"unknown outcome '{name}' (one of {', '.join(OUTCOME_NAMES)})") from None

    @property
    def is_failure(self) -> bool:
        """The run showed a problem: anything but ok, and skipped (which was never run)."""
        return self not in (Outcome.OK, Outcome.SKIPPED)

    @property
    def was_judged(self) -> bool:
        """The script ran and the harness judged it: neither skipped nor a failure of the harness."""
        return self not in (Outcome.SKIPPED, Outcome.ERROR)

    @property
    def script_raised(self) -> bool:
        """The script's own code ended it with an exception: a crash, or its assert (wrong)."""
        return self in (Outcome.CRASH, Outcome.WRONG)

    @property
    def style(self) -> str:
        """How a terminal shows it (rich style)."""
        return _STYLES[self]


OUTCOME_NAMES = tuple(o.value for o in Outcome)
_STYLES = {
    Outcome.OK: "green",
    Outcome.CRASH: "red",
    Outcome.HANG: "magenta",
    Outcome.WRONG: "yellow",
    Outcome.LEAK: "yellow",
    Outcome.SLOW: "yellow",
    Outcome.SKIPPED: "dim",
    Outcome.ERROR: "bold red",
}
