"""The Wine launcher: the Windows CPython and torch's Windows wheels run under Wine
(harness/run/launch/wine.py and wine_env.py).

Where Wine or the Windows environment is missing, the runs are skipped with how to get them, never
run by the Linux interpreter instead. The runs themselves need both: prepared by `nox -s
windows-env`; with DLP_REQUIRE_WINE=1 (CI) their absence fails instead of skipping.
"""

from __future__ import annotations

import os
import shutil
import types

import pytest

from harness import profiles, verdict
from harness.outcomes import Outcome
from harness.run.launch import wine_env as wine
from harness.run.settings import RunSettings

pytestmark = pytest.mark.linux


WINE = profiles.PROFILES["windows"]


def test_without_wine_a_run_is_skipped_and_says_how_to_install_it(monkeypatch, tmp_path):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    script = tmp_path / "ran.py"
    script.write_text("open('ran', 'w').close()\n")
    result = verdict.reach(script, WINE, RunSettings(timeout_s=5), case="c", variant="v")
    assert result.outcome is Outcome.SKIPPED
    assert "Wine is not installed" in result.reason and "apt-get install wine" in result.reason
    assert not (tmp_path / "ran").exists()


def test_without_the_windows_environment_a_run_is_skipped_and_says_how_to_prepare_it(monkeypatch, tmp_path):
    monkeypatch.setattr(wine, "wine_binary", lambda: "/usr/bin/wine")
    monkeypatch.setenv(wine.ENV_VARIABLE, str(tmp_path / "nothing"))
    assert profiles.unavailable(WINE) == f"no Windows environment in {tmp_path / 'nothing'}: {wine.PREPARE}"


def test_the_windows_interpreter_is_given_its_paths_as_windows_names_them(tmp_path):
    env = {"PYTHONPATH": f"/a/boot{os.pathsep}/b", "TMPDIR": "/t", "DLP_PROBE_DIR": "/p", "HOME": "/root"}
    windows = wine.environment(env, tmp_path / "prefix")
    assert windows["PYTHONPATH"] == "Z:\\a\\boot;Z:\\b"
    assert (windows["TMPDIR"], windows["DLP_PROBE_DIR"], windows["HOME"]) == ("/t", "Z:\\p", "/root")
    assert windows["WINEPREFIX"] == str(tmp_path / "prefix") and windows["WINEDEBUG"] == "-all"


def test_preparing_without_wine_exits_2_saying_how_to_install_it(monkeypatch, capsys, tmp_path):
    from harness import cli

    monkeypatch.setattr(shutil, "which", lambda name: None)
    status = cli.main(["windows-env", "--root", str(tmp_path / "env")])
    assert status == 2
    assert "Wine is not installed" in capsys.readouterr().out
    assert not (tmp_path / "env").exists(), "nothing written"


class _Holding:
    """A process as psutil shows it, holding these files open."""

    def __init__(self, pid, paths):
        self.pid, self._paths = pid, paths

    def open_files(self):
        return [types.SimpleNamespace(path=path, fd=3) for path in self._paths]


def test_each_process_is_named_by_the_one_marker_it_holds_that_no_other_claimed(tmp_path):
    windows = wine.WindowsProcesses(root_pid=100, probe_dir=tmp_path)
    marker = lambda pid: str(tmp_path / f"{pid}.pid")  # noqa: E731
    windows._read_marker(_Holding(100, [marker(32), str(tmp_path / "32.events")]))
    windows._read_marker(_Holding(101, [marker(32)]))  # Wine's fork of the parent: not a new process
    windows._read_marker(_Holding(102, [marker(32), marker(48)]))  # the worker, fds inherited
    windows._read_marker(_Holding(103, ["/elsewhere/56.pid"]))
    assert windows.windows_pid == {100: 32, 102: 48}
    assert windows.by_linux_pid({48: 1.5, 64: 2.0}) == {102: 1.5}


def test_under_wine_a_need_is_the_windows_environments_and_wines_gaps_are_named(monkeypatch, tmp_path):
    from harness.run.launch.wine import WineLauncher

    monkeypatch.setenv(wine.ENV_VARIABLE, str(tmp_path))
    launcher = WineLauncher()
    assert "gloo collectives never return under Wine" in launcher.missing(("distributed",))
    assert "no GPU under Wine" in launcher.missing(("cuda",))
    assert "Windows environment has no OpenCV" in launcher.missing(("opencv",))
    (tmp_path / "site" / "cv2").mkdir(parents=True)
    assert launcher.missing(("opencv",)) == ""


def test_without_wine_the_header_says_the_column_is_not_run_and_why(monkeypatch):
    import io

    from rich.console import Console

    from harness import outcome_table

    monkeypatch.setattr(wine, "wine_binary", lambda: None)
    out = io.StringIO()
    outcome_table.print_platform_notes(Console(file=out, width=300), [WINE])
    assert "windows: not run here: Wine is not installed" in out.getvalue()
    assert "environment not described" not in out.getvalue()


def _left_after_exit(monkeypatch, code: str) -> tuple[list[str], float]:
    """What `_end_leftovers` reports of a process still running `code` once the script ended, with
    the Wine launcher's rule and a 1 s idleness: (its report, seconds it waited)."""
    import subprocess
    import sys
    import time

    import psutil

    from harness.run import runner
    from harness.run.launch.wine import WineRun

    monkeypatch.setattr(wine, "LEFTOVER_IDLE_S", 1.0)
    monkeypatch.setattr(wine, "LEFTOVER_LIMIT_S", 30.0)
    child = subprocess.Popen([sys.executable, "-c", code])
    kept = psutil.Process(child.pid)
    launched = types.SimpleNamespace(
        may_still_end=lambda left, waited_s, idle_s: WineRun.may_still_end(None, left, waited_s, idle_s),
        is_own_helper=lambda process: False,
        finish=lambda kill_all: None,
    )
    run = types.SimpleNamespace(
        launched=launched,
        processes=lambda: [kept] if kept.is_running() and kept.status() != psutil.STATUS_ZOMBIE else [],
        shared=types.SimpleNamespace(poll=lambda pids, force=False: None),
    )
    try:
        started = time.monotonic()
        report = runner._end_leftovers(run)
        return report, time.monotonic() - started
    finally:
        child.kill()
        child.wait()


def test_under_wine_a_child_still_working_is_waited_for_and_an_idle_one_is_left_over(monkeypatch):
    """A spawned child still importing the script works (uses the CPU) past any fixed grace: it ends
    by itself, with the error Windows users see; one waiting on nothing is reported, once idle."""
    working, waited = _left_after_exit(
        monkeypatch, "import time\nt = time.time()\nwhile time.time() - t < 3: pass"
    )
    assert working == [] and waited >= 2.5, (working, waited)
    idle, waited = _left_after_exit(monkeypatch, "import time; time.sleep(60)")
    assert len(idle) == 1 and "time.sleep(60)" in idle[0], idle
    assert waited < 10, waited
