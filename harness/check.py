"""`check` (run anyone's script under each start method, lint it, diagnose) and `lint` commands."""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

from rich.console import Console
from rich.markup import escape

from harness import matrix
from harness.cases import START_METHODS, discover
from harness.diagnose import Diagnosis, diagnose
from harness.lint import lint_paths
from harness.report import STYLES, cleanup_note

DEFAULT_BATCHES = 3
DEFAULT_STALL_S = 30.0  # this 2-core machine: spawn start-up to the first batch takes about 5 s
DEFAULT_CHECK_TIMEOUT_S = 600.0
EXIT_FOUND = 1
HEAVY_FIELDS = ("memory", "stacks", "native_stacks")
NO_GPU = re.compile(
    r"Torch not compiled with CUDA enabled|Found no NVIDIA driver|No CUDA GPUs are available"
    r"|CUDA driver initialization failed|no CUDA-capable device"
)


def add_parsers(commands, positive, whole_number) -> None:
    check = commands.add_parser("check", help="run a script under each start method, lint it, diagnose")
    check.add_argument("path", type=Path, help="your script, run unmodified as __main__")
    check.add_argument("script_args", nargs="*", metavar="ARG", help="its arguments (after --)")
    check.add_argument("--start-method", default=",".join(START_METHODS), help="comma-separated list")
    check.add_argument("--stdin", action="store_true", help="feed the code on stdin, as a notebook runs it")
    check.add_argument(
        "--batches", default=str(DEFAULT_BATCHES), help="stop a run once it got this many batches"
    )
    check.add_argument(
        "--stall", default=str(DEFAULT_STALL_S), help="seconds without a batch that make a hang"
    )
    check.add_argument(
        "--timeout", default=str(DEFAULT_CHECK_TIMEOUT_S), help="seconds before any run is stopped"
    )
    check.add_argument("--jobs", default="3", help="runs in parallel")
    check.add_argument("--json", action="store_true", help="print the results as JSON")
    check.set_defaults(handler=command_check, positive=positive, whole_number=whole_number)
    lint = commands.add_parser("lint", help="static checks for DataLoader pitfalls (no code is run)")
    lint.add_argument("paths", nargs="+", type=Path, metavar="PATH", help="files or folders")
    lint.add_argument("--notebook", action="store_true", help="code run interactively (no main module)")
    lint.set_defaults(handler=command_lint)


def _lint(paths: list[Path], notebook: bool, usage_error) -> list:
    for path in paths:
        if not path.exists():
            raise usage_error(f"no such file or folder: {path}")
    try:
        return lint_paths(paths, notebook=notebook)
    except SyntaxError as exc:
        raise usage_error(f"cannot parse {exc.filename}:{exc.lineno}: {exc.msg}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise usage_error(f"cannot read {getattr(exc, 'filename', '') or exc}") from None


def command_lint(args: argparse.Namespace, console: Console, usage_error) -> int:
    findings = _lint(args.paths, args.notebook, usage_error)
    for finding in findings:
        console.print(escape(str(finding)), soft_wrap=True)
    console.print(f"{len(findings)} finding(s)", style="bold red" if findings else "bold green")
    return EXIT_FOUND if findings else 0


def command_check(args: argparse.Namespace, console: Console, usage_error) -> int:
    from harness.cli import _methods  # the one parser of start-method lists

    methods = _methods(args.start_method)
    batches = int(args.whole_number(args.batches, "--batches"))
    stall, timeout = args.positive(args.stall, "--stall"), args.positive(args.timeout, "--timeout")
    jobs = int(args.whole_number(args.jobs, "--jobs"))
    if not args.path.is_file():
        raise usage_error(f"no such script: {args.path}")
    findings = _lint([args.path], args.stdin, usage_error)
    if not args.json:
        console.print(
            f"Checking {args.path} under {', '.join(methods)}: a run is ok once its DataLoaders delivered "
            f"{batches} batches, hung after {stall:g} s without a batch (timeout {timeout:g} s)"
        )

    def run(method: str):
        return _unless_no_gpu(
            matrix.observe(
                args.path,
                method,
                timeout,
                tuple(args.script_args),
                via_stdin=args.stdin,
                stop_after_batches=batches,
                stall_s=stall,
                case=args.path.name,
                variant="check",
            )
        )

    results = matrix.run_all(methods, jobs, run=run)
    found = diagnose(discover(args.cases_dir), results, findings)
    all_ok = all(r.outcome in ("ok", "skipped") for r in results) and not findings
    if args.json:
        print(json.dumps(_as_json(args.path, results, findings, found), indent=2, sort_keys=True))
    else:
        _print_check(console, results, findings, found)
    return 0 if all_ok else EXIT_FOUND


def _unless_no_gpu(result):
    """A run that failed only because this machine has no usable GPU proves nothing: skipped."""
    if result.outcome in ("crash", "wrong") and NO_GPU.search(result.signature):
        result.reason = f"this machine has no usable GPU ({result.signature})"
        result.outcome, result.signature = "skipped", ""
    return result


def _as_json(path: Path, results, findings, found: list[Diagnosis]) -> dict:
    runs = []
    for result in results:
        data = {k: v for k, v in result.to_json().items() if k not in HEAVY_FIELDS}
        data["stacks"] = sorted(result.stacks)  # the pids; the full dumps are in a results file
        runs.append(data)
    return {
        "script": str(path),
        "runs": runs,
        "lint": [str(f) for f in findings],
        "pitfalls": [d.to_json() for d in found],
    }


def _print_check(console: Console, results, findings, found: list[Diagnosis]) -> None:
    for result in results:
        style = STYLES.get(result.outcome, "")
        console.print(
            f"  [bold]{result.start_method:10}[/] [{style}]{result.outcome:7}[/] {escape(result.signature)}",
            soft_wrap=True,
        )
        if note := cleanup_note(result):
            console.print(f"    [yellow]left behind:[/] {escape(note)}", soft_wrap=True)
    console.print(f"Static checks: {len(findings)} finding(s)")
    for finding in findings:
        console.print(f"  {escape(str(finding))}", soft_wrap=True)
    if found:
        console.print(f"[bold red]Known pitfall(s) found: {len(found)}[/]")
    for diagnosis in found:
        case, evidence = diagnosis.case, [*diagnosis.runtime, *(f.code for f in diagnosis.lint)]
        console.print(f"[bold]{case.number} · {escape(case.title)}[/]", soft_wrap=True)
        console.print(f"    evidence: {escape('; '.join(evidence))}", soft_wrap=True)
        console.print(f"    why: {escape(' '.join(case.summary.split()))}", soft_wrap=True)
        console.print(f"    fix: {escape(case.recognition.fix)}", soft_wrap=True)
        console.print(f"    case: cases/{case.name}/   docs: cases/{case.name}/ on the site", soft_wrap=True)
    for result in results:
        if result.outcome == "skipped":
            console.print(
                f"[dim]{result.start_method}: not judged: {escape(result.reason)}[/]", soft_wrap=True
            )
    failing = [r for r in results if r.outcome not in ("ok", "skipped")]
    if failing and not any(d.runtime for d in found):
        console.print("[yellow]No known pitfall matches what the runs showed.[/] The causes as observed:")
        for result in failing:
            console.print(
                f"  {result.start_method}: {result.outcome}: {escape(result.signature)}", soft_wrap=True
            )
            for line in result.output_tail.splitlines()[-6:]:
                console.print(f"    | {escape(line)}", soft_wrap=True)
    if not failing and not found:
        console.print("[bold green]No pitfall found: the script ran under every start method checked.[/]")
