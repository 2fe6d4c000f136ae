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

A slice of the set is also checked as users run `check` on a busy laptop: with its default
profiles, the Windows binaries under Wine among them (with the script's own packages brought as
Windows wheels), beside the same two CPU-bound processes, and must give the same diagnoses, within
check's own limits.
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

from tests.conftest import TESTS_DIR, harness, needs_wine

pytestmark = [pytest.mark.slow, pytest.mark.linux]
REALISTIC = TESTS_DIR / "realistic"
SCRIPTS = sorted(REALISTIC.glob("*/*.py"))
OPEN_FILES = 1024
CHECKS_AT_ONCE = 3
BURNERS = 2  # CPU-bound processes beside the checks under load
CHECK_TIMEOUT_S = 400
QUIET_PROFILES = ("--profile", "linux,windows-emulated", "--jobs", "2")
# `check` as users run it, every profile (the Windows binaries included) within this (DEVELOPERS.md:
# 5 minutes for a script of a few hundred lines, on 2 CPUs beside two CPU-bound processes).
DEFAULT_CHECK_LIMIT_S = 300


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


def _check(script, profiles=QUIET_PROFILES):
    started = time.monotonic()
    options = _options(script)
    if "--profile" in options and "--profile" in profiles:  # the script's own profiles: what shows it
        at = profiles.index("--profile")
        profiles = (*profiles[:at], *profiles[at + 2 :])
    completed = harness(
        "check",
        str(script),
        *options,
        *profiles,
        "--json",
        timeout=CHECK_TIMEOUT_S,
        preexec_fn=_common_limit,
    )
    report = json.loads(completed.stdout or "{}")
    return completed.returncode, report, completed.stderr, time.monotonic() - started


def _check_all(scripts=SCRIPTS, profiles=QUIET_PROFILES, at_once=CHECKS_AT_ONCE) -> dict:
    with concurrent.futures.ThreadPoolExecutor(at_once) as pool:
        return dict(zip(scripts, pool.map(lambda s: _check(s, profiles), scripts), strict=True))


@pytest.fixture(scope="module")
def checked() -> dict:
    return _check_all()


# The busy pass checks what a load can change: every script whose diagnosis rests on a timing or a
# trend (a hang called by idleness or a stall, open descriptors or memory growing over batches, a
# slow start-up, /dev/shm filling), broken and correct alike, always; and a rotating slice of the
# others (their diagnoses rest on an exception, a count or a fingerprint, which a load does not
# change), so that every script is checked under load over ROTATION passes.
TIMED_CASES = {"04", "06", "11", "12", "13", "14", "16", "20"}
TIMED_CORRECT = {
    "argparse_persistent_workers",  # persistent workers: start-up per epoch measured
    "file_system_keeps_batches",  # open descriptors counted over batches: no false 12
    "metrics_from_copies",  # batches kept as copies: no false 12
    "numpy_backed_dataset",  # worker memory sampled over batches: no false 06
    "monai_png_classification",  # a large list, a transform's first allocation: no false 06
    "opencv_zero_threads",  # OpenCV in workers under fork: no false hang (04)
    "small_batches_in_container",  # a 64 MB /dev/shm: no false 16
    "small_eval_cat",  # every batch kept until the end: no false 12
    "volume_augment_cpu_bound",  # seconds of CPU a sample: slow, no false hang (11), no false 13
    "dataset_logs_worker_memory",  # psutil in the Dataset: no crash the emulation invents
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


def busy_pass() -> list:
    """The busy sample less the scripts the default pass checks: those it checks under the same load
    with every profile, these two among them, and holds to the same diagnoses (without Wine there is
    no default pass, and the busy pass keeps them)."""
    from harness.run.launch import wine_env

    if wine_env.unavailable():
        return busy_sample()
    by_default = set(default_sample())
    return [script for script in busy_sample() if script not in by_default]


@pytest.fixture(scope="module")
def checked_under_load(checked) -> dict:
    """The busy pass checked again beside two CPU-bound processes (after the quiet pass)."""
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(BURNERS)]
    try:
        return _check_all(busy_pass())
    finally:
        for burner in burners:
            burner.kill()
            burner.wait()


# The default pass: `check` with no --profile, as users run it, beside two CPU-bound processes (a
# busy laptop). Always the scripts of the kinds the Windows binaries once got wrong (a package the
# Windows environment lacks: h5py, lmdb, monai; a process group, which Wine cannot run; a Dataset
# attribute that pickles from Python 3.13 only), those whose diagnosis rests on workers' memory
# (copy-on-read, and correct scripts that must not be told it: a workers' warm-up stretched by the
# load fell into the growth window once), and a slice of the others that rotates over
# DEFAULT_ROTATION passes. Two checks at once: each starts five runs, two of them under Wine.
DEFAULT_ALWAYS = {
    "ddp_tutorial_gloo", "monai_dictionary_pipeline", "monai_compose_local_lambda", "lmdb_opened_in_worker",
    "hdf5_opened_in_worker", "dataset_keeps_iterdir", "annotations_list_copy_on_read",
    "monai_png_classification", "numpy_backed_dataset",
    # the shapes of issue 68: a slow CPU-bound transform (a slow first batch under Wine), psutil in a
    # Dataset, Python objects in a numpy object array, a large list of ints
    "volume_augment_cpu_bound", "dataset_logs_worker_memory", "paths_in_numpy_object_array",
    "int_list_copy_on_read",
}  # fmt: skip
DEFAULT_ROTATION = 14
DEFAULT_AT_ONCE = 2


def default_sample(day: int | None = None) -> list:
    """The scripts of the default pass: DEFAULT_ALWAYS, and slice `day % DEFAULT_ROTATION` of the
    others (day: DLP_DEFAULT_SLICE, else the day of the year)."""
    if day is None:
        day = int(os.environ.get("DLP_DEFAULT_SLICE", time.localtime().tm_yday))
    others = [script for script in SCRIPTS if script.stem not in DEFAULT_ALWAYS]
    chosen = others[day % DEFAULT_ROTATION :: DEFAULT_ROTATION]
    return [script for script in SCRIPTS if script.stem in DEFAULT_ALWAYS] + chosen


@pytest.fixture(scope="module")
def checked_with_defaults(checked_under_load) -> dict:
    """The default sample checked with check's default profiles beside two CPU-bound processes
    (after the other passes)."""
    needs_wine()
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(BURNERS)]
    try:
        return _check_all(default_sample(), profiles=(), at_once=DEFAULT_AT_ONCE)
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
        f"{p['case']} {p['status']}: {p['verdict'] or p['measurement']}" for p in report["findings"]
    )
    assert found["pitfall"] == expected["pitfalls"], details
    assert found["risk"] == expected["risks"], details
    clean = not expected["pitfalls"] and not expected["risks"]
    assert returncode == (0 if clean else 1), details
    if sys.platform.startswith("linux"):
        assert all(r["outcome"] != "error" for r in report["runs"]), details


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda path: f"{path.parent.name}/{path.stem}")
def test_a_busy_machine_gets_the_same_diagnoses(checked, checked_under_load, script):
    if script not in checked_under_load and script in busy_sample():
        pytest.skip("checked under the same load, with every profile, by the default pass")
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
    assert set(busy_pass()) | set(default_sample()) >= set(busy_sample()), "each one checked under load"


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda path: f"{path.parent.name}/{path.stem}")
def test_check_as_users_run_it_gives_the_same_diagnoses_within_its_limits(
    checked, checked_with_defaults, script
):
    """Every profile, the Windows binaries included, on a busy machine: the same pitfalls and risks
    as the quiet pass, no run an error of the harness, none a crash of what the Windows environment
    lacks, none cut short by check's deadline, and check done within its limit."""
    if script not in checked_with_defaults:
        pytest.skip(f"not in this pass's default slice ({_default_slice_note()})")
    returncode, report, stderr, took = checked_with_defaults[script]
    assert report, stderr
    runs = "; ".join(
        f"{r['profile']}: {r['outcome']} {r['signature'][:160]} {r['reason'][:200]}" for r in report["runs"]
    )
    assert {r["profile"] for r in report["runs"]} == {
        "linux",
        "linux-3.14",
        "windows",
        "windows-emulated",
        "macos",
    }
    assert _diagnoses(report) == _diagnoses(checked[script][1]), runs
    assert returncode == checked[script][0], runs
    assert all(r["outcome"] != "error" for r in report["runs"]), runs
    assert not any("No module named" in r["signature"] for r in report["runs"]), runs
    assert not any("deadline came" in r["reason"] for r in report["runs"]), runs
    assert took < DEFAULT_CHECK_LIMIT_S, f"check took {took:.0f} s"


def test_the_version_split_is_said_where_the_windows_binaries_python_differs(checked_with_defaults):
    """Python 3.13's Path.iterdir() pickles (a map), 3.11's does not (a generator): 02 is named for
    the versions where it shows, and the Windows binaries' 3.13 run is said not to show it."""
    script = REALISTIC / "broken" / "dataset_keeps_iterdir.py"
    report = checked_with_defaults[script][1]
    found = next(f for f in report["findings"] if f["case"].startswith("02"))
    windows = next(r for r in report["runs"] if r["profile"] == "windows")
    assert windows["outcome"] == "ok" and windows["how"]["python"].startswith("3.13"), windows["signature"]
    assert found["status"] == "pitfall" and "not under Python 3.13" in found["versions"], found


def test_a_process_group_is_skipped_under_the_windows_binaries_at_once(checked_with_defaults):
    report = checked_with_defaults[REALISTIC / "correct" / "ddp_tutorial_gloo.py"][1]
    windows = next(r for r in report["runs"] if r["profile"] == "windows")
    assert windows["outcome"] == "skipped" and "gloo" in windows["reason"] and windows["duration_s"] == 0


def test_the_default_sample_holds_the_windows_kinds_and_rotates_over_all_scripts():
    assert {s.stem for s in SCRIPTS} >= DEFAULT_ALWAYS, "every script named exists"
    assert set().union(*(default_sample(day) for day in range(DEFAULT_ROTATION))) == set(SCRIPTS)
    assert len(default_sample()) < len(SCRIPTS) / 4, "the default pass is a sample"


def _default_slice_note() -> str:
    day = int(os.environ.get("DLP_DEFAULT_SLICE", time.localtime().tm_yday))
    return f"slice {day % DEFAULT_ROTATION} of {DEFAULT_ROTATION}; DLP_DEFAULT_SLICE=N chooses another"


def test_wall_time_of_check_per_script(checked, checked_under_load, checked_with_defaults):
    """The figures for the notes: median and longest `check` per script, quiet, busy and with
    the default profiles."""
    for label, results in (
        ("quiet", checked),
        ("busy", checked_under_load),
        ("defaults", checked_with_defaults),
    ):
        times = sorted(result[3] for result in results.values())
        median, longest = statistics.median(times), times[-1]
        print(f"check wall time per script, {label}: median {median:.1f} s, max {longest:.1f} s")
        assert longest < CHECK_TIMEOUT_S
