"""The Wine launcher: the Windows CPython and torch's Windows wheels run under Wine
(harness/run/launch/wine.py and wine_env.py).

Where Wine or the Windows environment is missing, the runs are skipped with how to get them, never
run by the Linux interpreter instead. The runs themselves need both: prepared by `nox -s
windows-env`; with DLP_REQUIRE_WINE=1 (CI) their absence fails instead of skipping.
"""

from __future__ import annotations

import os

import psutil
import pytest

from harness import profiles
from harness.run.runner import run_script
from harness.run.settings import RunSettings
from tests.conftest import needs_wine

pytestmark = pytest.mark.linux


WINE = profiles.PROFILES["windows"]


SAYS_WHERE = """\
import multiprocessing.process, sys, platform
print("platform", sys.platform, platform.python_version(), flush=True)
try:
    multiprocessing.process.BaseProcess(group=1)
except AssertionError as exc:
    print("stdlib assert fired:", exc, flush=True)
"""


WAITS = """\
import time


def wait_here():
    time.sleep(600)


wait_here()
"""


def _left_by_runs(script_name: str) -> set[int]:
    """Wine processes whose run is over: their prefix (a run's own, in its folder) is gone, or they
    still run the test's script. Other runs on the machine (with their prefixes) do not count."""
    found = set()
    for process in psutil.process_iter(["cmdline"]):
        command = " ".join(process.info["cmdline"] or [])
        if "wineserver" not in command and ".exe" not in command:
            continue
        try:
            prefix = process.environ().get("WINEPREFIX", "")
        except psutil.Error:
            continue
        if script_name in command or (prefix and not os.path.exists(prefix)):
            found.add(process.pid)
    return found


def _run_under_wine(folder, name: str, source: str, timeout_s: float):
    needs_wine()
    script = folder / name
    script.write_text(source)
    return run_script(script, WINE, RunSettings(timeout_s=timeout_s, idle_s=None))


@pytest.mark.slow
def test_a_script_runs_under_the_windows_interpreter_with_its_asserts(tmp_path):
    observed = _run_under_wine(tmp_path, "says_where.py", SAYS_WHERE, 60)
    assert observed.returncode == 0, observed.output
    assert "platform win32 3.13" in observed.output
    assert "stdlib assert fired: group argument must be None for now" in observed.output


@pytest.mark.slow
def test_a_hang_under_wine_is_ended_with_its_stacks_and_nothing_left(tmp_path):
    observed = _run_under_wine(tmp_path, "waits.py", WAITS, 20)
    assert observed.timed_out, observed.output
    stacks = "\n".join(observed.stacks.values())
    assert "wait_here" in stacks and "waits.py" in stacks, stacks
    assert _left_by_runs("waits.py") == set(), "a Wine process of the run outlived it"


READS_NULL = """\
import faulthandler

print("about to read address 0", flush=True)
faulthandler._read_null()
"""
ACCESS_VIOLATION = 0xC0000005


@pytest.mark.slow
def test_a_native_crash_under_wine_ends_at_once_with_no_debugger(tmp_path):
    """Wine's crash debugger (winedbg) is never started: it wrote its backtrace into the output,
    and it could wait to the timeout. Without it, the process ends at once with the exception's
    code (Linux reads an exit status's low byte; observed under Wine 8.0)."""
    observed = _run_under_wine(tmp_path, "reads_null.py", READS_NULL, 60)
    assert observed.returncode == ACCESS_VIOLATION & 0xFF, observed.output
    assert "about to read address 0" in observed.output
    assert "Backtrace:" not in observed.output and "Wine build:" not in observed.output, observed.output
    assert observed.duration_s < 30


TWO_WORKERS = """\
import torch
from torch.utils.data import DataLoader


class Numbers(torch.utils.data.Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, index):
        return torch.tensor(index)


if __name__ == "__main__":
    for batch in DataLoader(Numbers(), batch_size=2, num_workers=2, persistent_workers=True):
        print(batch.tolist(), flush=True)
"""


@pytest.mark.slow
def test_each_worker_memory_is_sampled_under_wine_from_its_start_of_service(tmp_path):
    needs_wine()
    script = tmp_path / "two_workers.py"
    script.write_text(TWO_WORKERS)
    observed = run_script(script, WINE, RunSettings(timeout_s=120, idle_s=None, memory_interval_s=0.2))
    assert observed.returncode == 0, observed.output
    workers = observed.memory["processes"].values()
    assert len(workers) == 2, observed.memory
    assert all(w["ready_s"] is not None and len(w["samples"]) >= 3 for w in workers), observed.memory
    assert all(w["warm_s"] is not None and w["warm_s"] > w["ready_s"] for w in workers), observed.memory
    assert all(w["baseline_mb"] > 50 for w in observed.memory["workers"].values()), observed.memory
