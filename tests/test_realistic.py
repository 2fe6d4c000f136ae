"""`check` on realistic scripts, in the styles people post in bug reports (tests/realistic/): each
broken one is diagnosed with its pitfalls (and the risks only lint can name), each correct one
with none, and exits 0.

Each script's docstring states its expectation: `pitfalls:` the cases that must be found as
pitfalls, `risks:` those named as risks (a static finding no run could confirm or refute). Every
script is checked under linux (fork) and windows (spawn, emulated), with a soft limit of 1024 open
files, the common Linux default, so that the trend of open descriptors has the limit users meet.
"""

from __future__ import annotations

import concurrent.futures
import json
import re
import resource
import sys

import pytest

from tests.conftest import TESTS_DIR, harness

pytestmark = [pytest.mark.slow, pytest.mark.linux]
REALISTIC = TESTS_DIR / "realistic"
SCRIPTS = sorted(REALISTIC.glob("*/*.py"))
OPEN_FILES = 1024
CHECKS_AT_ONCE = 3


def _expected(script) -> dict[str, set[str]]:
    text = script.read_text()
    return {
        kind: set(re.search(rf"^{kind}:(.*)$", text, re.M).group(1).replace(",", " ").split())
        for kind in ("pitfalls", "risks")
    }


def _common_limit() -> None:
    resource.setrlimit(resource.RLIMIT_NOFILE, (OPEN_FILES, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))


def _check(script):
    completed = harness(
        "check",
        str(script),
        "--profile",
        "linux,windows-emulated",
        "--jobs",
        "2",
        "--json",
        timeout=400,
        preexec_fn=_common_limit,
    )
    return completed.returncode, json.loads(completed.stdout or "{}"), completed.stderr


@pytest.fixture(scope="module")
def checked() -> dict:
    with concurrent.futures.ThreadPoolExecutor(CHECKS_AT_ONCE) as pool:
        return dict(zip(SCRIPTS, pool.map(_check, SCRIPTS), strict=True))


def test_the_set_is_a_dozen_broken_and_a_dozen_correct_scripts():
    assert len(list(REALISTIC.glob("broken/*.py"))) >= 12 and len(list(REALISTIC.glob("correct/*.py"))) >= 12


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda path: f"{path.parent.name}/{path.stem}")
def test_check_names_the_right_pitfalls_and_no_false_one(checked, script):
    returncode, report, stderr = checked[script]
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
