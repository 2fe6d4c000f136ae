"""The recorded results that the site shows: every results file, checked, and how to index them."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from harness import results
from harness.results import ResultsFile, RunResult

SPAWN_SYSTEMS = {"windows": "Windows", "darwin": "macOS"}


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

    def get(self, case: str, variant: str, method: str) -> RunResult | None:
        return self._index.get((case, variant, method))

    @property
    def _index(self) -> dict:
        return {r.key: r for r in self.data.results}

    def describe(self) -> str:
        env = self.environment
        return (
            f"`{self.path.name}`: {env.get('os')} {env.get('os_release', '')}, Python {env.get('python')}, "
            f"torch {env.get('torch')}, numpy {env.get('numpy')}, OpenCV {env.get('opencv') or 'none'}, "
            f"{env.get('cpu_count')} CPUs; recorded {env.get('recorded_at')}"
        )


def load_all(results_dir: Path) -> list[Recorded]:
    """Every results file in `results_dir`, schema-checked; a bad one raises ResultsError naming it."""
    return [Recorded(path, results.load(path)) for path in sorted(results_dir.glob("*.json"))]


def reference(recorded: list[Recorded]) -> Recorded | None:
    """The Linux results file the emulated columns come from: the most recently recorded one."""
    linux = [r for r in recorded if r.system == "linux"]
    return max(linux, key=lambda r: r.environment.get("recorded_at", ""), default=None)


def real_spawn_systems(recorded: list[Recorded]) -> list[Recorded]:
    """Results files recorded on real Windows or macOS, shown beside the emulated spawn column."""
    return [r for r in recorded if r.system in SPAWN_SYSTEMS]
