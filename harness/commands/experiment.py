"""`experiment`: run one of the experiments the course quotes and record what it measured
(harness/experiments.py; declared in tests/scripts/experiments.toml)."""

from __future__ import annotations

import argparse
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from ..outcomes import Outcome
from . import EXIT_FAILED, EXIT_OK, arguments
from .arguments import UsageError


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "experiment",
        help="run an experiment the course quotes (tests/scripts/experiments.toml) and record it",
    )
    parser.add_argument("names", nargs="*", metavar="NAME", help="experiments to run (none: list them)")
    # One at a time by default: most experiments time something, and runs beside it would slow it.
    arguments.add_jobs(parser, default=1)
    parser.add_argument("--no-record", action="store_true", help="print the figures; write no file")
    parser.add_argument(
        "--declarations", type=Path, help="the declarations file (default: tests/scripts/experiments.toml)"
    )
    parser.add_argument("--recorded-dir", type=Path, help="where to record (default: results/experiments)")
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace, console: Console) -> int:
    from .. import experiments

    declared = experiments.declared(args.declarations or experiments.DECLARATIONS)
    if not args.names:
        for name, experiment in declared.items():
            console.print(f"[bold]{name}[/]: {escape(experiment.about)}", soft_wrap=True)
        return EXIT_OK
    unknown = [name for name in args.names if name not in declared]
    if unknown:
        raise UsageError(f"no experiment named {', '.join(unknown)} (declared: {', '.join(declared)})")
    failed = False
    for name in args.names:
        failed = _run(console, declared[name], args) or failed
    return EXIT_FAILED if failed else EXIT_OK


def _run(console: Console, experiment, args: argparse.Namespace) -> bool:
    """Runs every repeat of every run of `experiment`, a line each; records them. True where the
    harness failed a run (an `error`), which makes the figures incomplete."""
    from .. import experiments, scheduler, verdict
    from ..run.settings import RunSettings

    tasks = [run for run in experiment.runs for _ in range(run.repeat)]
    console.print(
        f"[bold]{experiment.name}[/]: {len(tasks)} runs on {args.jobs} job(s). {escape(experiment.about)}"
    )
    started = time.monotonic()
    by_label = {run.label: run for run in experiment.runs}

    def observe(run):
        confined = {"memory_cgroup_mb": run.memory_mb} if run.memory_mb else {}
        settings = RunSettings(timeout_s=run.timeout_s, args=run.args, confined=confined)
        with tempfile.TemporaryDirectory(prefix="dlp-experiment-") as folder:
            script = run.edited(Path(folder))
            return verdict.reach(script, run.profile, settings, case=experiment.name, variant=run.label)

    def done(result) -> None:
        figures = experiment.measured(result.output_tail)
        shown = ", ".join(f"{key} {values}" for key, values in figures.items() if values)
        console.print(
            f"  {result.variant:16} {result.profile:10} → {result.outcome} {result.duration_s:.1f}s {shown}",
            highlight=False,
            soft_wrap=True,
        )

    observed = scheduler.run_all(tasks, args.jobs, on_done=done, run=observe, caps={})
    pairs = [(by_label[result.variant], result) for result in observed]
    console.print(f"  {len(observed)} runs in {time.monotonic() - started:.0f} s")
    if not args.no_record:
        path = experiments.recorded_path(experiment.name, args.recorded_dir or experiments.RECORDED_DIR)
        experiments.record(experiment, pairs, path)
        console.print(f"  recorded in {escape(str(path))}")
    return any(result.outcome is Outcome.ERROR for result in observed)
