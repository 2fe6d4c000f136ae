"""Measured figures in the course's prose, read from the results files and the case settings.

A figure is written in the Markdown as a span:

    a case takes <!-- dlp:fig duration profile=windows -->13.7–118 s<!-- /dlp:fig --> under Wine

The text between the markers is the figure as last written (what a reader of the source, on GitHub,
sees); the site shows it as the results files and case.toml say when it is built, and
`python -m harness figures` writes that back into the sources. A span that names a case, a profile,
a variant or a results file that does not exist, or a run without the measurement, is a
FigureError naming what it looked for: the strict site build fails on it. Runs that exist but were
all skipped where they were recorded (no Wine there, say) give "not recorded" in the page's
language instead of a figure.

Kinds (each reads one results file: `file=STEM`, a prefix of its name such as `linux-py3.13`; by
default the reference file the emulated columns come from):
- `duration` [case=] [variant=] [profile=A,B]: the range of the runs' wall times, "1.6–14.1 s".
- `baseline` / `growth` case= variant= profile=: a memory case's workers' baseline (USS at start of
  service) or growth during the run, the range over the run's workers, "10–16 MB".
- `wait` case= variant= profile= [show=seconds|share]: the later epochs' mean wait for their first
  batch and its share of their time, "0.10 s, 5 %" (the range where there are several runs).
- `first-batch` case= variant= profile=: how long the first epoch waited for its first batch,
  "0.04 s".
- `shutdown` case= variant= profile=: how long its epochs went on after their last batch (the
  workers' shutdown), "10.0 s".
- `cgroup-peak` case= variant= profile=: the most the run's memory cgroup held (a case with
  memory_cgroup_mb), "1337 MB".
- `signature` case= variant= profile=: the run's signature as recorded, in backticks (one run).
- `outcome` case= variant= profile=A,B: the runs' outcome, "`leak`" (one: they must agree).
- `timeout` case=A,B: the cases' timeout from case.toml, "60 s" (one figure: they must agree).
- `memory-cgroup` case=: the memory cgroup's size from case.toml (memory_cgroup_mb), "2048 MB".
- `threshold` case=: a memory case's leak threshold from case.toml, "30 MB".
- `version` of=python|torch|numpy: the version the results file records, "3.13.5".
- `experiment`, `experiment-count`, `experiment-signature`, `experiment-version`: from a recorded experiment
  (harness/site/experiment_figures.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from ..cases import VARIANTS, Case
from ..measurements import fetched_by_key, shutdown_wait, startup_wait
from ..profiles import BASELINE, PROFILE_NAMES
from ..results import RunResult
from . import experiment_figures
from .results_data import Recorded
from .wording import t

SPAN = re.compile(
    r"(?P<open><!--\s*dlp:fig\s+(?P<kind>[\w-]+)(?P<args>(?:\s+[\w-]+=[^\s>]+)*)\s*-->)"
    r"(?P<text>.*?)(?P<close><!--\s*/dlp:fig\s*-->)",
    re.S,
)


class FigureError(Exception):
    """A figure span that cannot be filled: an unknown kind, name or file, or nothing measured."""


class Unrecorded(Exception):
    """The runs a figure reads exist but were all skipped where they were recorded."""


@dataclass(frozen=True)
class Sources:
    cases: list[Case]
    recorded: list[Recorded]
    reference: Recorded | None
    experiments: dict[str, dict] = field(default_factory=dict)  # harness/experiments.py, by name


def fill(markdown: str, sources: Sources, where: str) -> str:
    """`markdown` with every figure span's text replaced by the figure the sources give now."""

    def replace(match: re.Match) -> str:
        try:
            figure = render(match["kind"], _arguments(match["args"]), sources)
        except Unrecorded:
            figure = t("(not recorded: skipped where the results were recorded)")
        except (FigureError, experiment_figures.ExperimentFigureError) as exc:
            raise FigureError(f"{where}: {match['open']} {exc}") from None
        return f"{match['open']}{figure}{match['close']}"

    return SPAN.sub(replace, markdown)


def figures_only(
    markdown: str, sources: Sources, where: str, shown: dict[str, Callable] | None = None
) -> str:
    """The page as a reader sees it: each span reduced to its figure, the markers gone; `shown`
    gives a kind's figure its look on the site (an outcome as a badge)."""
    shown = shown or {}
    return SPAN.sub(lambda m: shown.get(m["kind"], str)(m["text"]), fill(markdown, sources, where))


def render(kind: str, args: dict[str, str], sources: Sources) -> str:
    kinds: dict[str, Callable[[dict, Sources], str]] = {
        "duration": _duration,
        "baseline": lambda a, s: _memory(a, s, "baseline_mb"),
        "growth": lambda a, s: _memory(a, s, "growth_mb"),
        "wait": _wait,
        "shutdown": _shutdown,
        "first-batch": _first_batch,
        "cgroup-peak": _cgroup_peak,
        "outcome": _outcome,
        "signature": _signature,
        "samples-differing": _samples_differing,
        "timeout": _timeout,
        "memory-cgroup": lambda a, s: f"{_number(_setting(a, s, 'memory_cgroup_mb'), 0)} MB",
        "threshold": _threshold,
        "version": _version,
        "experiment": lambda a, s: experiment_figures.measured(a, s.experiments),
        "experiment-count": lambda a, s: experiment_figures.count(a, s.experiments),
        "experiment-signature": lambda a, s: experiment_figures.signature(a, s.experiments),
        "experiment-version": lambda a, s: experiment_figures.version(a, s.experiments),
    }
    if kind not in kinds:
        raise FigureError(f"unknown kind {kind!r} (known: {', '.join(kinds)})")
    return kinds[kind](args, sources)


def _arguments(text: str) -> dict[str, str]:
    return dict(pair.split("=", 1) for pair in text.split())


def _file(args: dict, sources: Sources) -> Recorded:
    stem = args.get("file")
    if stem is None:
        if sources.reference is None:
            raise FigureError("there is no reference results file")
        return sources.reference
    found = [r for r in sources.recorded if r.path.stem.startswith(stem)]
    if len(found) != 1:
        names = ", ".join(r.path.name for r in sources.recorded)
        raise FigureError(f"file={stem} names {len(found)} results files, not 1 (there are: {names})")
    return found[0]


def _case_name(prefix: str, sources: Sources) -> str:
    found = [c.name for c in sources.cases if c.name == prefix or c.name.startswith(f"{prefix}_")]
    if len(found) != 1:
        raise FigureError(f"case={prefix} names no case")
    return found[0]


def _runs(args: dict, sources: Sources) -> list[RunResult]:
    """The runs that `case=`, `variant=` and `profile=` name in the file, skipped ones left out.
    A name that is not a case, variant or profile, or a file with no such run at all, is a
    FigureError; runs that were all skipped (no Wine, no GPU on the machine that recorded them)
    are Unrecorded: the page says so instead of a figure."""
    recorded = _file(args, sources)
    cases = {_case_name(c, sources) for c in args["case"].split(",")} if "case" in args else None
    profiles = set(args["profile"].split(",")) if "profile" in args else None
    if profiles is not None and not profiles <= set(PROFILE_NAMES):
        raise FigureError(f"profile={args['profile']} names no profile (known: {', '.join(PROFILE_NAMES)})")
    if args.get("variant", "broken") not in VARIANTS:
        raise FigureError(f"variant={args['variant']} names no variant")
    named = [
        r
        for r in recorded.data.results
        if (cases is None or r.case in cases)
        and (profiles is None or r.profile in profiles)
        and args.get("variant", r.variant) == r.variant
    ]
    if not named:
        raise FigureError(f"{recorded.path.name} holds no such run")
    judged = [r for r in named if r.outcome.was_judged]
    if not judged:
        raise Unrecorded(f"{recorded.path.name}: every such run was skipped")
    return judged


def _number(value: float, decimals: int | None = None) -> str:
    if decimals is None:
        decimals = 0 if value >= 100 else 1
    return f"{value:.{decimals}f}"


def _range(values: list[float], unit: str, decimals: int | None = None) -> str:
    low, high = _number(min(values), decimals), _number(max(values), decimals)
    return f"{low} {unit}" if low == high else f"{low}–{high} {unit}"


def _duration(args: dict, sources: Sources) -> str:
    return _range(_measured((r.duration_s for r in _runs(args, sources)), "no run has a duration"), "s")


def _measured(values, why: str) -> list[float]:
    """The values that were measured (None left out); a FigureError saying `why` where none was."""
    found = [v for v in values if v is not None]
    if not found:
        raise FigureError(why)
    return found


def _memory(args: dict, sources: Sources, key: str) -> str:
    workers = (w[key] for r in _runs(args, sources) for w in ((r.memory or {}).get("workers") or {}).values())
    return _range(_measured(workers, "the run has no worker memory samples"), "MB", decimals=0)


def _wait(args: dict, sources: Sources) -> str:
    waits = _measured(
        (startup_wait(r.loader_epochs, first_batch=True) for r in _runs(args, sources)),
        "names no run with later epochs",
    )
    seconds = _range([w[0] for w in waits], "s", decimals=2)
    share = _range([100 * w[1] for w in waits], "%", decimals=0)
    return {"seconds": seconds, "share": share}.get(args.get("show", ""), f"{seconds}, {share}")


def _first_batch(args: dict, sources: Sources) -> str:
    firsts = (r.loader_epochs[0]["first_batch_s"] for r in _runs(args, sources) if r.loader_epochs)
    waits = _measured(firsts, "names no run whose first epoch got a batch")
    return _range(waits, "s", decimals=2 if max(waits) < 1 else 1)


def _cgroup_peak(args: dict, sources: Sources) -> str:
    peaks = (r.confined.get("cgroup_peak_mb") for r in _runs(args, sources))
    return _range(_measured(peaks, "names no run in a memory cgroup"), "MB", decimals=0)


def _shutdown(args: dict, sources: Sources) -> str:
    waits = (shutdown_wait(r.loader_epochs) for r in _runs(args, sources))
    return _range(_measured(waits, "names no run with a complete epoch"), "s", decimals=1)


def _outcome(args: dict, sources: Sources) -> str:
    outcomes = {str(r.outcome) for r in _runs(args, sources)}
    if len(outcomes) != 1:
        raise FigureError(f"the runs' outcomes differ: {sorted(outcomes)}")
    return f"`{outcomes.pop()}`"


def _signature(args: dict, sources: Sources) -> str:
    runs = _runs(args, sources)
    if len(runs) != 1 or not runs[0].signature:
        raise FigureError(f"names {len(runs)} runs, not one with a signature")
    return f"`{runs[0].signature}`"


def _samples_differing(args: dict, sources: Sources) -> str:
    """ "N of M": of the M sample indices that the named run and the same case's run under the
    baseline profile (fork)
    both fetched with nothing drawn at random, the N whose data differed (harness/boot/dlp_samples.py)."""
    (run,) = _runs(args, sources)
    (fork,) = _runs({**args, "profile": BASELINE}, sources)
    ours, theirs = (_sample_digests(r) for r in (run, fork))
    shared = set(ours) & set(theirs)
    if not shared:
        raise FigureError("the two runs fetched no sample index in common")
    return f"{sum(ours[k] != theirs[k] for k in shared)} of {len(shared)}"


def _sample_digests(run: RunResult) -> dict[str, str]:
    """The samples' digests by index, without the batches'."""
    return {key: digest for key, digest in fetched_by_key(run).items() if ":b" not in key}


def _setting(args: dict, sources: Sources, name: str) -> float:
    """The one value of case.toml's `name` in the cases that `case=` names (a confinement's size
    too)."""
    names = {_case_name(c, sources) for c in args.get("case", "").split(",") if c}
    values = {c.confined.get(name, getattr(c, name, None)) for c in sources.cases if c.name in names}
    if len(values) != 1 or None in values:
        raise FigureError(f"the cases' {name} differ or none is named: {sorted(map(str, values))}")
    return values.pop()


def _timeout(args: dict, sources: Sources) -> str:
    return f"{_number(_setting(args, sources, 'timeout'), 0)} s"


def _threshold(args: dict, sources: Sources) -> str:
    return f"{_number(_setting(args, sources, 'leak_threshold_mb'), 0)} MB"


def _version(args: dict, sources: Sources) -> str:
    what = args.get("of", "python")
    version = _file(args, sources).environment.get(what)
    if not version:
        raise FigureError(f"the results file records no version of {what}")
    return str(version)
