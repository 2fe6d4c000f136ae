"""The chroot launcher with a real root (harness/run/launch/chroot.py): Debian's own interpreter
runs the script, the harness watches it from outside. Needs root and a root that `observe-chroot`
made (.nox/chroot-sid); skipped, saying which is missing, elsewhere."""

from __future__ import annotations

import pytest

from harness import verdict
from harness.profiles import PROFILES
from harness.run import launch
from harness.run.settings import RunSettings
from tests.conftest import ROOT

pytestmark = [pytest.mark.slow, pytest.mark.linux]
SID = ROOT / ".nox" / "chroot-sid"
SAYS_WHERE = """\
import multiprocessing as mp, os, sys

def double(x):
    return 2 * x

if __name__ == "__main__":
    print("python", sys.version.split()[0], mp.get_start_method(), "in", os.getcwd())
    with mp.Pool(2) as pool:
        print(pool.map(double, [1, 2, 3]))
"""


@pytest.fixture(scope="module")
def sid():
    launcher = launch.in_chroot(SID)
    if launcher.unavailable():
        pytest.skip(launcher.unavailable())
    return launcher


def test_debians_interpreter_runs_the_script_where_the_runner_sees_it(sid, tmp_path):
    script = tmp_path / "says_where.py"
    script.write_text(SAYS_WHERE)
    profile = PROFILES["linux-3.14"].launched_by(sid)
    result = verdict.reach(script, profile, RunSettings(timeout_s=60), case="c", variant="v")
    assert result.outcome.value == "ok", result.output_tail
    python = result.how.python
    assert f"python {python} forkserver in " in result.output_tail, "3.14's own default, in its run folder"
    assert "dlp-run-" in result.output_tail and "[2, 4, 6]" in result.output_tail
    assert result.how.launcher == "chroot" and result.native and not result.emulation
    assert result.leftovers == [], "the forkserver and the pool ended with the run"
