"""Experiments: the measurements the course quotes that are not a case's run under a profile.

A throughput table by start method and threads, how often a hang happens in ten runs, a race's
count of wrong lines: each is a script run a few times through the harness (its own folder, a
timeout, the hang detector), its figures read from what it prints. `experiments.toml` beside the
scripts declares each one; `python -m harness experiment NAME` runs it and writes
results/experiments/NAME.json, and the pages quote that file (`<!-- dlp:fig experiment ... -->`,
harness/site/figures.py), so a figure in the prose is always the one last recorded.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from . import environment, profiles, results
from .cases import tomllib

ROOT = Path(__file__).resolve().parents[1]
DECLARATIONS = ROOT / "tests" / "scripts" / "experiments.toml"
RECORDED_DIR = results.RESULTS_DIR / "experiments"
SCHEMA = 1


class ExperimentError(Exception):
    """A declaration that cannot be run, or a recorded file that cannot be read; says which."""


@dataclass(frozen=True)
class Run:
    """One line of an experiment: a script with its arguments, run `repeat` times; with `replace`,
    a copy of the script with each (old, new) text replaced, as a reader would edit it to try."""

    label: str
    script: Path
    args: tuple[str, ...]
    repeat: int
    timeout_s: float
    profile: str
    replace: tuple[tuple[str, str], ...] = ()
    memory_mb: float | None = None  # a memory cgroup of this size, as a container's limit

    def edited(self, folder: Path) -> Path:
        """The script to run: the script itself, or its edited copy written into `folder`."""
        if not self.replace:
            return self.script
        text = self.script.read_text(encoding="utf-8")
        for old, new in self.replace:
            text = text.replace(old, new)
        copy = folder / self.script.name
        copy.write_text(text, encoding="utf-8")
        return copy


@dataclass(frozen=True)
class Experiment:
    name: str
    about: str
    runs: tuple[Run, ...]
    measure: dict[str, re.Pattern]  # a figure's name → the pattern whose group 1 is its number

    def measured(self, output: str) -> dict[str, list[float]]:
        """Every number each pattern finds in a run's output (thousands separators dropped)."""
        return {
            key: [float(found.replace(",", "")) for found in pattern.findall(output)]
            for key, pattern in self.measure.items()
        }


def declared(path: Path = DECLARATIONS) -> dict[str, Experiment]:
    """Every experiment the declarations file names; a bad entry raises ExperimentError naming it."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ExperimentError(f"{path}: {exc}") from None
    return {name: _experiment(name, entry, path) for name, entry in data.items()}


def _experiment(name: str, entry: dict, path: Path) -> Experiment:
    where = f"{path.name} [{name}]"
    try:
        runs = tuple(_run(run, entry) for run in entry["runs"])
        measure = {key: re.compile(pattern) for key, pattern in entry.get("measure", {}).items()}
        experiment = Experiment(name, entry["about"], runs, measure)
    except (KeyError, TypeError, re.error) as exc:
        raise ExperimentError(f"{where}: {type(exc).__name__}: {exc}") from None
    for run in runs:
        if not run.script.is_file():
            raise ExperimentError(f"{where} run {run.label}: no script {run.script}")
        for old, _ in run.replace:
            if old not in run.script.read_text(encoding="utf-8"):
                raise ExperimentError(f"{where} run {run.label}: {run.script.name} has no {old!r} to replace")
    if len({run.label for run in runs}) != len(runs):
        raise ExperimentError(f"{where}: two runs have the same label")
    return experiment


def _run(run: dict, entry: dict) -> Run:
    """A run's own settings, or the experiment's where it has none."""

    def setting(key: str, default=None):
        return run.get(key, entry.get(key, default))

    return Run(
        label=run["label"],
        script=ROOT / setting("script"),
        args=tuple(run.get("args", ())),
        repeat=int(setting("repeat", 1)),
        timeout_s=float(setting("timeout", 60)),
        profile=setting("profile", profiles.BASELINE),
        replace=tuple((old, new) for old, new in run.get("replace", ())),
        memory_mb=float(memory) if (memory := setting("memory_mb")) else None,
    )


def recorded_path(name: str, recorded_dir: Path = RECORDED_DIR) -> Path:
    return recorded_dir / f"{name}.json"


def record(experiment: Experiment, observed: list[tuple[Run, object]], path: Path) -> dict:
    """Writes what the runs observed (replacing the experiment's earlier file) and returns it."""
    data = {
        "schema": SCHEMA,
        "experiment": experiment.name,
        "about": experiment.about,
        "command": f"python -m harness experiment {experiment.name}",
        "environment": environment.describe(),
        "runs": [_observation(experiment, run, result) for run, result in observed],
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    results.write_json(path, data)
    return data


def _observation(experiment: Experiment, run: Run, result) -> dict:
    return {
        "label": run.label,
        "script": _shown(run.script),
        "args": list(run.args),
        "replace": [list(pair) for pair in run.replace],
        "profile": result.profile,
        "outcome": str(result.outcome),
        "signature": result.signature,
        "duration_s": result.duration_s,
        "timeout_s": run.timeout_s,
        **(
            {"memory_cgroup_mb": run.memory_mb, "cgroup_peak_mb": result.confined.get("cgroup_peak_mb")}
            if run.memory_mb
            else {}
        ),
        "measured": experiment.measured(result.output_tail),
    }


def _shown(script: Path) -> str:
    """The script's path from the repository root, where it is in the repository."""
    return (script.relative_to(ROOT) if script.is_relative_to(ROOT) else script).as_posix()


def load_recorded(recorded_dir: Path = RECORDED_DIR) -> dict[str, dict]:
    """Every recorded experiment by name; a file of another schema raises ExperimentError."""
    found = {}
    for path in sorted(recorded_dir.glob("*.json")) if recorded_dir.is_dir() else ():
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise ExperimentError(f"{path}: damaged: {exc}") from None
        if data.get("schema") != SCHEMA:
            raise ExperimentError(f"{path}: schema {data.get('schema')!r}, this harness reads {SCHEMA}")
        found[path.stem] = data
    return found
