"""`bench`: start-up, throughput per num_workers and the autotune measured on this machine.

Parsing the options and choosing the plan is light; the measuring (torch, the workloads, the
harness-overhead passes) is imported only when the command runs.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path

from rich.console import Console

from ..bench import plan
from . import EXIT_FAILED, arguments
from .arguments import UsageError


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser("bench", help="measure DataLoader start-up and throughput on this machine")
    parser.add_argument("--quick", action="store_true", help="a smaller plan (under 2 minutes on 2 CPUs)")
    parser.add_argument(
        "--workload",
        type=arguments.choices_list(plan.WORKLOADS, "workload"),
        default=plan.WORKLOADS,
        help="cpu, io or both (comma-separated)",
    )
    arguments.add_start_methods(parser)
    parser.add_argument(
        "--max-workers",
        type=arguments.whole_number,
        help="largest num_workers to measure (default: twice the CPU count)",
    )
    parser.add_argument("--no-overhead", action="store_true", help="skip the harness-overhead measurement")
    parser.add_argument(
        "--overhead-cases",
        help="cases for the overhead measurement, comma-separated, or 'all' for the full reproduce + "
        "verify matrix (default: 01,04: a crash and a hang)",
    )
    parser.add_argument(
        "--overhead-repeat",
        type=arguments.count,
        default=1,
        help="pairs of overhead passes, in alternating order (default 1)",
    )
    parser.add_argument(
        "--no-loaders", action="store_true", help="measure only the harness overhead (no DataLoader sweep)"
    )
    parser.add_argument(
        "--results", type=Path, help="bench file (default: results/bench/<os>-py<X.Y>-torch<V>.json)"
    )
    parser.add_argument("--no-record", action="store_true", help="do not write a bench file")
    parser.set_defaults(handler=handle)


def chosen_plan(args: argparse.Namespace) -> plan.Plan:
    """The quick or default plan, narrowed and adjusted by the options."""
    if args.no_loaders and args.no_overhead:
        raise UsageError("--no-loaders with --no-overhead leaves nothing to measure")
    chosen = replace(
        plan.QUICK if args.quick else plan.DEFAULT,
        workloads=tuple(args.workload),
        methods=tuple(args.start_methods),
        overhead=not args.no_overhead,
        overhead_repeat=args.overhead_repeat,
    )
    if args.no_loaders:
        chosen = replace(chosen, workloads=(), autotune=False)
    if args.overhead_cases is not None:
        names = [n.strip() for n in args.overhead_cases.split(",") if n.strip()]
        chosen = replace(chosen, overhead_cases=() if names == ["all"] else tuple(names))
    if args.max_workers is not None:
        chosen = replace(chosen, name="custom", worker_counts=tuple(range(args.max_workers + 1)))
    return chosen


def handle(args: argparse.Namespace, console: Console) -> int:
    from ..bench.jobs import BenchError
    from ..bench.steps import measure_and_record

    chosen = chosen_plan(args)
    try:
        return measure_and_record(chosen, args, console)
    except BenchError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_FAILED
