"""Profiles: what each imposes, when it runs natively or is emulated, and that a profile which
cannot be imposed never runs as something else."""

from __future__ import annotations

import re
import sys

import pytest

from harness import profiles, scheduler
from harness.cases import CaseError, load_case
from harness.profiles import PROFILES, Profile
from harness.run.runner import BOOT_DIR, run_script
from harness.run.settings import RunSettings
from tests.conftest import SCRIPTS_DIR


def test_each_profile_says_where_it_is_native():
    assert profiles.native_profiles({"os": "linux", "python": "3.11.7"}) == {"linux"}
    assert profiles.native_profiles({"os": "linux", "python": "3.14.2"}) == {"linux", "linux-3.14"}
    assert profiles.native_profiles({"os": "linux", "python": "3.13.9"}) == {"linux"}, "preloads, is not 3.14"
    assert profiles.native_profiles({"os": "windows", "python": "3.12.1"}) == {"windows", "windows-emulated"}
    assert profiles.native_profiles({"os": "darwin", "python": "3.13.0"}) == {"macos"}


def test_an_emulation_names_what_it_imitates():
    assert PROFILES["linux"].emulation("linux", (3, 11, 7)) == ""
    assert PROFILES["linux-3.14"].emulation("linux", (3, 14, 2)) == ""
    emulated = PROFILES["linux-3.14"].emulation("linux", (3, 11, 7))
    assert emulated.startswith("forkserver on Linux, Python 3.11") and "preloaded" in emulated
    windows = PROFILES["windows-emulated"].emulation("linux", (3, 11, 7))
    assert "file_system" in windows and "resource" in windows
    assert PROFILES["windows-emulated"].emulation("windows", (3, 12, 0)) == ""
    assert PROFILES["windows"].emulation("windows", (3, 12, 0)) == "", "Windows' own binaries, on Windows"
    assert "under Wine" in PROFILES["windows"].emulation("linux", (3, 11, 7))


def test_start_method_shorthand_and_profile_list(tmp_path):
    from harness.commands import arguments

    assert [p.name for p in arguments.start_method_profiles("spawn")] == [
        "windows",
        "windows-emulated",
        "macos",
    ]
    assert [p.name for p in arguments.profiles("linux,macos")] == ["linux", "macos"]


def test_case_toml_overrides_an_expectation_per_profile(tmp_path):
    folder = tmp_path / "99_sample"
    folder.mkdir()
    for variant in ("broken", "fixed"):
        (folder / f"{variant}.py").write_text("pass\n")
    expect = "".join(
        f'[expect.{v}.{m}]\noutcome = "{"crash" if v == "broken" else "ok"}"\n\n'
        for v in ("broken", "fixed")
        for m in ("fork", "forkserver", "spawn")
    )
    head = 'title = "t"\nsummary = "s"\ntags = []\ntimeout = 5\n\n'
    (folder / "case.toml").write_text(head + expect + '[expect.broken.macos]\noutcome = "ok"\n')
    case = load_case(folder)
    assert case.expectation("broken", PROFILES["macos"]).outcome == "ok"
    assert case.expectation("broken", PROFILES["macos"]).profile == "macos"
    assert case.expectation("broken", PROFILES["windows"]).outcome == "crash"
    (folder / "case.toml").write_text(head + expect + '[expect.broken.solaris]\noutcome = "ok"\n')
    with pytest.raises(CaseError, match=r"unknown key 'solaris' \(known: fork, forkserver, spawn, linux"):
        load_case(folder)


def test_the_preload_is_applied_only_where_python_lacks_it():
    sys.path.insert(0, str(BOOT_DIR))
    try:
        import dlp_forkserver
    finally:
        sys.path.remove(str(BOOT_DIR))
    assert dlp_forkserver.has_upstream_fix((3, 14, 1)) and dlp_forkserver.has_upstream_fix((3, 13, 8))
    assert not dlp_forkserver.has_upstream_fix((3, 14, 0)) and not dlp_forkserver.has_upstream_fix((3, 12, 9))


@pytest.mark.slow
@pytest.mark.linux
def test_the_linux_3_14_profile_preloads_main_once_in_the_server():
    """CPython's forkserver preload semantics (PR 135295, 143717): the main script's top level runs
    once in the server, as __mp_main__, with the script's argv; every worker is a fork of it."""
    observed = run_script(
        SCRIPTS_DIR / "forkserver_preload.py",
        PROFILES["linux-3.14"],
        RunSettings(timeout_s=60, args=("--lr", "0.1")),
    )
    assert observed.returncode == 0, observed.output
    tops = re.findall(r"top level: (\S+) pid (\d+) argv (.*)", observed.output)
    assert [(name, argv) for name, _, argv in tops] == [
        ("__main__", "['--lr', '0.1']"),
        ("__mp_main__", "['--lr', '0.1']"),
    ], observed.output
    server = int(tops[1][1])
    assert f"workers' parents: [{server}]" in observed.output


@pytest.mark.slow
@pytest.mark.linux
def test_plain_forkserver_imports_main_in_every_worker():
    """The same script under forkserver without the preload (Python 3.11 as it is): the contrast."""
    plain = Profile("forkserver-3.11", "forkserver", "linux", "forkserver as Python 3.11 runs it")
    observed = run_script(SCRIPTS_DIR / "forkserver_preload.py", plain, RunSettings(timeout_s=60))
    names = re.findall(r"top level: (\S+)", observed.output)
    assert names.count("__main__") == 1 and names.count("__mp_main__") == 2, observed.output


@pytest.mark.slow
@pytest.mark.linux
def test_a_profile_that_cannot_be_imposed_is_an_error_never_a_run(tmp_path, monkeypatch):
    script = tmp_path / "ran.py"
    script.write_text("print('the script ran')\n")
    impossible = Profile("vfork", "vfork", "linux", "no such start method")
    observed = run_script(script, impossible, RunSettings(timeout_s=30))
    assert "the script ran" not in observed.output
    assert (
        "could not impose the profile: ValueError: cannot find context for 'vfork'" in observed.boot_failure
    )
    skipped = scheduler.observe(script, impossible, RunSettings(timeout_s=30), case="c", variant="v")
    assert skipped.outcome == "skipped" and "vfork start method is not available here" in skipped.reason
    monkeypatch.setattr(profiles, "unavailable", lambda profile: "")  # as if the harness thought it could
    failed = scheduler.observe(script, impossible, RunSettings(timeout_s=30), case="c", variant="v")
    assert failed.outcome == "error" and "could not impose the profile" in failed.reason


@pytest.mark.slow
@pytest.mark.linux
def test_the_windows_profile_does_not_wait_for_a_shm_manager_at_shutdown():
    """Under spawn with file_system on Linux each worker's torch_shm_manager inherits the write end
    of that worker's sentinel pipe, so the loop waited 5 s a worker after its last batch (10 s for
    2). Windows has no such manager and sees a worker's exit at once: its profile must not pay it."""
    observed = run_script(
        SCRIPTS_DIR / "worker_shutdown.py", PROFILES["windows-emulated"], RunSettings(timeout_s=60)
    )
    waited = float(re.search(r"after the last batch: (\S+) s", observed.output).group(1))
    assert waited < 4.0, observed.output
