"""Figures from the recorded experiments (harness/experiments.py): results/experiments/NAME.json.

- `experiment name= run=LABEL key= [unit=] [decimals=] [show=range|list]`: what the runs of that
  label measured under `key`, every value of every repeat: "240–360 samples/s", or each one in the
  order measured, "278, 566, 646". `key=duration_s` or `key=timeout_s`: each run's own.
- `experiment-version name= of=python|torch|numpy|opencv`: the version the experiment ran with.
- `experiment-count name= run=LABEL outcome=`: how many of the label's runs ended so, "10 of 10".
- `experiment-signature name= run=LABEL`: the error the label's runs ended with, in backticks; its
  runs must agree (a label whose runs ended otherwise is a figure of its own).
"""

from __future__ import annotations

from .wording import t

RUN_FIGURES = ("duration_s", "timeout_s")  # what the harness measured of each run itself


class ExperimentFigureError(Exception):
    """An experiment, a run label or a measurement that the recorded files do not have."""


def measured(args: dict, experiments: dict[str, dict]) -> str:
    runs = _runs(args, experiments)
    key = args.get("key")
    values = [value for run in runs for value in _values(run, key)]
    if not values:
        keys = sorted({k for run in runs for k in run["measured"]})
        raise ExperimentFigureError(f"key={key} was measured in no run of that label ({', '.join(keys)})")
    unit = f" {args['unit']}" if "unit" in args else ""
    decimals = int(args["decimals"]) if "decimals" in args else None
    if args.get("show") == "list":
        return t(", ").join(_number(v, decimals) for v in values) + unit
    low, high = _number(min(values), decimals), _number(max(values), decimals)
    return f"{low}{unit}" if low == high else f"{low}–{high}{unit}"


def _values(run: dict, key: str) -> list[float]:
    if key in RUN_FIGURES:
        return [run[key]] if run.get(key) is not None else []
    return run["measured"].get(key, [])


def version(args: dict, experiments: dict[str, dict]) -> str:
    name, what = args.get("name"), args.get("of", "python")
    found = experiments.get(name, {}).get("environment", {}).get(what)
    if not found:
        raise ExperimentFigureError(f"name={name}: no recorded experiment of that name records {what}")
    return str(found)


def count(args: dict, experiments: dict[str, dict]) -> str:
    runs = _runs(args, experiments)
    if "outcome" not in args:
        raise ExperimentFigureError("an experiment-count names the outcome it counts (outcome=)")
    ended = sum(run["outcome"] == args["outcome"] for run in runs)
    return t("{count} of {total}", count=ended, total=len(runs))


def signature(args: dict, experiments: dict[str, dict]) -> str:
    found = {run.get("signature", "") for run in _runs(args, experiments)}
    if len(found) != 1 or not next(iter(found)):
        shown = "; ".join(sorted(repr(s) for s in found))
        raise ExperimentFigureError(f"run={args.get('run')}: its runs recorded no one signature ({shown})")
    return f"`{found.pop()}`"


def _runs(args: dict, experiments: dict[str, dict]) -> list[dict]:
    name = args.get("name")
    if name not in experiments:
        known = ", ".join(sorted(experiments)) or "none recorded"
        raise ExperimentFigureError(f"name={name} names no recorded experiment ({known})")
    runs = [run for run in experiments[name]["runs"] if run["label"] == args.get("run")]
    if not runs:
        labels = sorted({run["label"] for run in experiments[name]["runs"]})
        raise ExperimentFigureError(f"run={args.get('run')} names no run of {name} ({', '.join(labels)})")
    return runs


def _number(value: float, decimals: int | None) -> str:
    """With `decimals` where given; else whole numbers with thousands separators, others with two
    decimals under 1 and one above (trailing zeros dropped)."""
    if decimals is not None:
        return f"{value:,.{decimals}f}"
    if value == int(value):
        return f"{int(value):,}"
    return f"{value:.2f}".rstrip("0") if value < 1 else f"{value:.1f}".rstrip("0").rstrip(".")
