"""`check`: a user's script run under each profile until its loaders show progress, linted,
and matched against the catalog of known pitfalls."""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import time
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from ..diagnose import FINE, PITFALL, RISK, UNJUDGED
from ..links import case_page
from ..outcomes import Outcome
from ..run import confine
from . import EXIT_FAILED, EXIT_NOT_JUDGED, EXIT_OK, arguments
from .lint import add_rule_choice, chosen_rules, lint

DEFAULT_BATCHES = 3
# After its first batch a run is watched for this many batches more, and until each worker's
# memory was sampled this often: the open descriptors and the workers' memory need a sample to
# show a trend (harness/measurements.py). Counted in what was seen, not in seconds, so that a busy
# machine judges as a quiet one does; SAMPLE_LIMIT_S after the first batch ends the window with
# what it has (a loader slower than that is sampled thinly, and the measurements say so).
DEFAULT_SAMPLE_BATCHES = 16
SAMPLE_MEMORY = 12  # samples of each worker: 3 for its baseline, the rest for its growth
SAMPLE_LIMIT_S = 60.0
MEMORY_INTERVAL_S = 0.2
# Spawned workers need a few seconds to their first batch (a fresh interpreter imports torch):
# a stall limit must leave room for that on a busy machine.
DEFAULT_STALL_S = 30.0
# Lint findings whose measurement needs a later epoch of a loader (the start-up, case 13): with one
# of them, a run is watched until a second epoch ended, as long as its time allows.
LATER_EPOCH_RULES = {"DLP011"}
# Every run starts at once (one job per profile; runs under Wine are few and capped anyway), so a
# check takes about its longest run: a run still going at the timeout is stopped, and check ends
# within a few minutes whatever the script does (--timeout longer with --full).
DEFAULT_CHECK_TIMEOUT_S = 240.0
# The whole check, preparation included (the script's packages brought for the Windows binaries,
# a lock another check holds): a run still going then is stopped and not judged, saying what took
# the time. At least --timeout and DEADLINE_MARGIN_S more, where a longer --timeout is given.
DEFAULT_CHECK_DEADLINE_S = 300.0
DEADLINE_MARGIN_S = 60.0
HEAVY_FIELDS = ("memory", "stacks", "native_stacks")
# `check --json`'s shape: "schema" goes up when a key is removed or changes meaning (adding one does
# not); docs/check.md "check --json" lists the keys.
# 2: `findings` holds every diagnosis with its status; `pitfalls` (kept one release, an alias)
# holds the pitfalls alone (in 1 it held risks and refuted findings too).
CHECK_JSON_SCHEMA = 2


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser("check", help="run a script under each profile, lint it, diagnose")
    arguments.add_script(parser, "feed the code on stdin, as a notebook runs it")
    arguments.add_profiles(parser)
    parser.add_argument(
        "--batches",
        type=arguments.count,
        default=DEFAULT_BATCHES,
        help=f"stop a run once it got this many batches (default {DEFAULT_BATCHES}) and --sample passed",
    )
    parser.add_argument(
        "--sample",
        type=arguments.count,
        default=DEFAULT_SAMPLE_BATCHES,
        metavar="BATCHES",
        help=f"batches a run is watched for after its first, for trends (default {DEFAULT_SAMPLE_BATCHES}; "
        f"at most {SAMPLE_LIMIT_S:g} s)",
    )
    parser.add_argument(
        "--full",
        action="store_true",
        help="run each script to its end (or the timeout), for the failure itself rather than a prediction",
    )
    parser.add_argument(
        "--stall",
        type=arguments.positive_number,
        default=DEFAULT_STALL_S,
        help=f"seconds without a batch that make a hang (default {DEFAULT_STALL_S:g})",
    )
    arguments.add_timeout(parser, DEFAULT_CHECK_TIMEOUT_S, "before any run is stopped")
    parser.add_argument(
        "--deadline",
        type=arguments.positive_number,
        default=DEFAULT_CHECK_DEADLINE_S,
        help=f"seconds the whole check may take, preparation included; a run still going then is "
        f"not judged (default {DEFAULT_CHECK_DEADLINE_S:g}; at least --timeout + {DEADLINE_MARGIN_S:g})",
    )
    arguments.add_idle(parser)
    for way in confine.ORDER:  # what a container or job confines a run to
        parser.add_argument(
            way.option,
            type=arguments.count if way.whole else arguments.positive_number,
            metavar=way.metavar,
            dest=way.setting,
            help=way.help,
        )
    arguments.add_jobs(parser, per_profile=True)
    add_rule_choice(parser)
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.set_defaults(handler=handle)


def handle(args: argparse.Namespace, console: Console) -> int:
    from .. import scheduler, verdict
    from ..cases import discover
    from ..diagnose import diagnose
    from ..run import script_needs
    from ..run.settings import RunSettings
    from . import check_progress

    _require_torch()
    started = time.monotonic()
    findings = lint([args.path], args.stdin, chosen_rules(args))
    settings = RunSettings(
        args=tuple(args.script_args),
        via_stdin=args.stdin,
        memory_interval_s=MEMORY_INTERVAL_S,
        stop_after_batches=None if args.full else args.batches,
        sample_batches=args.sample,
        sample_memory=SAMPLE_MEMORY,
        sample_limit_s=SAMPLE_LIMIT_S,
        later_epoch=any(f.code in LATER_EPOCH_RULES for f in findings),
        stall_s=args.stall,
        confined=_confined(args),
        deadline=started + deadline_s(args),
        **arguments.overrides(args),
    )
    if not args.json:
        from .. import outcome_table

        console.print(_plan(args, settings), soft_wrap=True)
        outcome_table.print_platform_notes(console, list(args.profiles))

    needs = script_needs.needs(args.path)  # what a case would declare (a process group's gloo)

    def run(profile):
        with progress.running(profile.name):
            return verdict.reach(
                args.path, profile, settings, needs=needs, case=args.path.name, variant="check"
            )

    progress = check_progress.Progress(Console(stderr=True) if args.json else console, len(args.profiles))
    with progress:
        results = scheduler.run_all(list(args.profiles), arguments.jobs(args), run=run, on_done=progress.done)
    found = diagnose(discover(args.cases_dir), results, findings)
    if args.json:
        print(json.dumps(_as_json(args.path, results, findings, found), indent=2, sort_keys=True))
    else:
        _print_check(console, results, findings, found)
    return exit_status(results, findings, found)


def deadline_s(args: argparse.Namespace) -> float:
    """The seconds the whole check may take: --deadline, stretched to a longer --timeout."""
    return max(args.deadline, args.timeout + DEADLINE_MARGIN_S)


def _require_torch() -> None:
    """`check` runs the script with this environment's interpreter: without torch every run would
    fail on its first import, which says nothing about the script."""
    if importlib.util.find_spec("torch") is None:
        raise arguments.UsageError(
            f"this environment ({sys.executable}) has no torch, and check runs your script with it: "
            "install dataloader-pitfalls into the environment you train in, or add torch here "
            "(pip install 'dataloader-pitfalls[torch]')"
        )


def _plan(args, settings) -> str:
    stop = (
        "a run goes to its end"
        if args.full
        else f"a run is ok once its DataLoaders delivered {args.batches} batches and were watched "
        f"{args.sample} batches more for trends (each worker's memory sampled {SAMPLE_MEMORY} times; "
        f"at most {SAMPLE_LIMIT_S:g} s)"
    )
    return (
        f"Checking {escape(str(args.path))} under {', '.join(p.name for p in args.profiles)}: {stop}; "
        f"{_idle(settings.idle_s)}after "
        f"{args.stall:g} s without a batch (timeout {args.timeout:g} s; the whole check within "
        f"{deadline_s(args):g} s); each run in a working and temporary directory of its own"
        + "".join(f", {words}" for words in confine.said(settings.confined))
    )


def _confined(args) -> dict[str, float]:
    """What the command line confines each run to ({setting: size})."""
    return {way.setting: size for way in confine.ORDER if (size := getattr(args, way.setting)) is not None}


def _idle(idle_s: float | None) -> str:
    if idle_s is None:
        return "hung "
    return f"hung once it waits {idle_s:g} s for a batch with no CPU used and a worker blocked for good, or "


def exit_status(results, findings, found) -> int:
    """1 when something was found: a run that is not ok, a pitfall, or a risk (a static finding
    that no run refuted); else 3 when no run could be judged (every one skipped, or the harness
    could not run it); else 0, also where every static finding was refuted by a measurement or
    could not be measured here (unjudged: printed with the reason)."""
    judged = [r for r in results if r.outcome.was_judged]
    explained = {f for d in found for f in d.lint}
    unexplained = [f for f in findings if f not in explained]
    if unexplained or any(d.status in (PITFALL, RISK) for d in found):
        return EXIT_FAILED
    if any(r.outcome.is_failure and r.outcome.was_judged for r in results):
        return EXIT_FAILED
    return EXIT_OK if judged else EXIT_NOT_JUDGED


def _as_json(path: Path, results, findings, found) -> dict:
    runs = []
    for result in results:
        data = {k: v for k, v in result.to_json().items() if k not in HEAVY_FIELDS}
        data["stacks"] = sorted(result.stacks)  # the pids; the full dumps are in a results file
        runs.append(data)
    return {
        "schema": CHECK_JSON_SCHEMA,
        "script": str(path),
        "runs": runs,
        "lint": [str(f) for f in findings],
        "findings": [d.to_json() for d in found],
        "pitfalls": [d.to_json() for d in found if d.status == PITFALL],  # deprecated alias
    }


def _print_check(console: Console, results, findings, found) -> None:
    from .. import outcome_table

    for result in results:
        console.print(
            f"  [bold]{result.profile:10}[/] [{result.outcome.style}]{result.outcome:7}[/] "
            f"{escape(result.signature)}",
            soft_wrap=True,
        )
        outcome_table.print_cleanup_note(console, result, indent=4)
    console.print(f"Static checks: {len(findings)} finding(s)")
    for finding in findings:
        console.print(f"  {escape(str(finding))}", soft_wrap=True)
    _print_diagnoses(console, found)
    for result in results:
        if result.outcome is Outcome.SKIPPED:
            console.print(f"[dim]{result.profile}: not judged: {escape(result.reason)}[/]", soft_wrap=True)
    failing = [r for r in results if r.outcome.is_failure]
    if failing and not any(d.status == PITFALL for d in found):
        console.print("[yellow]No known pitfall matches what the runs showed.[/] The causes as observed:")
        for result in failing:
            console.print(f"  {result.profile}: {result.outcome}: {escape(result.signature)}", soft_wrap=True)
            if result.native_stacks_note:  # a hang's mechanism shows in its native stacks
                console.print(f"    {escape(result.native_stacks_note)}", soft_wrap=True)
            outcome_table.print_output_end(console, result, indent=4)
    judged = [r.profile for r in results if r.outcome.was_judged]
    if not judged:
        console.print(
            "[bold yellow]Nothing could be judged: no run of the script was observed to the end "
            "(reasons above); only the static checks speak.[/]"
        )
    elif not failing and all(d.status in (FINE, UNJUDGED) for d in found):
        unmeasured = sum(d.status == UNJUDGED for d in found)
        console.print(
            f"[bold green]No pitfall found: the script ran under {', '.join(judged)}.[/]"
            + ("" if len(judged) == len(results) else " The other profiles were not judged (above).")
            + (f" {unmeasured} risk(s) not measured here (above)." if unmeasured else "")
        )


HEADINGS = {
    PITFALL: "[bold red]Known pitfall(s) found: {}[/]",
    RISK: "[bold yellow]Risk(s): {} static finding(s) that no run could confirm or refute[/]",
    UNJUDGED: (
        "[bold yellow]Risk(s), not measured here: {} static finding(s) whose measurement these runs "
        "could not make (they do not fail the check)[/]"
    ),
    FINE: "[bold green]Checked, and fine here: {} static finding(s) that the runs refuted[/]",
}


def _print_diagnoses(console: Console, found) -> None:
    for status in (PITFALL, RISK, UNJUDGED, FINE):
        shown = [d for d in found if d.status == status]
        if shown:
            console.print(HEADINGS[status].format(len(shown)))
        for diagnosis in shown:
            _print_diagnosis(console, diagnosis)


def _print_diagnosis(console: Console, diagnosis) -> None:
    case = diagnosis.case
    console.print(f"[bold]{case.number} · {escape(case.title)}[/]", soft_wrap=True)
    console.print(f"    evidence: {escape('; '.join(diagnosis.evidence))}", soft_wrap=True)
    if diagnosis.versions:
        console.print(f"    Python versions: {escape(diagnosis.versions)}", soft_wrap=True)
    if diagnosis.status != PITFALL:
        label = {FINE: "checked", UNJUDGED: "risk, not measured"}.get(diagnosis.status, "not confirmed")
        console.print(f"    {label}: {escape(diagnosis.why)}", soft_wrap=True)
        if diagnosis.status == FINE:
            return
    console.print(f"    why: {escape(case.recognition.mechanism)}", soft_wrap=True)
    console.print(f"    fix: {escape(case.recognition.fix)}", soft_wrap=True)
    console.print(f"    case: {case_page(case.name)}", soft_wrap=True)
