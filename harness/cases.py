"""The case catalog: each `cases/NN_slug/` folder with its `case.toml`, loaded and validated."""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, field, replace
from pathlib import Path

from . import INSTALLED
from .measurements import MEASURES
from .outcomes import Outcome
from .profiles import PROFILE_NAMES, START_METHODS, Profile
from .recognition import Pattern, Recognition
from .run import confine
from .run.needs import KNOWN as KNOWN_NEEDS
from .run.settings import RunSettings

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

VARIANTS = ("broken", "fixed")
# In a clone, the cases/ folder beside harness/; installed from a wheel, the copy it carries.
_PACKAGED_CASES = Path(__file__).resolve().parent / "catalog"
CASES_DIR = _PACKAGED_CASES if INSTALLED else Path(__file__).resolve().parent.parent / "cases"
TOP_LEVEL_KEYS = (
    "title",
    "summary",
    "tags",
    "timeout",
    "needs",
    "stdin",
    "memory_limit_mb",
    *(way.setting for way in confine.ORDER),
    "memory",
    "timing",
    "diagnose",
    "expect",
)
_FOLDER_NAME = re.compile(r"^(?P<number>\d{2})_(?P<slug>[a-z0-9_]+)$")


class CaseError(Exception):
    """A case folder or its case.toml is unusable; the message names the file and the problem."""


@dataclass(frozen=True)
class Expectation:
    """What a case.toml says a run should show: an outcome and, optionally, a signature regex."""

    outcome: Outcome
    signature: str | None = None
    note: str = ""
    unverified: bool = False  # not yet observed on a machine that can run it (e.g. with a GPU)
    profile: str | None = (
        None  # the profile it overrides for ([expect.<variant>.<profile>]); None: a start method's
    )

    def matches(self, outcome: Outcome, signature: str) -> bool:
        if outcome != self.outcome:
            return False
        return self.signature is None or re.search(self.signature, signature) is not None


@dataclass(frozen=True)
class Case:
    number: str
    slug: str
    path: Path
    title: str
    summary: str
    tags: tuple[str, ...]
    timeout: float
    needs: tuple[str, ...]
    expect: dict[tuple[str, str], Expectation] = field(repr=False)  # (variant, start method or profile)
    memory_limit_mb: float | None = None  # the harness stops a run that takes more (None: its default)
    memory_interval_s: float | None = None  # sample each process's memory this often ([memory])
    leak_threshold_mb: float | None = None  # a worker growing more than this is a leak ([memory])
    via_stdin: bool = False  # the scripts are fed on standard input, as in a notebook (stdin = true)
    slow_startup_share: float | None = None  # [timing]: a larger start-up share is slow
    recognition: Recognition | None = None  # [diagnose]: how `check` recognises it
    # What its runs are confined to, as a container confines them ({setting: size}: a setting of
    # harness/run/confine/, its key in case.toml)
    confined: dict[str, float] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.path.name

    def script(self, variant: str) -> Path:
        return self.path / f"{variant}.py"

    def expectation(self, variant: str, profile: Profile) -> Expectation:
        """The profile's own expectation where case.toml gives one, else that of the profile it stands
        for (windows-emulated: windows), else its start method's."""
        names = [n for n in profile.expectation_names if (variant, n) in self.expect]
        return self.expect[(variant, names[0])]

    def settings(self, **overrides) -> RunSettings:
        """How its scripts are run: its timeout, memory limit and sampling, stdin, what its runs are
        confined to; every other setting at its one default (harness/run/settings.py). `overrides`
        (RunSettings fields, as the command line gives them) replace any of these."""
        own = {"memory_limit_mb": self.memory_limit_mb} if self.memory_limit_mb is not None else {}
        settings = RunSettings(
            timeout_s=self.timeout,
            confined=self.confined,
            via_stdin=self.via_stdin,
            memory_interval_s=self.memory_interval_s,
            **own,
        )
        return replace(settings, **overrides)


def _require(table: dict, key: str, kind: type | tuple[type, ...], where: str):
    if key not in table:
        raise CaseError(f"{where}: missing key '{key}'")
    value = table[key]
    if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
        names = {str: "string", list: "list", dict: "table", (int, float): "number"}
        raise CaseError(f"{where}: '{key}' must be a {names.get(kind, kind)}, not {value!r}")
    return value


def _known_keys(table: dict, allowed: tuple[str, ...], where: str) -> None:
    """A misspelt key would silently change nothing: name it instead."""
    for key in table:
        if key not in allowed:
            raise CaseError(f"{where}: unknown key '{key}' (known: {', '.join(allowed)})")


def _expectation(table: dict, where: str, key: str) -> Expectation:
    """One [expect.<variant>.<key>] table; `key` is a start method or, for an override, a profile."""
    if not isinstance(table, dict):
        raise CaseError(f"{where}: must be a table with 'outcome'")
    _known_keys(table, ("outcome", "signature", "note", "unverified"), where)
    outcome = _outcome(_require(table, "outcome", str, where), where)
    signature = _regex(table, "signature", where)
    unverified = table.get("unverified", False)
    if not isinstance(unverified, bool):
        raise CaseError(f"{where}: 'unverified' must be true or false")
    return Expectation(
        outcome=outcome,
        signature=signature,
        note=str(table.get("note", "")),
        unverified=unverified,
        profile=key if key in PROFILE_NAMES else None,
    )


def load_case(folder: Path) -> Case:
    """Reads and checks one case folder; raises CaseError naming what is wrong."""
    match = _FOLDER_NAME.match(folder.name)
    if not match:
        raise CaseError(f"{folder}: a case folder is named NN_slug (two digits, lower-case slug)")
    toml_path = folder / "case.toml"
    try:
        data = tomllib.loads(toml_path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise CaseError(f"{toml_path}: missing") from None
    except tomllib.TOMLDecodeError as exc:
        raise CaseError(f"{toml_path}: malformed TOML: {exc}") from None
    where = str(toml_path)
    _known_keys(data, TOP_LEVEL_KEYS, where)
    timeout = _positive_number(data, "timeout", where)
    needs = tuple(data.get("needs", []))
    for need in needs:
        if need not in KNOWN_NEEDS:
            raise CaseError(f"{where}: unknown need '{need}' (known: {', '.join(KNOWN_NEEDS)})")
    expect_table = _require(data, "expect", dict, where)
    expect: dict[tuple[str, str], Expectation] = {}
    for variant in VARIANTS:
        by_method = _require(expect_table, variant, dict, f"{where} [expect]")
        _known_keys(by_method, START_METHODS + PROFILE_NAMES, f"{where} [expect.{variant}]")
        for method in START_METHODS:
            if method not in by_method:
                raise CaseError(f"{where} [expect.{variant}.{method}]: missing")
        for key, table in by_method.items():  # a profile's own table overrides its start method's
            expect[(variant, key)] = _expectation(table, f"{where} [expect.{variant}.{key}]", key)
    memory = _memory(data, where)
    recognition = _recognition(data.get("diagnose"), f"{where} [diagnose]")
    via_stdin = data.get("stdin", False)
    if not isinstance(via_stdin, bool):
        raise CaseError(f"{where}: 'stdin' must be true or false")
    for variant in VARIANTS:
        if not (folder / f"{variant}.py").is_file():
            raise CaseError(f"{folder / f'{variant}.py'}: missing script")
    return Case(
        number=match["number"],
        slug=match["slug"],
        path=folder,
        title=_require(data, "title", str, where),
        summary=_require(data, "summary", str, where),
        tags=tuple(_require(data, "tags", list, where)),
        timeout=float(timeout),
        needs=needs,
        expect=expect,
        via_stdin=via_stdin,
        recognition=recognition,
        **memory,
    )


def _outcome(name, where: str) -> Outcome:
    try:
        return Outcome.named(str(name))
    except ValueError as exc:
        raise CaseError(f"{where}: {exc}") from None


def _regex(table: dict, key: str, where: str) -> str | None:
    pattern = table.get(key)
    if pattern is None:
        return None
    if not isinstance(pattern, str):
        raise CaseError(f"{where}: '{key}' must be a regular expression string")
    try:
        re.compile(pattern)
    except re.error as exc:
        raise CaseError(f"{where}: bad '{key}' pattern {pattern!r}: {exc}") from None
    return pattern


PATTERN_KEYS = ("outcome", "methods", "signature", "stacks", "confirms_lint", "any_run")


def _recognition(table, where: str) -> Recognition | None:
    if table is None:
        return None
    if not isinstance(table, dict):
        raise CaseError(f"{where}: must be a table")
    _known_keys(table, ("mechanism", "fix", "lint", "measure", "also", *PATTERN_KEYS), where)
    measure = table.get("measure")
    if measure is not None and measure not in MEASURES:
        raise CaseError(f"{where}: unknown measurement '{measure}' (known: {', '.join(MEASURES)})")
    lint = tuple(table.get("lint", ()))
    also = table.get("also", [])
    if not isinstance(also, list) or not all(isinstance(t, dict) for t in also):
        raise CaseError(f"{where}: 'also' must be an array of tables ([[diagnose.also]])")
    patterns = [_pattern(table, lint, where)] if "outcome" in table or "methods" in table else []
    for number, extra in enumerate(also, 1):
        _known_keys(extra, PATTERN_KEYS, f"{where} also #{number}")
        patterns.append(_pattern(extra, lint, f"{where} also #{number}"))
    if not patterns and not lint and measure is None:
        raise CaseError(f"{where}: needs a run-time pattern (outcome, methods), a 'measure' or 'lint' rules")
    return Recognition(
        mechanism=" ".join(_require(table, "mechanism", str, where).split()),
        fix=_require(table, "fix", str, where),
        patterns=tuple(patterns),
        lint=lint,
        measure=measure,
    )


def _pattern(table: dict, lint: tuple[str, ...], where: str) -> Pattern:
    """One run-time pattern: an outcome under some start methods or profiles, with its regexes."""
    methods = tuple(table.get("methods", ()))
    for method in methods:
        if method not in START_METHODS + PROFILE_NAMES:
            known = ", ".join(START_METHODS + PROFILE_NAMES)
            raise CaseError(f"{where}: unknown start method or profile '{method}' (known: {known})")
    if "outcome" not in table or not methods:
        raise CaseError(f"{where}: 'outcome' and 'methods' go together")
    outcome = _outcome(table["outcome"], where)
    confirms_lint = table.get("confirms_lint", False)
    if not isinstance(confirms_lint, bool) or (confirms_lint and not lint):
        raise CaseError(f"{where}: 'confirms_lint' is true or false, and true needs 'lint' rules")
    any_run = table.get("any_run", False)
    if not isinstance(any_run, bool) or (any_run and not table.get("signature")):
        raise CaseError(f"{where}: 'any_run' is true or false, and true needs a 'signature'")
    return Pattern(
        outcome=outcome,
        methods=methods,
        signature=_regex(table, "signature", where),
        stacks=_regex(table, "stacks", where),
        confirms_lint=confirms_lint,
        any_run=any_run,
    )


def _positive_number(table: dict, key: str, where: str) -> float:
    value = _require(table, key, (int, float), where)
    if value <= 0:
        raise CaseError(f"{where}: '{key}' must be positive, not {value}")
    return float(value)


def _size(data: dict, way: confine.Confinement, where: str) -> float:
    """The size a case asks of a confinement: positive, and whole where it counts something."""
    size = _positive_number(data, way.setting, where)
    if way.whole and size != int(size):
        raise CaseError(f"{where}: '{way.setting}' must be a whole number, not {size:g}")
    return size


def _memory(data: dict, where: str) -> dict:
    """The optional measurement settings: a run's memory limit, what its runs are confined to, the
    [memory] table for leak cases, the [timing] table for start-up cost cases."""
    settings: dict = {}
    if "memory_limit_mb" in data:
        settings["memory_limit_mb"] = _positive_number(data, "memory_limit_mb", where)
    settings["confined"] = {
        way.setting: _size(data, way, where) for way in confine.ORDER if way.setting in data
    }
    if "timing" in data:
        table = _require(data, "timing", dict, where)
        _known_keys(table, ("slow_startup_share",), f"{where} [timing]")
        share = _positive_number(table, "slow_startup_share", f"{where} [timing]")
        if share >= 1:
            raise CaseError(f"{where} [timing]: 'slow_startup_share' is a fraction below 1, not {share}")
        settings["slow_startup_share"] = share
    if "memory" in data:
        table = _require(data, "memory", dict, where)
        _known_keys(table, ("sample_interval_s", "leak_threshold_mb"), f"{where} [memory]")
        settings["memory_interval_s"] = _positive_number(table, "sample_interval_s", f"{where} [memory]")
        settings["leak_threshold_mb"] = _positive_number(table, "leak_threshold_mb", f"{where} [memory]")
    return settings


def discover(cases_dir: Path = CASES_DIR) -> list[Case]:
    """Every case under `cases_dir`, in number order."""
    folders = sorted(p for p in cases_dir.iterdir() if p.is_dir() and _FOLDER_NAME.match(p.name))
    return [load_case(folder) for folder in folders]


def select(cases: list[Case], names: list[str]) -> list[Case]:
    """The cases named by number ('1', '01'), slug, or folder name; all when none is named."""
    if not names:
        return cases
    chosen: list[Case] = []
    for name in names:
        wanted = name.strip().rstrip("/").split("/")[-1]
        found = [
            case
            for case in cases
            if wanted in (case.name, case.slug, case.number)
            or (wanted.isdigit() and int(wanted) == int(case.number))
        ]
        if not found:
            valid = ", ".join(case.name for case in cases)
            raise CaseError(f"unknown case '{name}'; valid cases: {valid}")
        chosen.extend(case for case in found if case not in chosen)
    return chosen
