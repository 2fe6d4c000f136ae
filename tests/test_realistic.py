"""`check` on realistic scripts, in the styles people post in bug reports and official examples
(tests/realistic/): each broken one is diagnosed with its pitfalls (and the risks only lint can
name), each correct one with none, and exits 0; and the same again on a busy machine.

Each script's docstring states its expectation: `pitfalls:` the cases that must be found as
pitfalls, `risks:` those named as risks (a static finding no run could confirm or refute), and
optionally `check-options:` (`--shm-mb 64`, a container's /dev/shm). Every script is checked
under linux (fork) and windows (spawn, emulated), with a soft limit of 1024 open files, the common
Linux default, so that the trend of open descriptors has the limit users meet. Under load, two
CPU-bound processes run beside the checks, on this 2-CPU machine a load the checks must see
through (their windows are counted in batches and samples, not seconds).
"""

from __future__ import annotations

import concurrent.futures
import json
import re
import resource
import statistics
import subprocess
import sys
import time

import pytest

from tests.conftest import TESTS_DIR, harness

pytestmark = [pytest.mark.slow, pytest.mark.linux]
REALISTIC = TESTS_DIR / "realistic"
SCRIPTS = sorted(REALISTIC.glob("*/*.py"))
OPEN_FILES = 1024
CHECKS_AT_ONCE = 3
BURNERS = 2  # CPU-bound processes beside the checks under load
CHECK_TIMEOUT_S = 400


def _expected(script) -> dict[str, set[str]]:
    text = script.read_text()
    return {
        kind: set(re.search(rf"^{kind}:(.*)$", text, re.M).group(1).replace(",", " ").split())
        for kind in ("pitfalls", "risks")
    }


def _options(script) -> list[str]:
    found = re.search(r"^check-options:(.*)$", script.read_text(), re.M)
    return found.group(1).split() if found else []


def _common_limit() -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (OPEN_FILES, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))


def _check(script):
    started = time.monotonic()
    completed = harness(
        "check",
        str(script),
        *_options(script),
        "--profile",
        "linux,windows-emulated",
        "--jobs",
        "2",
        "--json",
        timeout=CHECK_TIMEOUT_S,
        preexec_fn=_common_limit,
    )
    report = json.loads(completed.stdout or "{}")
    return completed.returncode, report, completed.stderr, time.monotonic() - started


def _check_all() -> dict:
    with concurrent.futures.ThreadPoolExecutor(CHECKS_AT_ONCE) as pool:
        return dict(zip(SCRIPTS, pool.map(_check, SCRIPTS), strict=True))


@pytest.fixture(scope="module")
def checked() -> dict:
    return _check_all()


@pytest.fixture(scope="module")
def checked_under_load(checked) -> dict:
    """The set checked again beside two CPU-bound processes (after the quiet pass, not during)."""
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(BURNERS)]
    try:
        return _check_all()
    finally:
        for burner in burners:
            burner.kill()
            burner.wait()


def _diagnoses(report: dict) -> set[tuple[str, str]]:
    return {(f["case"][:2], f["status"]) for f in report.get("findings", [])}


def test_the_set_is_broken_and_correct_scripts_of_many_kinds():
    assert len(list(REALISTIC.glob("broken/*.py"))) >= 20 and len(list(REALISTIC.glob("correct/*.py"))) >= 20
    assert len(SCRIPTS) >= 45


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda path: f"{path.parent.name}/{path.stem}")
def test_check_names_the_right_pitfalls_and_no_false_one(checked, script):
    returncode, report, stderr, _ = checked[script]
    assert report, stderr
    found = {
        status: {p["case"][:2] for p in report["findings"] if p["status"] == status}
        for status in ("pitfall", "risk")
    }
    expected = _expected(script)
    runs = "; ".join(f"{r['profile']}: {r['outcome']} {r['signature'][:160]}" for r in report["runs"])
    details = f"{runs}\n" + "\n".join(
        f"{p['case']} {p['status']}: {p['verdict']}" for p in report["findings"]
    )
    assert found["pitfall"] == expected["pitfalls"], details
    assert found["risk"] == expected["risks"], details
    clean = not expected["pitfalls"] and not expected["risks"]
    assert returncode == (0 if clean else 1), details
    if sys.platform.startswith("linux"):
        assert all(r["outcome"] != "error" for r in report["runs"]), details


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda path: f"{path.parent.name}/{path.stem}")
def test_a_busy_machine_gets_the_same_diagnoses(checked, checked_under_load, script):
    quiet, busy = checked[script], checked_under_load[script]
    assert busy[1], busy[2]
    runs = "; ".join(f"{r['profile']}: {r['outcome']} {r['signature'][:160]}" for r in busy[1]["runs"])
    assert _diagnoses(busy[1]) == _diagnoses(quiet[1]), runs
    assert busy[0] == quiet[0], runs


def test_wall_time_of_check_per_script(checked, checked_under_load):
    """The figures for the notes: median and longest `check` per script, quiet and busy."""
    for label, results in (("quiet", checked), ("busy", checked_under_load)):
        times = sorted(result[3] for result in results.values())
        median, longest = statistics.median(times), times[-1]
        print(f"check wall time per script, {label}: median {median:.1f} s, max {longest:.1f} s")
        assert longest < CHECK_TIMEOUT_S
