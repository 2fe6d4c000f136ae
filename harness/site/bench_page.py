"""The bench page: plots and tables from the latest bench file (results/bench/*.json)."""

from __future__ import annotations

import json
from pathlib import Path

import matplotlib.pyplot as plt

from .plots import _png
from .wording import t

SCHEMA_VERSION = 1  # harness.bench.steps writes it
METHOD_COLOURS = {"fork": "#1565c0", "forkserver": "#2e7d32", "spawn": "#c62828"}


class BenchFileError(Exception):
    """A bench file that cannot be shown; the message names it."""


def load_latest(bench_dir: Path) -> dict | None:
    """The most recently recorded bench file, checked; None when there is none."""
    found = []
    for path in sorted(bench_dir.glob("*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise BenchFileError(f"{path}: damaged bench file: {exc}") from None
        if not isinstance(data, dict) or data.get("schema") != SCHEMA_VERSION:
            raise BenchFileError(
                f"{path}: bench schema {data.get('schema')!r}, this site reads {SCHEMA_VERSION}"
            )
        found.append(data)
    return max(found, key=lambda d: d.get("recorded_at", ""), default=None)


def machine(bench: dict) -> str:
    env = bench["environment"]
    return t(
        (
            "Measured on {cpu}, {cpus} CPUs, {memory} GB of RAM; {system}, Python {python}, "
            "torch {torch}, Pillow {pillow}; recorded {recorded}, the whole bench took "
            "{seconds} s."
        ),
        cpu=env.get("cpu_model"),
        cpus=env.get("usable_cpus"),
        memory=env.get("memory_gb"),
        system=f"{env.get('os')} {env.get('os_release')}",
        python=env.get("python"),
        torch=env.get("torch"),
        pillow=env.get("pillow"),
        recorded=bench.get("recorded_at"),
        seconds=f"{bench.get('duration_s', 0):.0f}",
    )


def _by_workers(sweep: dict, persistent: bool, prefetch: int) -> tuple[list[int], list[dict]]:
    points = [
        (row["config"]["num_workers"], row["throughput"])
        for row in sweep["settings"]
        if row["config"]["num_workers"] == 0
        or (
            row["config"]["persistent_workers"] == persistent and row["config"]["prefetch_factor"] == prefetch
        )
    ]
    points.sort(key=lambda point: point[0])
    return [p[0] for p in points], [p[1] for p in points]


def _errors(figures: list[dict]) -> list[list[float]]:
    return [[f["median"] - f["min"] for f in figures], [f["max"] - f["median"] for f in figures]]


def _panels(bench: dict):
    """One panel a workload: (figure, [(axis, workload, {method: sweep})])."""
    sweeps = bench["sweeps"]
    figure, axes = plt.subplots(1, len(sweeps), figsize=(5.4 * len(sweeps), 3.8), squeeze=False)
    return figure, list(zip(axes[0], sweeps, sweeps.values(), strict=True))


def _line(axis, method: str, workers: list[int], figures: list[dict], **style) -> None:
    """Medians against num_workers with min–max bars, in the start method's colour."""
    medians = [f["median"] for f in figures]
    axis.errorbar(
        workers,
        medians,
        yerr=_errors(figures),
        marker="o",
        capsize=3,
        color=METHOD_COLOURS.get(method),
        **style,
    )


def _finish(axis, title: str, ylabel: str, legend_size: float | None = None) -> None:
    axis.set_title(title)
    axis.set_xlabel("num_workers")  # the argument's name, in every language
    axis.xaxis.get_major_locator().set_params(integer=True)
    axis.set_ylabel(ylabel)
    axis.grid(alpha=0.3)
    axis.legend(fontsize=legend_size)


def throughput_plot(bench: dict) -> tuple[bytes, str]:
    """Samples/s against num_workers, per start method, persistent and not, one panel a workload."""
    figure, panels = _panels(bench)
    facts = []
    for axis, kind, by_method in panels:
        for method, sweep in by_method.items():
            for persistent, style in ((True, "-"), (False, ":")):
                workers, figures = _by_workers(sweep, persistent, 2)
                label = method if persistent else t("{method}, not persistent", method=method)
                _line(axis, method, workers, figures, linestyle=style, label=label)
            facts.append(
                t("{kind} under {method}: best {best}", kind=kind, method=method, best=sweep["best"])
            )
        _finish(
            axis,
            t("{kind} workload (prefetch 2)", kind=kind),
            t("samples/s (median, min–max)"),
            legend_size=7,
        )
    return _png(figure), t(
        "Throughput against num_workers per start method; {facts}", facts=t(", ").join(facts)
    )


def first_batch_plot(bench: dict) -> tuple[bytes, str]:
    """Seconds from iter() to the first batch against num_workers, per start method."""
    figure, panels = _panels(bench)
    facts = []
    for axis, kind, by_method in panels:
        for method, sweep in by_method.items():
            counts = sorted(sweep["first_batch"], key=int)
            figures = [sweep["first_batch"][n] for n in counts]
            _line(axis, method, [int(n) for n in counts], figures, label=method)
            facts.append(
                t(
                    "{kind} under {method} with {n} workers: {seconds} s",
                    kind=kind,
                    method=method,
                    n=counts[-1],
                    seconds=f"{figures[-1]['median']:.2f}",
                )
            )
        _finish(
            axis, t("{kind} workload: time to the first batch", kind=kind), t("seconds (median, min–max)")
        )
    return _png(figure), t(
        "Time to the first batch against num_workers per start method; {facts}", facts=t(", ").join(facts)
    )


def startup_table(bench: dict) -> str:
    startup = bench.get("startup")
    if not startup:
        return t(
            '!!! warning "No bench figures recorded yet"\n    Run `nox -s bench` to measure this machine.\n'
        )
    methods = list(startup)
    sizes = sorted(next(iter(startup.values())), key=int)  # JSON keys: "0", "256", "64"
    lines = [t("| Dataset size | ") + " | ".join(methods) + " |", "| ---: |" + " ---: |" * len(methods)]
    for size in sizes:
        cells = [f"{startup[m][size]['median']:.2f} s" for m in methods]
        lines.append(f"| {size} MB | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def autotune_table(bench: dict) -> str:
    lines = [
        t(
            "| workload | start method | autotune | of the best | by the sweep alone | of "
            "the sweep's time | heuristic | of the best |"
        ),
        "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    if not bench.get("autotune"):
        return t(
            '!!! warning "No bench figures recorded yet"\n    Run `nox -s bench` to measure this machine.\n'
        )
    for kind, by_method in bench["autotune"].items():
        for method, judged in by_method.items():
            chosen, heuristic = judged["chosen"], judged["heuristic"]
            workers = t("{n} workers", n=chosen["num_workers"])
            workers_by_rule = t("{n} workers", n=heuristic["num_workers"])
            lines.append(
                f"| {kind} | {method} | {workers} | "
                f"{chosen['share_of_best']:.0%} | "
                f"{chosen.get('share_of_best_in_sweep', chosen['share_of_best']):.0%} | "
                f"{judged['share_of_sweep_time']:.0%} | {workers_by_rule} | "
                f"{heuristic['share_of_best']:.0%} |"
            )
    return "\n".join(lines) + "\n"


def _passes(spent: dict) -> str:
    """The single passes behind the means, where there were several."""
    harness, plain = spent.get("harness_passes_s", []), spent.get("plain_passes_s", [])
    if len(harness) < 2:
        return ""
    listed = ", ".join
    return t(
        (" (means of {n} passes each, in alternating order: harness {harness} s; plain loop {plain} s)"),
        n=len(harness),
        harness=listed(f"{s:.1f}" for s in harness),
        plain=listed(f"{s:.1f}" for s in plain),
    )


def _own_cpu(spent: dict) -> str:
    if "harness_cpu_s" not in spent:
        return ""
    cpu = ", ".join(f"{c:.1f}" for c in spent["harness_cpu_s"])
    return t(
        (" The harness's own process used {cpu} s of CPU per pass, {share} of the CPUs' time."),
        cpu=cpu,
        share=f"{spent['harness_cpu_share']:.1%}",
    )


def overhead(bench: dict) -> str:
    spent = bench.get("overhead_full_matrix") or bench.get("overhead")
    if spent is None:
        return t(
            '!!! warning "No bench figures recorded yet"\n    Run `nox -s bench` to measure this machine.\n'
        )
    if spent.get("full_matrix"):
        cases = t("every case")
    else:
        cases = t("cases {numbers}", numbers=", ".join(c[:2] for c in spent["cases"]))
    summary = t(
        (
            "{runs} runs ({cases}, both variants, start methods {methods}), {parallel} at a "
            "time: through the harness **{harness} s**, from a plain loop **{plain} s**: the "
            "harness added **{added}**"
        ),
        runs=spent["runs"],
        cases=cases,
        methods=", ".join(spent["methods"]),
        parallel=spent["parallel"],
        harness=f"{spent['harness_s']:.1f}",
        plain=f"{spent['plain_s']:.1f}",
        added=f"{spent['added']:+.1%}",
    )
    stop = t(".")
    lines = [
        f"{summary}{_passes(spent)}{stop}{_own_cpu(spent)}",
        "",
        t("| run that hung | timeout | reported after |"),
        "| --- | ---: | ---: |",
    ]
    for hang in spent["hang_latency"]:
        lines.append(f"| {hang['run']} | {hang['timeout_s']:g} s | {hang['reported_after_s']:.1f} s |")
    return "\n".join(lines) + "\n"
