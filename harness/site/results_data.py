"""The recorded results that the site shows: every results file, checked, and how to index them."""

from __future__ import annotations

import functools
from dataclasses import dataclass
from pathlib import Path

from .. import profiles, results
from ..results import ResultsFile, RunResult
from ..run.launch import How
from .wording import t


@dataclass(frozen=True)
class Recorded:
    """One results file: where it came from, and its results by (case, variant, start method)."""

    path: Path
    data: ResultsFile

    @property
    def environment(self) -> dict:
        return self.data.environment

    @property
    def system(self) -> str:
        return self.environment.get("os", "unknown")

    def get(self, case: str, variant: str, profile: str) -> RunResult | None:
        return self._index.get((case, variant, profile))

    def profiles_run(self) -> list[str]:
        """The profiles this file has results for, in the order of harness/profiles.py."""
        present = {r.profile for r in self.data.results}
        return [name for name in profiles.PROFILE_NAMES if name in present]

    def emulation(self, profile: str) -> str:
        """How this file's machine imitated `profile`; "" where it ran it natively."""
        return next((r.emulation for r in self.data.results if r.profile == profile and r.emulation), "")

    def how(self, profile: str) -> How | None:
        """How this file's machine made the runs of `profile` (a typed field of each result)."""
        return next((r.how for r in self.data.results if r.profile == profile and r.how), None)

    def native(self, profile: str) -> bool:
        ran = [r for r in self.data.results if r.profile == profile and r.outcome.was_judged]
        return bool(ran) and all(r.how and r.how.kind == How.NATIVE for r in ran)

    def how_ran(self, profile: str) -> str:
        """`How.kind`: "native" (observed on its own system), "emulated" (imitated by this machine's
        interpreter), or the launcher that ran another system's own binaries here ("wine")."""
        how = self.how(profile)
        return how.kind if how else How.EMULATED

    def ran_foreign(self, profile: str) -> bool:
        """Whether `profile` ran here as another system's own binaries (not emulated, not native)."""
        return self.how_ran(profile) not in (How.NATIVE, How.EMULATED)

    def label(self) -> str:
        """e.g. "Windows 10 · Python 3.12.7 · torch 2.13.0"."""
        env = self.environment
        system = profiles.SYSTEM_NAMES.get(self.system, self.system)
        release = f" {env['os_release']}" if self.system == "windows" and env.get("os_release") else ""
        return f"{system}{release} · Python {env.get('python')} · torch {env.get('torch')}"

    @functools.cached_property  # built once per file, not at every cell of every table
    def _index(self) -> dict:
        return {r.key: r for r in self.data.results}

    def describe(self) -> str:
        env = self.environment
        return t(
            "`{file}`: {system}, Python {python}, torch {torch}, numpy {numpy}, OpenCV {opencv}, "
            "{cpus} CPUs; recorded {at}",
            file=self.path.name, system=f"{env.get('os')} {env.get('os_release', '')}".strip(),
            python=env.get("python"), torch=env.get("torch"), numpy=env.get("numpy"),
            opencv=env.get("opencv") or t("none"), cpus=env.get("cpu_count"), at=env.get("recorded_at"),
        )  # fmt: skip


def load_all(results_dir: Path) -> list[Recorded]:
    """Every results file in `results_dir`, schema-checked; a bad one raises ResultsError naming it."""
    return [Recorded(path, results.load(path)) for path in sorted(results_dir.glob("*.json"))]


def reference(recorded: list[Recorded]) -> Recorded | None:
    """The Linux results file the emulated columns come from: the one that ran the most profiles
    (a file from another interpreter in a chroot ran one), the most recently recorded of those."""
    linux = [r for r in recorded if r.system == "linux"]
    return max(
        linux, key=lambda r: (len(r.profiles_run()), r.environment.get("recorded_at", "")), default=None
    )


def observed_columns(recorded: list[Recorded], ref: Recorded | None) -> list[tuple[Recorded, str]]:
    """(file, profile) for every profile that a results file other than the reference ran natively:
    each is a column of its own, never merged into an emulated one."""
    return [(r, name) for r in recorded if r is not ref for name in r.profiles_run() if r.native(name)]
