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
import os
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


def _check_all(scripts=SCRIPTS) -> dict:
    with concurrent.futures.ThreadPoolExecutor(CHECKS_AT_ONCE) as pool:
        return dict(zip(scripts, pool.map(_check, scripts), strict=True))


@pytest.fixture(scope="module")
def checked() -> dict:
    return _check_all()


# The busy pass checks what a load can change: every script whose diagnosis rests on a timing or a
# trend (a hang called by idleness or a stall, open descriptors or memory growing over batches, a
# slow start-up, /dev/shm filling), broken and correct alike, always; and a rotating slice of the
# others (their diagnoses rest on an exception, a count or a fingerprint, which a load does not
# change), so that every script is checked under load over ROTATION passes.
TIMED_CASES = {"04", "06", "11", "12", "13", "14", "16"}
TIMED_CORRECT = {
    "argparse_persistent_workers",  # persistent workers: start-up per epoch measured
    "file_system_keeps_batches",  # open descriptors counted over batches: no false 12
    "metrics_from_copies",  # batches kept as copies: no false 12
    "numpy_backed_dataset",  # worker memory sampled over batches: no false 06
    "opencv_zero_threads",  # OpenCV in workers under fork: no false hang (04)
    "small_batches_in_container",  # a 64 MB /dev/shm: no false 16
    "small_eval_cat",  # every batch kept until the end: no false 12
}
ROTATION = 4


def _timed(script) -> bool:
    return bool(_expected(script)["pitfalls"] & TIMED_CASES) or script.stem in TIMED_CORRECT


def busy_sample(day: int | None = None) -> list:
    """The scripts of the busy pass: the timed ones, and slice `day % ROTATION` of the others
    (day: DLP_BUSY_SLICE, else the day of the year)."""
    if day is None:
        day = int(os.environ.get("DLP_BUSY_SLICE", time.localtime().tm_yday))
    others = [script for script in SCRIPTS if not _timed(script)]
    return [script for script in SCRIPTS if _timed(script)] + others[day % ROTATION :: ROTATION]


@pytest.fixture(scope="module")
def checked_under_load(checked) -> dict:
    """The busy sample checked again beside two CPU-bound processes (after the quiet pass)."""
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(BURNERS)]
    try:
        return _check_all(busy_sample())
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
    if script not in checked_under_load:
        pytest.skip(f"not in this pass's busy slice ({_slice_note()})")
    quiet, busy = checked[script], checked_under_load[script]
    assert busy[1], busy[2]
    runs = "; ".join(f"{r['profile']}: {r['outcome']} {r['signature'][:160]}" for r in busy[1]["runs"])
    assert _diagnoses(busy[1]) == _diagnoses(quiet[1]), runs
    assert busy[0] == quiet[0], runs


def _slice_note() -> str:
    day = int(os.environ.get("DLP_BUSY_SLICE", time.localtime().tm_yday))
    return f"slice {day % ROTATION} of {ROTATION}; DLP_BUSY_SLICE=N chooses another"


def test_the_busy_sample_holds_every_timed_diagnosis_and_rotates_over_all_scripts():
    timed = {s for s in SCRIPTS if _expected(s)["pitfalls"] & TIMED_CASES}
    assert len(timed) >= 5 and all(timed <= set(busy_sample(day)) for day in range(ROTATION))
    assert {s.stem for s in SCRIPTS} >= TIMED_CORRECT, "every script named as timed exists"
    assert set().union(*(busy_sample(day) for day in range(ROTATION))) == set(SCRIPTS)
    assert len(busy_sample()) < len(SCRIPTS) / 2, "the busy pass is a sample"


def test_wall_time_of_check_per_script(checked, checked_under_load):
    """The figures for the notes: median and longest `check` per script, quiet and busy."""
    for label, results in (("quiet", checked), ("busy", checked_under_load)):
        times = sorted(result[3] for result in results.values())
        median, longest = statistics.median(times), times[-1]
        print(f"check wall time per script, {label}: median {median:.1f} s, max {longest:.1f} s")
        assert longest < CHECK_TIMEOUT_S
