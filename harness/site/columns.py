"""The site's columns of observations: one per (results file, profile), grouped by the system they
stand for, each saying what produced it (observed there, Windows' binaries under Wine, emulated).

The comparison table, a case page's observed table and its predict answer all show these columns in
this order: per system (Linux, Windows, macOS), the columns observed natively first (oldest Python
first), then those run by another system's binaries, then the emulated ones.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..profiles import PROFILES, SYSTEM_NAMES
from ..results import RunResult
from ..run.launch import How
from . import how_words
from .results_data import Recorded, observed_columns
from .wording import N_, t

SYSTEM_ORDER = tuple(SYSTEM_NAMES)  # linux, windows, darwin
KIND_ORDER = (How.NATIVE, How.EMULATED)  # a launcher of foreign binaries sits between them


# What produced a column, in a word and in full (its heading's tooltip), by `How.kind`.
PRODUCED_BY = {
    How.NATIVE: N_("observed"),
    How.EMULATED: N_("emulated on Linux"),
    "wine": N_("Windows binaries under Wine"),
}
DESCRIBED = {
    How.NATIVE: N_("observed: {label}"),
    How.EMULATED: N_("emulated on {system}, Python {python}"),
    "wine": N_("{how}, on Linux"),
}


@dataclass(frozen=True)
class Column:
    source: Recorded
    profile: str

    @property
    def system(self) -> str:
        return PROFILES[self.profile].system

    @property
    def kind(self) -> str:
        """ "native", "emulated" or a foreign launcher's name ("wine"): what produced the column."""
        return How.NATIVE if self.source.native(self.profile) else self.source.how_ran(self.profile)

    @property
    def python(self) -> str:
        """The Python that ran it ("3.14.10"); for an emulation, the one it imitates ("3.14")."""
        how = self.source.how(self.profile)
        if self.kind == How.EMULATED:
            since = PROFILES[self.profile].native_from
            return ".".join(map(str, since[:2])) if since else ""
        return how.python if how else self.source.environment.get("python", "")

    def get(self, case: str, variant: str) -> RunResult | None:
        return self.source.get(case, variant, self.profile)

    def sort_key(self) -> tuple:
        kind = KIND_ORDER.index(self.kind) * 2 if self.kind in KIND_ORDER else 1
        version = tuple(int(part) for part in self.python.split(".") if part.isdigit())
        return (SYSTEM_ORDER.index(self.system) if self.system in SYSTEM_ORDER else 9, kind, version)

    def system_name(self) -> str:
        return SYSTEM_NAMES.get(self.system, self.system)

    def heading(self) -> str:
        """Its heading under the system's: "Python 3.11.7 · fork", "Python 3.14 · forkserver"."""
        method = PROFILES[self.profile].start_method
        return f"Python {self.python} · {method}" if self.python else method

    def produced_by(self) -> str:
        """ "observed", "Windows binaries under Wine", "emulated on Linux"."""
        return t(PRODUCED_BY[self.kind])

    def label(self) -> str:
        """The whole name of the column, for a card on a narrow screen or a cell's tooltip."""
        return f"{self.system_name()} · {self.heading()} · {self.produced_by()}"

    def described(self) -> str:
        """Where it was recorded and how, as the column's tooltip says it."""
        source, profile = self.source, self.profile
        python = source.environment.get("python", "?")
        system = SYSTEM_NAMES.get(source.system, source.system)
        return t(
            DESCRIBED[self.kind],
            label=source.label(),
            how=how_words.plain(source.emulation(profile)),
            system=system,
            python=python,
        )


def columns(reference: Recorded | None, recorded: list[Recorded]) -> list[Column]:
    """Every (results file, profile) the files ran, in the site's order."""
    if reference is None:
        found = [Column(source, profile) for source in recorded for profile in source.profiles_run()]
    else:  # an emulated or foreign column comes only from the reference file
        found = [Column(reference, profile) for profile in reference.profiles_run()]
        found += [Column(source, profile) for source, profile in observed_columns(recorded, reference)]
    return sorted(found, key=Column.sort_key)


def groups(found: list[Column]) -> list[tuple[str, list[Column]]]:
    """The columns by system, in order: [("Linux", [...]), ("Windows", [...]), ...]."""
    grouped: dict[str, list[Column]] = {}
    for column in found:
        grouped.setdefault(column.system_name(), []).append(column)
    return list(grouped.items())
