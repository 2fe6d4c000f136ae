"""The confinement interface (harness/run/confine/__init__.py says the family): `Confinement`, one
way of confining a run that its settings ask for by a size, declared once, and `Confined`, one
run's."""

from __future__ import annotations

from abc import ABC, abstractmethod

from ..observation import Observation
from ..settings import RunSettings


def then_exec(step: str, command: list[str]) -> list[str]:
    """`command` run by a shell in its own place once `step` (a shell command) succeeded: the run
    keeps its pid, session and process tree, and what `step` set (a cgroup, a limit) holds for it."""
    return ["sh", "-c", f'{step} && exec "$0" "$@"', *command]


class Confined(ABC):
    """One run's confinement, made before the run and closed after it."""

    @abstractmethod
    def wrap(self, command: list[str]) -> tuple[list[str], dict[str, str]]:
        """The command that runs `command` confined, and the variables it reads."""

    def observe(self, observation: Observation) -> None:  # noqa: B027  (most observe nothing)
        """Adds what the confinement saw of the ended run to its observation: facts by name in
        `observation.confined` (recorded with the result), and where its limit ended a process,
        how (`ended`, in words: the run's outcome is then that crash) and how many
        (`ended_processes`)."""

    def close(self) -> str:
        """Undoes what was made for the run; "" when it is gone, else what is left and why (never
        raised: the run's result stands)."""
        return ""


class Confinement(ABC):
    """One way of confining a run, as a Linux container or job is, declared once here: the rest
    of the harness (the runner, `check`'s options, case.toml, the settings, the recorded limits
    and the pages) reads these and names no confinement.

    A run asks for it by a size in `RunSettings.confined[setting]` (None or absent: none)."""

    setting: str  # its key in RunSettings.confined, in case.toml and in a run's recorded limits
    option: str  # check's command-line option ("--shm-mb")
    metavar: str = "MB"
    whole: bool = False  # its size is a count (an int), not a size in MB
    help: str  # the option's help
    planned: str  # how a plan or a profile says it, with {size}: "with a /dev/shm of {size} MB"
    # How a case's exercise page says what its option does, with {size}: the site translates it
    # (harness/site/locale), so a new confinement adds its words there too.
    exercise: str
    order: int  # its place among the others, innermost first: it wraps those of a lower order
    systems: tuple[str, ...] = ("Linux",)  # the platforms that have it, as platform.system() names them
    # Why a profile of another system has no such confinement: {title} (the profile's), {size}.
    elsewhere: str

    def size(self, settings: RunSettings) -> float | None:
        return settings.confined.get(self.setting)

    def unavailable(self, settings: RunSettings, system: str, title: str) -> str:
        """Why a run with `settings` for a platform `system` (a profile's, titled `title`) cannot be
        confined this way here; "" when it can, or none is asked for."""
        size = self.size(settings)
        if size is None:
            return ""
        if system not in {name.lower() for name in self.systems}:  # a profile's `system`
            return self.elsewhere.format(title=title, size=size)
        return self.cannot_here()

    @abstractmethod
    def cannot_here(self) -> str:
        """Why this machine cannot confine a run this way (asked once); "" when it can."""

    @abstractmethod
    def make(self, size: float) -> Confined:
        """One run's confinement of `size`; OSError where it cannot be made."""
