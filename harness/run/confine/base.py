"""The confinement interface (harness/run/confine/__init__.py says the family): `Confinement`, one
way of confining a run that its settings ask for by a size, and `Confined`, one run's."""

from __future__ import annotations

from abc import ABC, abstractmethod

from ..observation import Observation
from ..settings import RunSettings


class Confined(ABC):
    """One run's confinement, made before the run and closed after it."""

    @abstractmethod
    def wrap(self, command: list[str]) -> tuple[list[str], dict[str, str]]:
        """The command that runs `command` confined, and the variables it reads."""

    def observe(self, observation: Observation) -> None:  # noqa: B027  (most observe nothing)
        """Adds what the confinement saw of the ended run to its observation."""

    def close(self) -> str:
        """Undoes what was made for the run; "" when it is gone, else what is left and why (never
        raised: the run's result stands)."""
        return ""


class Confinement(ABC):
    """One way of confining a run, as a Linux container or job is: asked for by the RunSettings
    field `setting` (a size in MB, None for none)."""

    setting: str
    # Why a profile of another system has no such confinement: {title} (the profile's), {size_mb}.
    elsewhere: str

    def size_mb(self, settings: RunSettings) -> float | None:
        return getattr(settings, self.setting)

    def unavailable(self, settings: RunSettings, system: str, title: str) -> str:
        """Why a run with `settings` for a platform `system` (a profile's, titled `title`) cannot be
        confined this way here; "" when it can, or none is asked for."""
        size_mb = self.size_mb(settings)
        if size_mb is None:
            return ""
        if system != "linux":  # a container's or job's confinement: Linux's own
            return self.elsewhere.format(title=title, size_mb=size_mb)
        return self.cannot_here()

    @abstractmethod
    def cannot_here(self) -> str:
        """Why this machine cannot confine a run this way (asked once); "" when it can."""

    @abstractmethod
    def make(self, size_mb: float) -> Confined:
        """One run's confinement of `size_mb`; OSError where it cannot be made."""
