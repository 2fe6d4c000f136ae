"""The launcher family (harness/run/launch): each way of running chosen once per profile, and how a
run was made as typed fields."""

from __future__ import annotations

from pathlib import Path

from harness.profiles import PROFILES
from harness.results import RunResult
from harness.run import launch
from harness.run.launch.chroot import ChrootLauncher
from harness.run.launch.native import NativeLauncher
from harness.run.launch.wine import WineLauncher


class Interpreter(ChrootLauncher):
    """A chroot's interpreter of a given version, without a root to ask."""

    def __init__(self, version: str) -> None:
        super().__init__(Path("/roots/chroot-sid"))
        self.version = version

    def _described(self) -> dict:
        paths = {"stdlib": "/usr/lib/python3.14", "purelib": "/opt/dlp-venv/lib/python3.14/site-packages"}
        return {
            "environment": {"python": self.version, "os": "linux"},
            "needs": {"opencv": ""},
            "paths": paths,
        }


def test_a_profile_chooses_its_launcher_once_by_its_way_and_this_system():
    assert isinstance(launch.choose(launch.WINE, "windows", here="linux"), WineLauncher)
    assert isinstance(launch.choose(launch.WINE, "windows", here="windows"), NativeLauncher)
    assert isinstance(launch.choose(launch.NATIVE, "darwin", here="linux"), NativeLauncher)
    assert PROFILES["macos"].launcher is PROFILES["macos"].launcher, "chosen once"


def test_a_chroots_interpreter_runs_a_profile_natively_or_emulated_by_its_version():
    real = PROFILES["linux-3.14"].launched_by(Interpreter("3.14.10"))
    assert real.name == "linux-3.14" and real.how() == launch.How(
        "chroot", "CPython 3.14.10 of Debian sid, in a chroot", "3.14.10", emulated=False
    )
    assert real.emulation() == "", "Debian's 3.14 is 3.14: nothing imitated"
    before_the_fix = PROFILES["linux-3.14"].launched_by(Interpreter("3.13.5"))
    assert before_the_fix.how().emulated and "Python 3.13" in before_the_fix.emulation()
    assert PROFILES["linux-3.14"].launcher.name == "native", "the profile itself is untouched"


def test_how_a_run_was_made_tells_the_site_its_kind():
    native = launch.How("native", "CPython 3.11.7", "3.11.7", emulated=False)
    chroot = launch.How("chroot", "CPython 3.14.10 of Debian sid, in a chroot", "3.14.10", emulated=False)
    wine = launch.How("wine", "CPython 3.13.2 win_amd64 under Wine 8.0", "3.13.2", emulated=False)
    emulated = launch.How("native", "CPython 3.11.7", "3.11.7", emulated=True)
    assert [h.kind for h in (native, chroot, wine, emulated)] == ["native", "native", "wine", "emulated"]
    result = RunResult(case="c", variant="v", profile="linux-3.14", outcome="ok", how=chroot.to_json())
    assert result.how == chroot and result.native
    assert RunResult.from_json(result.to_json()) == result


def test_a_chroot_run_is_entered_with_its_folders_at_their_own_paths():
    entered = ChrootLauncher(Path("/roots/chroot-sid")).entered(
        ["/opt/dlp-venv/bin/python", "-X", "faulthandler", "/cases/03/broken.py"],
        [Path("/tmp/dlp-run-1"), Path("/cases/03")],
        cwd=Path("/tmp/dlp-run-1"),
    )
    assert entered[:5] == ["unshare", "--mount", "--propagation", "private", "sh"]
    script = entered[6]
    assert "mount --bind /tmp/dlp-run-1 /roots/chroot-sid/tmp/dlp-run-1" in script
    assert "mount --bind /cases/03 /roots/chroot-sid/cases/03" in script
    assert script.endswith('exec chroot /roots/chroot-sid "$0" "$@"')
    assert entered[7:] == ["/usr/bin/env", "--chdir=/tmp/dlp-run-1", "/opt/dlp-venv/bin/python", "-X",
                           "faulthandler", "/cases/03/broken.py"]  # fmt: skip


def test_a_chroots_needs_are_what_its_interpreter_found():
    assert Interpreter("3.14.10").missing(("opencv",)) == ""
    assert "could not ask /opt/dlp-venv/bin/python in /roots/chroot-sid whether it has cuda" in (
        Interpreter("3.14.10").missing(("cuda",))
    )


def test_a_chroot_interpreters_library_is_a_library_and_is_scrubbed():
    """Case 17 under Debian's 3.14: the AssertionError is raised in its multiprocessing, a crash,
    not the script's own `wrong`; its paths are recorded under neutral names."""
    from harness import judge
    from harness.outcomes import Outcome

    process = "/usr/lib/python3.14/multiprocessing/process.py"
    output = (
        "Traceback (most recent call last):\n"
        f'  File "{process}", line 118, in start\n'
        "    assert not _current_process._config.get('daemon'), \\\n"
        "AssertionError: daemonic processes are not allowed to have children\n"
    )
    paths = judge.paths_for(Interpreter("3.14.10"))
    assert judge.classify(output, 1, False, paths.is_library)[0] is Outcome.CRASH
    assert judge.classify(output, 1, False, judge.is_library)[0] is Outcome.WRONG, "the test can tell"
    assert paths.scrub(process) == "<stdlib>/multiprocessing/process.py"
