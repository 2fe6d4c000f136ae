"""Pictures drawn from results data at build time: worker memory over time, run time per method."""

from __future__ import annotations

import io

import matplotlib

matplotlib.use("Agg")  # no display: render to PNG bytes
import matplotlib.pyplot as plt

from .. import profiles
from ..outcomes import Outcome
from ..profiles import PROFILE_NAMES
from .results_data import Recorded

MEMORY_CASE = "06_memory_growth"
COLOURS = {"broken": "#c62828", "fixed": "#1565c0"}


def _png(figure) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=110, bbox_inches="tight")
    plt.close(figure)
    return buffer.getvalue()


def memory_plot(source: Recorded) -> tuple[bytes, str] | None:
    """Each worker's USS over time for case 06, broken vs fixed, under linux (fork) and
    windows-emulated (spawn; under Wine no worker is sampled from its start); with alt text."""
    methods = [
        m
        for m in profiles.shown_in("memory plot")
        if any(source.get(MEMORY_CASE, v, m) for v in ("broken", "fixed"))
    ]
    if not methods:
        return None
    figure, axes = plt.subplots(1, len(methods), figsize=(5.2 * len(methods), 3.6), squeeze=False)
    facts = []
    for axis, method in zip(axes[0], methods, strict=True):
        for variant in ("broken", "fixed"):
            result = source.get(MEMORY_CASE, variant, method)
            if result is None or not result.memory:
                continue
            workers = [p for p in result.memory["processes"].values() if p["role"] == "worker"]
            for number, worker in enumerate(workers):
                times = [at for at, _ in worker["samples"]]
                megabytes = [mb for _, mb in worker["samples"]]
                label = variant if number == 0 else None
                axis.plot(times, megabytes, color=COLOURS[variant], label=label, linewidth=1.4)
            summary = result.memory.get("workers", {}).values()
            if summary:
                growth = max(w["growth_mb"] for w in summary)
                baseline = max(w["baseline_mb"] for w in summary)
                facts.append(
                    f"{variant} under {method}: baseline ≤ {baseline:.0f} MB, growth ≤ {growth:.0f} MB"
                )
        axis.set_title(f"{method}: each worker's private memory (USS)")
        axis.set_xlabel("seconds since the script started")
        axis.set_ylabel("MB")
        axis.grid(alpha=0.3)
        axis.legend()
    alt = (
        "Worker memory over time for case 06, broken (Python list) against fixed (numpy array): "
        + "; ".join(facts)
    )
    return _png(figure), alt


def startup_plot(source: Recorded, cases: list[str]) -> tuple[bytes, str] | None:
    """Run time of each fixed script under each profile (start to exit), grouped by case."""
    rows = []
    for case in cases:
        durations = [source.get(case, "fixed", m) for m in PROFILE_NAMES]
        if all(r is not None and r.outcome is Outcome.OK for r in durations):
            rows.append((case, [r.duration_s for r in durations]))
    if not rows:
        return None
    figure, axis = plt.subplots(figsize=(9, 3.8))
    width = 0.8 / len(PROFILE_NAMES)
    for index, method in enumerate(PROFILE_NAMES):
        positions = [row + (index - (len(PROFILE_NAMES) - 1) / 2) * width for row in range(len(rows))]
        axis.bar(positions, [durations[index] for _, durations in rows], width, label=method)
    axis.set_xticks(range(len(rows)), [case.split("_", 1)[0] for case, _ in rows])
    axis.set_xlabel("case (fixed script)")
    axis.set_ylabel("seconds, start to exit")
    axis.set_title("Time to run each fixed script, per profile")
    axis.grid(axis="y", alpha=0.3)
    axis.legend()
    means = {
        method: sum(durations[index] for _, durations in rows) / len(rows)
        for index, method in enumerate(PROFILE_NAMES)
    }
    alt = "Bar chart of the time each fixed script took from start to exit, per profile; mean " + ", ".join(
        f"{method} {seconds:.1f} s" for method, seconds in means.items()
    )
    return _png(figure), alt
