"""A pair of results files for the site's tests: a Linux one (linux observed, windows under Wine,
windows emulated) and a Windows one (windows observed)."""

from __future__ import annotations

from pathlib import Path

UNDER_WINE = "Windows binaries under Wine 8.0: CPython 3.13.2 win_amd64, torch 2.13.0+cpu win_amd64"


def how(emulation: str, python: str = "3.11.7"):
    """The typed `how` that goes with a test result's `emulation` (a run under Wine, an emulation
    on this machine's interpreter, or a native run)."""
    from harness.run.launch import How

    if emulation == UNDER_WINE:
        return How("wine", "CPython 3.13.2 win_amd64 under Wine 8.0", "3.13.2", False)
    return How("native", f"CPython {python}", python, bool(emulation))


def results_fixture(folder: Path) -> list:
    """A Linux results file (linux observed, windows under Wine, windows emulated) and a Windows one
    (windows observed)."""
    from harness import results
    from harness.results import ResultsFile, RunResult
    from harness.site import results_data

    def run(case, profile, outcome, emulation="", matched=True, python="3.11.7"):
        return RunResult(
            case=case,
            variant="broken",
            profile=profile,
            outcome=outcome,
            emulation=emulation,
            how=how(emulation, python),
            matched=matched,
        )

    emulated = "spawn on Linux, Python 3.11; torch's file_system sharing strategy in every process"
    linux = [
        run("12_too_many_open_files", "linux", "crash"),
        run("12_too_many_open_files", "windows", "ok", UNDER_WINE),
        run("12_too_many_open_files", "windows-emulated", "ok", emulated),
        run("01_missing_main_guard", "windows-emulated", "crash", emulated),
    ]
    windows = [run("01_missing_main_guard", "windows", "crash", python="3.12.7")]
    linux_env = {"os": "linux", "python": "3.11.7", "torch": "2.13.0", "recorded_at": "2026-11-30"}
    windows_env = {"os": "windows", "os_release": "11", "python": "3.12.7", "torch": "2.13.0"}
    results.save(folder / "linux-py3.11-torch2.13.0.json", ResultsFile(linux_env, linux))
    results.save(folder / "windows-py3.12-torch2.13.0.json", ResultsFile(windows_env, windows))
    return results_data.load_all(folder)
