"""The bench's terminal report: tables of the figures, then the ratios the goals are about."""

from __future__ import annotations

from rich.console import Console
from rich.table import Table

AUTOTUNE_SHARE_GOAL = 0.95  # of the sweep's best throughput
AUTOTUNE_TIME_GOAL = 0.20  # of the sweep's time
OVERHEAD_GOAL = 0.05  # added by the harness over a plain loop


def autotune_line(judged: dict) -> str:
    chosen, heuristic = judged["chosen"], judged["heuristic"]
    return (
        f"chose {chosen['num_workers']} workers in {judged['seconds']:.1f} s: "
        f"{_share(chosen['share_of_best'])} of the sweep's best{_in_sweep(chosen)}, "
        f"at {_share(judged['share_of_sweep_time'])} of its time; the heuristic's "
        f"{heuristic['num_workers']} workers: {_share(heuristic['share_of_best'])} of the best"
    )


def _in_sweep(chosen: dict) -> str:
    """Where the choice was measured again beside the best: what the sweep alone had said."""
    if "share_of_best_in_sweep" not in chosen:
        return ""
    return f" measured side by side ({_share(chosen['share_of_best_in_sweep'])} by the sweep alone)"


def _share(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.0%}"


def _goal(ok: bool, judged: bool = True) -> str:
    if not judged:
        return "not judged on this plan"
    return "[green]met[/]" if ok else "[bold red]MISSED[/]"


def judged_plan(data: dict) -> bool:
    """Whether the goals apply: only the default plan's sweep and matrix are what they are about
    (the quick plan's sweep of 0 and 2 workers makes any search look slow against it)."""
    return data.get("plan", {}).get("name", "default") == "default"


def throughput_table(kind: str, by_method: dict) -> Table:
    methods = list(by_method)
    grid = Table(title=f"{kind} workload: samples/s, median of the epochs after the first (min–max)")
    grid.add_column("setting")
    for method in methods:
        grid.add_column(method, justify="right")
    keys = [row["key"] for row in next(iter(by_method.values()))["settings"]]
    for key in keys:
        cells = []
        for method in methods:
            sweep = by_method[method]
            row = next(r for r in sweep["settings"] if r["key"] == key)
            figure = row["throughput"]
            text = f"{figure['median']:,.0f} ({figure['min']:,.0f}–{figure['max']:,.0f})"
            cells.append(f"[bold]{text}[/]" if key == sweep["best"] else text)
        grid.add_row(key, *cells)
    return grid


def first_batch_table(kind: str, by_method: dict) -> Table:
    methods = list(by_method)
    grid = Table(title=f"{kind} workload: seconds from iter() to the first batch, median (min–max, starts)")
    grid.add_column("num_workers", justify="right")
    for method in methods:
        grid.add_column(method, justify="right")
    counts = list(next(iter(by_method.values()))["first_batch"])
    for workers in counts:
        cells = []
        for method in methods:
            s = by_method[method]["first_batch"][workers]
            cells.append(f"{s['median']:.2f} ({s['min']:.2f}–{s['max']:.2f}, {s['n']})")
        grid.add_row(str(workers), *cells)
    return grid


def startup_table(startup: dict) -> Table:
    grid = Table(title="One worker's time to its first batch, by size of the Dataset sent to it (s, median)")
    grid.add_column("Dataset size", justify="right")
    methods = list(startup)
    for method in methods:
        grid.add_column(method, justify="right")
    for size in sorted(next(iter(startup.values())), key=int):
        grid.add_row(f"{size} MB", *(f"{startup[m][size]['median']:.2f}" for m in methods))
    return grid


def autotune_table(tuned: dict) -> Table:
    grid = Table(title="Autotune against the exhaustive sweep, and the tutorial heuristic")
    columns = (
        "workload",
        "method",
        "autotune",
        "of best",
        "by sweep alone",
        "of sweep time",
        "heuristic",
        "of best",
    )
    for column in columns:
        grid.add_column(column, justify="right" if column.startswith(("of", "by")) else "left")
    for kind, by_method in tuned.items():
        for method, judged in by_method.items():
            chosen, heuristic = judged["chosen"], judged["heuristic"]
            grid.add_row(
                kind,
                method,
                f"{chosen['num_workers']} workers",
                _share(chosen["share_of_best"]),
                _share(chosen.get("share_of_best_in_sweep", chosen["share_of_best"])),
                _share(judged["share_of_sweep_time"]),
                f"{heuristic['num_workers']} workers",
                _share(heuristic["share_of_best"]),
            )
    return grid


def print_report(console: Console, data: dict) -> None:
    for kind, by_method in data.get("sweeps", {}).items():
        console.print(throughput_table(kind, by_method))
        console.print(first_batch_table(kind, by_method))
    if data.get("startup"):
        console.print(startup_table(data["startup"]))
    goals_apply = judged_plan(data)
    tuned = [judged for by_method in data.get("autotune", {}).values() for judged in by_method.values()]
    if tuned:
        console.print(autotune_table(data["autotune"]))
        worst_share = min(j["chosen"]["share_of_best"] for j in tuned)
        worst_time = max(j["share_of_sweep_time"] for j in tuned)
        heuristic = min(j["heuristic"]["share_of_best"] for j in tuned)
        console.print(
            f"Autotune: at least {worst_share:.0%} of the best throughput (goal ≥ {AUTOTUNE_SHARE_GOAL:.0%}: "
            f"{_goal(worst_share >= AUTOTUNE_SHARE_GOAL, goals_apply)}), "
            f"at most {worst_time:.0%} of the sweep's time "
            f"(goal ≤ {AUTOTUNE_TIME_GOAL:.0%}: {_goal(worst_time <= AUTOTUNE_TIME_GOAL, goals_apply)}); "
            f"the heuristic: at least {heuristic:.0%} of the best"
        )
    for key in ("overhead", "overhead_full_matrix"):
        if key not in data:
            continue
        spent = data[key]
        console.print(
            f"Harness overhead: {spent['runs']} runs, {spent['parallel']} at a time, "
            f"mean of {len(spent['harness_passes_s'])} pass(es) each: "
            f"harness {spent['harness_s']:.1f} s, plain loop {spent['plain_s']:.1f} s: "
            f"{spent['added']:+.1%} "
            f"(goal ≤ {OVERHEAD_GOAL:.0%}: {_goal(spent['added'] <= OVERHEAD_GOAL, goals_apply)})"
        )
        if "harness_cpu_s" in spent:
            console.print(
                f"  the harness's own process used {', '.join(f'{c:.1f}' for c in spent['harness_cpu_s'])} s "
                f"of CPU per pass: {spent['harness_cpu_share']:.1%} of the {spent['parallel']} CPUs' time"
            )
        for hang in spent["hang_latency"]:
            console.print(
                f"  hang reported after {hang['reported_after_s']:.1f} s for a "
                f"{hang['timeout_s']:g} s timeout "
                f"({hang['reported_after_s'] / hang['timeout_s']:.2f}×): {hang['run']}"
            )
    console.print(f"Bench took {data['duration_s']:.0f} s")
