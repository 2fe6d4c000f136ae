"""Pictures drawn from the results when the site is built, in the language of the page that shows
them: each worker's memory over time (case 06), the wait for the first batch (case 13), and the run
time of every fixed script per column (the comparison page).

Each drawing returns (PNG bytes, alt text) or None where the results hold nothing to draw; its
title, axes, legend and alt text come from the message catalog (wording.t), so the hook draws each
plot once per language.
"""

from __future__ import annotations

import io
import logging
import warnings

import matplotlib

matplotlib.use("Agg")  # no display: render to PNG bytes
import matplotlib.pyplot as plt
from matplotlib import font_manager

from .. import measurements, profiles
from ..cases import VARIANTS
from ..outcomes import Outcome
from ..run.launch import How
from .columns import Column
from .results_data import Recorded
from .wording import t

MEMORY_CASE = "06_memory_growth"
STARTUP_CASE = "13_spawn_startup_cost"
COLOURS = {"broken": "#c62828", "fixed": "#1565c0"}
# Chinese titles and axes need a CJK font: Debian's fonts-wqy-microhei (named in the README).
CJK_FONT = "WenQuanYi Micro Hei"


class FontMissing(RuntimeError):
    pass


def use_fonts() -> None:
    """Latin text in DejaVu Sans, Chinese in WenQuanYi Micro Hei (matplotlib falls back glyph by
    glyph along the list); a FontMissing naming the package where the CJK font is absent."""
    if not _has_font(CJK_FONT):
        # matplotlib reads its list of fonts from a cache made at its first use: a font installed
        # since is not in it. The list is read afresh from the system (which rewrites the cache),
        # and the fonts of that name are added to the font manager in use (its public addfont).
        fresh = font_manager._load_fontmanager(try_read_cache=False)
        for entry in fresh.ttflist:
            if entry.name == CJK_FONT:
                font_manager.fontManager.addfont(entry.fname)
        if not _has_font(CJK_FONT):
            raise FontMissing(
                f"the plots' Chinese text needs the font {CJK_FONT!r}: install Debian's fonts-wqy-microhei "
                f"(matplotlib's list of fonts was read afresh from the system, and it is not there)"
            )
        logging.getLogger("mkdocs.plugins.dataloader_pitfalls").info(
            "matplotlib's font cache in %s predated the font %r: rebuilt", matplotlib.get_cachedir(), CJK_FONT
        )
    plt.rcParams["font.family"] = ["DejaVu Sans", CJK_FONT]
    plt.rcParams["axes.unicode_minus"] = False


def _has_font(name: str) -> bool:
    try:
        font_manager.findfont(name, fallback_to_default=False)
    except ValueError:
        return False
    return True


def _png(figure) -> bytes:
    """The figure as PNG; a glyph that no font has is an error, not a box on the page."""
    buffer = io.BytesIO()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        figure.savefig(buffer, format="png", dpi=110, bbox_inches="tight")
    plt.close(figure)
    missing = [str(w.message) for w in caught if "missing from font" in str(w.message)]
    if missing:
        raise FontMissing(f"{missing[0]}: install Debian's fonts-wqy-microhei")
    return buffer.getvalue()


def _label(column: Column) -> str:
    return f"{column.system_name()} · {column.heading()}\n{column.produced_by()}"


def memory_plot(source: Recorded) -> tuple[bytes, str] | None:
    """Each worker's USS over time for case 06, broken vs fixed, under the profiles chosen for it
    (fork, and spawn emulated: under Wine no worker is sampled from its start)."""
    methods = [
        m for m in profiles.shown_in("memory plot") if any(source.get(MEMORY_CASE, v, m) for v in VARIANTS)
    ]
    if not methods:
        return None
    figure, axes = plt.subplots(1, len(methods), figsize=(5.2 * len(methods), 3.6), squeeze=False)
    facts = []
    for axis, method in zip(axes[0], methods, strict=True):
        for variant in VARIANTS:
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
                    t(
                        "{variant} under {profile}: baseline ≤ {baseline} MB, growth ≤ {growth} MB",
                        variant=variant,
                        profile=method,
                        baseline=f"{baseline:.0f}",
                        growth=f"{growth:.0f}",
                    )
                )
        axis.set_title(t("{profile}: each worker's private memory (USS)", profile=method))
        axis.set_xlabel(t("seconds since the script started"))
        axis.set_ylabel("MB")
        axis.grid(alpha=0.3)
        axis.legend()
    return _png(figure), t(
        ("Worker memory over time for case 06, broken (Python list) against fixed (numpy array): {facts}"),
        facts=t(", ").join(facts),
    )


def startup_wait_plot(found: list[Column]) -> tuple[bytes, str] | None:
    """Case 13 in every column: how long the first epoch waited for its first batch, and how long
    the later epochs did on average (the start-up cost paid again each epoch), broken vs fixed."""
    rows = [c for c in found if any(_epochs(c, v) for v in VARIANTS)]
    if not rows:
        return None
    figure, axes = plt.subplots(1, 2, figsize=(10, 0.55 * len(rows) + 1.6), sharey=True)
    panels = (
        ("first", t("first epoch: wait for its first batch")),
        ("later", t("later epochs: mean wait for their first batch")),
    )
    height = 0.38
    for axis, (which, title) in zip(axes, panels, strict=True):
        for offset, variant in ((-height / 2, "broken"), (height / 2, "fixed")):
            values = [_wait(_epochs(c, variant), which) for c in rows]
            positions = [row + offset for row in range(len(rows))]
            drawn = [(p, v) for p, v in zip(positions, values, strict=True) if v is not None]
            bars = axis.barh(
                [p for p, _ in drawn], [v for _, v in drawn], height, color=COLOURS[variant], label=variant
            )
            axis.bar_label(bars, labels=[f"{v:.2f}" for _, v in drawn], fontsize=7, padding=2)
        axis.set_xscale("log")
        axis.set_title(title)
        axis.set_xlabel(t("seconds (log scale)"))
        axis.grid(axis="x", alpha=0.3)
    axes[0].set_yticks(range(len(rows)), [_label(c) for c in rows], fontsize=8)
    axes[0].invert_yaxis()
    axes[1].legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), frameon=False)
    facts = [
        t(
            "{column}: broken {broken}, fixed {fixed}",
            column=c.label(),
            broken=_said(_wait(_epochs(c, "broken"), "later")),
            fixed=_said(_wait(_epochs(c, "fixed"), "later")),
        )
        for c in rows
    ]
    return _png(figure), t(
        (
            "Case 13 in every column: how long each epoch waited for its first batch, broken "
            "(new workers every epoch) against fixed (persistent workers); later epochs: "
            "{facts}"
        ),
        facts=t(", ").join(facts),
    )


def _epochs(column: Column, variant: str) -> list[dict]:
    result = column.get(STARTUP_CASE, variant)
    return result.loader_epochs if result is not None and result.outcome.was_judged else []


def _wait(epochs: list[dict], which: str) -> float | None:
    if not epochs:
        return None
    if which == "first":
        return epochs[0].get("first_batch_s")
    waited = measurements.startup_wait(epochs, first_batch=True)  # what the pages call the wait
    return waited[0] if waited else None


def _said(seconds: float | None) -> str:
    return "–" if seconds is None else f"{seconds:.2f} s"


def run_time_plot(cases: list[str], found: list[Column]) -> tuple[bytes, str] | None:
    """How long each fixed script ran, start to exit, in every column; a run that was skipped is
    marked where its bar would be. The legend sits below the bars."""
    if not found:
        return None
    figure, axis = plt.subplots(figsize=(11, 4.4))
    width = 0.84 / len(found)
    colours = plt.get_cmap("tab10").colors
    for index, column in enumerate(found):
        offset = (index - (len(found) - 1) / 2) * width
        results = [column.get(case, "fixed") for case in cases]
        ran = [(n, r.duration_s) for n, r in enumerate(results) if r is not None and r.outcome.was_judged]
        hatch = "//" if column.kind == How.EMULATED else None
        axis.bar(
            [n + offset for n, _ in ran],
            [s for _, s in ran],
            width,
            color=colours[index % 10],
            hatch=hatch,
            edgecolor="white",
            linewidth=0.3,
            label=column.label(),
        )
        skipped = [n for n, r in enumerate(results) if r is not None and r.outcome is Outcome.SKIPPED]
        axis.plot(
            [n + offset for n in skipped],
            [0] * len(skipped),
            "x",
            color=colours[index % 10],
            markersize=5,
            clip_on=False,
        )
    axis.plot([], [], "x", color="#555", label=t("skipped (not run there)"))
    axis.set_xticks(range(len(cases)), [case.split("_", 1)[0] for case in cases])
    axis.set_xlabel(t("case (fixed script)"))
    axis.set_ylabel(t("seconds, start to exit"))
    axis.set_title(t("Time to run each fixed script, per column"))
    axis.grid(axis="y", alpha=0.3)
    axis.legend(loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=3, fontsize=8, frameon=False)
    means = []
    for column in found:
        ran = (column.get(case, "fixed") for case in cases)
        seconds = [r.duration_s for r in ran if r and r.outcome.was_judged]
        if seconds:
            means.append(f"{column.label()} {sum(seconds) / len(seconds):.1f} s")
    return _png(figure), t(
        ("Bar chart of the time each fixed script took from start to exit, per column; mean {means}"),
        means=t(", ").join(means),
    )
