"""`python -m harness bench` at work: the measurements in order, with progress, then the report
and the file."""

from __future__ import annotations

import argparse
import datetime
import json
import platform
import statistics
import sys
import tempfile
import time
from dataclasses import asdict
from pathlib import Path

import psutil
from rich.console import Console

from .. import environment, results
from ..cases import discover, select
from . import jobs, overhead, plan, report, summary, workloads

SCHEMA_VERSION = 1
BENCH_DIR = results.RESULTS_DIR / "bench"


def describe_machine() -> dict:
    described = environment.describe()
    described.update(
        cpu_model=_cpu_model(),
        usable_cpus=plan.cpu_count(),
        memory_gb=round(psutil.virtual_memory().total / 2**30, 1),
        pillow=environment.package_version("pillow"),
    )
    return described


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def measure_and_record(chosen: plan.Plan, args: argparse.Namespace, console: Console) -> int:
    """Measures what `chosen` asks, prints the report and records the figures (unless --no-record)."""
    machine = describe_machine()
    console.print(
        f"Benchmark ({'quick' if args.quick else 'default'} plan) on {machine['cpu_model']}, "
        f"{machine['usable_cpus']} CPUs, {machine['memory_gb']} GB; "
        f"Python {machine['python']}, torch {machine['torch']}"
    )
    started = time.monotonic()
    data = {"schema": SCHEMA_VERSION, "environment": machine, "plan": asdict(chosen)}
    if chosen.workloads:
        with tempfile.TemporaryDirectory(prefix="dlp-bench-") as folder:
            if "io" in chosen.workloads:
                workloads.write_files(Path(folder), chosen.samples)
            data["sweeps"], data["autotune"], data["startup"] = measure_loaders(chosen, folder, console)
    if chosen.overhead:
        # the full matrix is kept apart, so that a later default run (a few cases) does not replace it
        data["overhead_full_matrix" if not chosen.overhead_cases else "overhead"] = measure_overhead(
            chosen, console, args
        )
    data["duration_s"] = round(time.monotonic() - started, 1)
    data["recorded_at"] = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    report.print_report(console, data)
    if not args.no_record:
        path = args.results or BENCH_DIR / environment.results_filename(machine)
        results.write_json(path, merged_with_recorded(path, data))
        console.print(f"Bench figures recorded in {path}")
    return 0


LOADER_PARTS = ("sweeps", "autotune", "startup")
OVERHEAD_PARTS = ("overhead", "overhead_full_matrix")


def merged_with_recorded(path: Path, data: dict) -> dict:
    """The parts measured now over the file's other parts: a run of the overhead alone keeps the
    recorded sweep, with its environment, plan, date and duration."""
    try:
        recorded = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return data
    if not isinstance(recorded, dict) or recorded.get("schema") != SCHEMA_VERSION:
        return data
    if "sweeps" in data:
        return {key: value for key, value in recorded.items() if key in OVERHEAD_PARTS} | data
    return recorded | {key: value for key, value in data.items() if key in OVERHEAD_PARTS}


def measure_loaders(chosen: plan.Plan, io_folder: str, console: Console) -> tuple[dict, dict, dict]:
    """Per workload and start method, in one process: the autotune, then the exhaustive sweep (and,
    with the first workload, what one worker costs to start by Dataset size)."""
    sweeps: dict = {}
    tuned: dict = {}
    startup: dict = {}
    startup_job = {"megabytes": list(chosen.startup_megabytes), "repeats": chosen.startup_repeats}
    for kind in chosen.workloads:
        workload = chosen.workload(kind, io_folder)
        for method in chosen.methods:
            label = f"[{kind} · {method}]"

            def show(record: dict, label: str = label) -> None:
                if "config" in record:
                    figures = summary.throughput(record["config"], record["epochs"])
                    say(
                        console,
                        f"  {label} {summary.config_key(record['config'])}: first batch "
                        f"{record['epochs'][0]['first_batch_s']:.2f} s, {figures['median']:,.0f} samples/s",
                    )

            records = jobs.measure(
                {
                    "workload": workload,
                    "method": method,
                    "batch_size": chosen.batch_size,
                    "epochs": chosen.epochs,
                    "configs": chosen.configs(),
                    "autotune_max_workers": chosen.max_workers if chosen.autotune else None,
                    "side_by_side_rounds": chosen.side_by_side_rounds,
                    "startup": startup_job if kind == chosen.workloads[0] else None,
                },
                show,
            )
            sweep = summary.summarise_sweep(records)
            sweeps.setdefault(kind, {})[method] = sweep | {"records": records}
            say(console, f"  {label} sweep done in {sweep['sweep_s']:.1f} s; best: {sweep['best']}")
            choice = next((r for r in records if r.get("autotune")), None)
            if choice is not None:
                again = next((r for r in records if "side_by_side" in r), None)
                judged = summary.summarise_autotune(sweep, choice, plan.heuristic(kind, method), again)
                tuned.setdefault(kind, {})[method] = judged
                say(console, f"  {label} autotune: {report.autotune_line(judged)}")
            started = [r for r in records if "megabytes" in r]
            if started:
                startup[method] = summary.summarise_startup(started)
                figures = ", ".join(f"{mb} MB: {s['median']:.2f} s" for mb, s in startup[method].items())
                say(console, f"  {label} one worker's first batch by Dataset size: {figures}")
    return sweeps, tuned, startup


def measure_overhead(chosen: plan.Plan, console: Console, args: argparse.Namespace) -> dict:
    """The matrix through the harness and from a plain loop, `--overhead-repeat` pairs of
    passes in alternating order (harness first, then plain first), so that neither side always
    runs on a warmer machine; the walls compared are the means of each side's passes."""
    cases = select(discover(args.cases_dir), list(chosen.overhead_cases))
    runs = overhead.runnable_jobs(cases, list(chosen.overhead_methods))
    parallel = plan.cpu_count()
    repeat = chosen.overhead_repeat
    say(
        console,
        f"  [overhead] {len(runs)} runs of {len(cases)} cases, {parallel} at a time, {repeat} pair(s)",
    )
    harness_walls, harness_cpu, plain_walls, left_behind, observed = [], [], [], [], []
    for number in range(repeat):
        for side in ("harness", "plain") if number % 2 == 0 else ("plain", "harness"):
            if side == "harness":
                wall, cpu, results_now = overhead.through_harness(runs, parallel)
                harness_walls.append(wall)
                harness_cpu.append(cpu)
                observed = observed or results_now
            else:
                wall, left = overhead.through_plain_loop(runs, parallel, sys.executable)
                plain_walls.append(wall)
                left_behind.append(left)
            say(console, f"  [overhead] pass {number + 1}, {side}: {wall:.1f} s")
    harness_s, plain_s = statistics.mean(harness_walls), statistics.mean(plain_walls)
    return {
        "runs": len(runs),
        "cases": [case.name for case in cases],
        "methods": list(chosen.overhead_methods),
        "full_matrix": not chosen.overhead_cases,
        "parallel": parallel,
        "harness_s": round(harness_s, 1),
        "plain_s": round(plain_s, 1),
        "harness_passes_s": [round(w, 1) for w in harness_walls],
        "plain_passes_s": [round(w, 1) for w in plain_walls],
        "added": round(harness_s / plain_s - 1, 4),
        # the harness process's own CPU time per pass, and its share of the CPUs over the pass
        "harness_cpu_s": [round(c, 1) for c in harness_cpu],
        "harness_cpu_share": round(sum(harness_cpu) / (sum(harness_walls) * parallel), 4),
        "recorded_at": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "plain_loop_left": left_behind,
        "hang_latency": overhead.hang_latency(runs, observed),
    }


def say(console: Console, text: str) -> None:
    """A progress line, printed as it is (its brackets are not markup)."""
    console.print(text, markup=False, highlight=False, soft_wrap=True)
