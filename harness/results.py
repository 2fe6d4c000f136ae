"""Results as data: one RunResult per run, one results file per environment, schema-checked."""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

import filelock

from .outcomes import Outcome
from .run.launch import How

SCHEMA_VERSION = 5  # 5: `how`, how the run was made, as typed fields
RESULTS_DIR = Path(__file__).resolve().parent.parent / "results"


def _file_mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


_FILE_MODE = _file_mode()


class ResultsError(Exception):
    """A results file cannot be used; the message names it."""


class OlderSchemaError(ResultsError):
    """A results file written by an older harness: readable by none, replaced by a new run."""


@dataclass(frozen=True)
class RunResult:
    """What one run of one script under one profile showed; a copy with changes: dataclasses.replace."""

    case: str
    variant: str
    profile: str  # harness/profiles.py: linux, linux-3.14, windows, macos
    outcome: Outcome
    start_method: str = ""  # the profile's
    emulation: str = ""  # how the profile was imitated on this machine, in words; "" where it ran natively
    how: How | None = None  # how the run was made: launcher, interpreter, Python version, emulated
    signature: str = ""
    expected: Outcome | None = None  # as case.toml said at the time of the run ("" in the JSON: none)
    expected_signature: str | None = None
    expected_unverified: bool = False  # case.toml marks that expectation as not yet observed
    matched: bool | None = None  # None: nothing to compare (skipped, or no expectation)
    returncode: int | None = None
    signal: str | None = None
    duration_s: float = 0.0
    output_tail: str = ""
    stacks: dict[str, str] = field(default_factory=dict)  # pid -> faulthandler dump, for hangs
    native_stacks: dict[str, str] = field(default_factory=dict)  # pid -> py-spy --native dump
    native_stacks_note: str = ""  # why native stacks are missing, for hangs
    memory: dict | None = None  # per-process series and per-worker summary (see harness.run.memory)
    loader_epochs: list[dict] = field(default_factory=list)  # started_s, first_batch_s, batches, fds…
    first_batches: dict = field(default_factory=dict)  # {loader seed: {worker: hash}} (IterableDataset)
    streams: dict = field(default_factory=dict)  # {loader seed: {workers, items, distinct, shared, whole}}
    import_effects: dict = field(default_factory=dict)  # {processes, effects}: the script imported again
    dataset_sizes: dict = field(default_factory=dict)  # {path: length} of the Datasets' containers
    dataset_bytes: dict = field(default_factory=dict)  # {path: bytes} of Python objects they hold
    logging: dict = field(default_factory=dict)  # main's logging setup, workers' records (dlp_logging)
    rng: dict = field(default_factory=dict)  # {loader seed: {generator path: {worker: state hash}}}
    samples: dict = field(default_factory=dict)  # {fetched: {dataset:index: digest}, random, varied}
    stopped_after_batches: int | None = None  # `check` ended it once its loaders had delivered these
    leftovers: list[str] = field(default_factory=list)  # processes that outlived the script, killed
    shm_leftovers: list[str] = field(default_factory=list)  # /dev/shm entries it left, removed
    not_removed: list[str] = field(default_factory=list)  # the harness's own folders it could not remove
    # What its confinements saw, by name (harness/run/confine/: a memory cgroup's oom_kills and
    # cgroup_peak_mb, the most it held, page cache included)
    confined: dict = field(default_factory=dict)
    reason: str = ""  # why it was skipped, or how the harness failed
    limits: dict = field(default_factory=dict)  # the run's timeout_s, idle_s, stall_s, memory_limit_mb

    def __post_init__(self) -> None:
        # The enum is the type; a name ("crash", as in the JSON) is taken and checked.
        if isinstance(self.outcome, str):
            object.__setattr__(self, "outcome", Outcome.named(self.outcome))
        if isinstance(self.expected, str):
            object.__setattr__(self, "expected", Outcome.named(self.expected) if self.expected else None)
        if isinstance(self.how, dict):
            object.__setattr__(self, "how", How.from_json(self.how))

    def to_json(self) -> dict:
        data = asdict(self)
        data["outcome"] = self.outcome.value
        data["expected"] = self.expected.value if self.expected else ""
        data["how"] = self.how.to_json() if self.how else None
        return data

    @classmethod
    def from_json(cls, data: dict) -> RunResult:
        data = _confined_facts(data)
        known = {f.name for f in fields(cls)}
        unknown = set(data) - known
        if unknown:
            raise ResultsError(f"unknown result fields: {', '.join(sorted(unknown))}")
        try:
            return cls(**data)
        except (ValueError, KeyError) as exc:  # an unknown outcome name, a `how` lacking a field
            raise ResultsError(str(exc)) from None

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.case, self.variant, self.profile)

    @property
    def native(self) -> bool:
        """Observed on the profile's own system, nothing emulated (its `how` says so)."""
        return self.how is not None and self.how.kind == How.NATIVE


# What a confinement saw, as results written before `confined` held it recorded it: a field each.
_FACTS_OF_OLD = ("oom_kills", "cgroup_peak_mb")


def _confined_facts(data: dict) -> dict:
    """A result as recorded, with the facts that older results kept as fields of their own (None
    when not confined) read into `confined`."""
    if not any(name in data for name in _FACTS_OF_OLD):
        return data
    data = dict(data)
    old = {name: data.pop(name) for name in _FACTS_OF_OLD if name in data}
    data["confined"] = {**{k: v for k, v in old.items() if v is not None}, **data.get("confined", {})}
    return data


@dataclass
class ResultsFile:
    environment: dict
    results: list[RunResult]

    def to_json(self) -> dict:
        ordered = sorted(self.results, key=lambda r: r.key)
        return {
            "schema": SCHEMA_VERSION,
            "environment": self.environment,
            "results": [r.to_json() for r in ordered],
        }

    @classmethod
    def from_json(cls, data: dict, source: str = "results") -> ResultsFile:
        if not isinstance(data, dict) or "schema" not in data:
            raise ResultsError(f"{source}: not a results file (no 'schema' key)")
        if data["schema"] != SCHEMA_VERSION:
            older = isinstance(data["schema"], int) and data["schema"] < SCHEMA_VERSION
            error = OlderSchemaError if older else ResultsError
            raise error(f"{source}: schema version {data['schema']!r}, this harness reads {SCHEMA_VERSION}")
        try:
            results = [RunResult.from_json(r) for r in data["results"]]
            return cls(environment=dict(data["environment"]), results=results)
        except (KeyError, TypeError, ResultsError) as exc:
            raise ResultsError(f"{source}: damaged results file: {exc}") from None

    def merged(self, newer: list[RunResult], environment: dict) -> ResultsFile:
        """This file with `newer` replacing the results of the same case, variant and profile."""
        by_key = {r.key: r for r in self.results}
        by_key.update({r.key: r for r in newer})
        return ResultsFile(environment=environment, results=list(by_key.values()))


def load(path: Path) -> ResultsFile:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ResultsError(f"{path}: no such results file") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ResultsError(f"{path}: damaged results file: {exc}") from None
    return ResultsFile.from_json(data, source=str(path))


def save(path: Path, results_file: ResultsFile) -> None:
    write_json(path, results_file.to_json())


def write_json(path: Path, data: dict) -> None:
    """Writes atomically: a reader sees the old file or the new one, never half of one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.chmod(temp, _FILE_MODE)  # mkstemp makes it private; a results file is for everyone
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, path)
    except BaseException:
        os.unlink(temp)
        raise


def record(path: Path, newer: list[RunResult], environment: dict) -> ResultsFile:
    """Merges `newer` into the results file at `path` (created if absent) and saves it.

    A file of an older schema is replaced; a damaged or newer one is refused (ResultsError).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    with _locked(path):  # two harness runs recording at once: each merges into what the other wrote
        existing = ResultsFile(environment=environment, results=[])
        if path.exists():
            with contextlib.suppress(OlderSchemaError):
                existing = load(path)
        updated = existing.merged(newer, environment)
        save(path, updated)
    return updated


def recorded_durations(*paths: Path) -> dict[tuple[str, str, str], float]:
    """How long each (case, variant, profile) took in the results files at `paths` that can be read
    (the later file's figure where two have one): what the scheduler orders runs by."""
    durations: dict[tuple[str, str, str], float] = {}
    for path in paths:
        try:
            recorded = load(path).results
        except (OSError, ValueError, ResultsError):
            continue
        durations.update({r.key: r.duration_s for r in recorded if r.duration_s})
    return durations


def _locked(path: Path) -> filelock.BaseFileLock:
    """An exclusive lock on `<path>.lock` (flock on POSIX, msvcrt locking on Windows)."""
    return filelock.FileLock(path.with_name(path.name + ".lock"))
