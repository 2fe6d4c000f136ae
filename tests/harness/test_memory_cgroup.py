"""A run in a memory cgroup of its own size (case 21, check --memory-mb): the kernel enforces the
limit on every process of the run, the harness counts what the OOM killer ended and the cgroup's
peak, removes the cgroup, and where the limit cannot apply the run is skipped, saying why."""

from __future__ import annotations

import contextlib
import subprocess
import threading
import time

import pytest

from harness import outcome_table, verdict
from harness.outcomes import Outcome
from harness.profiles import PROFILES
from harness.run import confine
from harness.run.confine import memory_cgroup
from harness.run.confine.memory_cgroup import Cgroup
from harness.run.settings import RunSettings

pytestmark = [pytest.mark.slow, pytest.mark.linux]

# A child process (forked, as a DataLoader worker is) takes `mb` MB and touches every page.
CHILD_TAKES = """
import multiprocessing as mp
import sys

def take(mb):
    block = bytearray(mb << 20)
    block[::4096] = b"x" * len(block[::4096])
    print("child kept", mb, "MB", flush=True)

if __name__ == "__main__":
    child = mp.get_context("fork").Process(target=take, args=(int(sys.argv[1]),))
    child.start()
    child.join()
    print("child exit code", child.exitcode, flush=True)
"""


def _own_leftovers() -> list:
    return sorted(p.name for p in _own_folder().glob("dlp-run-*"))


def _needs_cgroups() -> None:
    asked = RunSettings(timeout_s=1, confined={"memory_cgroup_mb": 64})
    reason = confine.unavailable(asked, PROFILES["linux"].system, PROFILES["linux"].title)
    if reason:
        pytest.skip(reason)


def _reach(script, mb: int, limit_mb: float):
    return verdict.reach(
        script, "linux", RunSettings(timeout_s=60, confined={"memory_cgroup_mb": limit_mb}, args=(str(mb),)),
        case="child_takes.py", variant="check",
    )  # fmt: skip


def test_a_worker_past_the_limit_is_ended_by_the_kernel_and_the_run_is_a_crash(tmp_path):
    _needs_cgroups()
    before = _own_leftovers()
    script = tmp_path / "child_takes.py"
    script.write_text(CHILD_TAKES)
    killed = _reach(script, 300, 150)
    assert "child exit code -9" in killed.output_tail, killed.output_tail
    assert killed.outcome is Outcome.CRASH and killed.confined["oom_kills"] >= 1
    assert killed.signature.startswith("the kernel's OOM killer ended"), killed.signature
    assert killed.confined["cgroup_peak_mb"] == pytest.approx(150, abs=1)
    fits = _reach(script, 20, 150)
    assert fits.outcome is Outcome.OK and fits.confined["oom_kills"] == 0, fits.output_tail
    assert "child kept 20 MB" in fits.output_tail
    assert 20 < fits.confined["cgroup_peak_mb"] < 150
    assert _own_leftovers() == before, "a run's cgroup outlived it"


def test_a_cgroup_is_made_with_its_limit_and_removed(tmp_path):
    _needs_cgroups()
    cgroup = Cgroup.make(96)
    try:
        limit = (cgroup.folder / cgroup.hierarchy.limit_file).read_text().strip()
        assert int(limit) == 96 << 20
        assert cgroup.oom_kills() == 0
    finally:
        assert cgroup.remove() == ""
    assert not cgroup.folder.exists()


SLEEPS = """
import time
print("in its cgroup", flush=True)
time.sleep(2)
"""


def test_a_cgroup_that_cannot_be_removed_is_said_and_the_result_stands(tmp_path, monkeypatch):
    """A process the run does not own joins its cgroup (as a process moved there by hand would):
    the cgroup cannot be removed, and the run's result is still the script's own, with the cgroup
    named among what the harness could not remove."""
    _needs_cgroups()
    monkeypatch.setattr(memory_cgroup, "REMOVE_WAIT_S", 0.5)
    script = tmp_path / "sleeps.py"
    script.write_text(SLEEPS)
    stranger = subprocess.Popen(["sleep", "60"])
    joined = threading.Thread(target=_join_the_new_cgroup, args=(stranger.pid, set(_own_leftovers())))
    joined.start()
    try:
        result = _reach(script, 0, 256)
    finally:
        joined.join()
        stranger.kill()
        stranger.wait()
    left = [name for name in _own_leftovers() if name in " ".join(result.not_removed)]
    for name in left:
        _remove_when_empty(name)
    assert result.outcome is Outcome.OK and "in its cgroup" in result.output_tail, result.signature
    assert len(left) == 1 and "could not remove: Device or resource busy" in result.not_removed[0]
    assert "the harness could not remove the memory cgroup" in outcome_table.cleanup_note(result)


def _join_the_new_cgroup(pid: int, before: set, timeout_s: float = 30) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        made = set(_own_leftovers()) - before
        if made:
            (_own_folder() / made.pop() / "cgroup.procs").write_text(str(pid))
            return
        time.sleep(0.05)


def _own_folder():
    hierarchy = memory_cgroup.hierarchy()
    return hierarchy.mount / hierarchy.own.lstrip("/")


def _remove_when_empty(name: str) -> None:
    deadline = time.monotonic() + 10
    while (_own_folder() / name).exists() and time.monotonic() < deadline:
        with contextlib.suppress(OSError):
            (_own_folder() / name).rmdir()
        time.sleep(0.1)


def test_a_limited_run_under_a_profile_without_cgroups_is_skipped(tmp_path):
    script = tmp_path / "nothing.py"
    script.write_text("")
    result = verdict.reach(
        script, "windows-emulated", RunSettings(timeout_s=30, confined={"memory_cgroup_mb": 2048}),
        case="nothing.py", variant="check",
    )  # fmt: skip
    assert result.outcome is Outcome.SKIPPED and "no memory cgroup to limit" in result.reason
