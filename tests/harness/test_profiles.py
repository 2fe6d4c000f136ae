"""Profiles: what each imposes, when it runs natively or is emulated, and that a profile which
cannot be imposed never runs as something else."""

from __future__ import annotations

import re

import pytest

from harness import profiles, verdict
from harness.profiles import PROFILES, Profile
from harness.run.runner import run_script
from harness.run.settings import RunSettings
from tests.conftest import SCRIPTS_DIR


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
    skipped = verdict.reach(script, impossible, RunSettings(timeout_s=30), case="c", variant="v")
    assert skipped.outcome == "skipped" and "vfork start method is not available here" in skipped.reason
    monkeypatch.setattr(profiles, "unavailable", lambda profile: "")  # as if the harness thought it could
    failed = verdict.reach(script, impossible, RunSettings(timeout_s=30), case="c", variant="v")
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
