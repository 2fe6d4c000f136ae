"""`check` and `lint` on the cases and on realistic scripts: each broken case diagnosed as itself,
each fixed one clean, long scripts judged from their first batches."""

from __future__ import annotations

import json
import time

import pytest

from tests.conftest import SCRIPTS_DIR, harness

pytestmark = pytest.mark.linux


# The profiles that run on this machine's own interpreter (the windows profile's Wine runs are
# tested in test_wine.py).
EMULATED = ("--profile", "linux,linux-3.14,windows-emulated,macos")


@pytest.mark.slow
def test_check_cli_diagnoses_a_crash_and_exits_1():
    completed = harness(
        "check",
        "cases/03_lambda_collate/broken.py",
        *EMULATED,
        "--json",
    )
    assert completed.returncode == 1, completed.stderr
    report = json.loads(completed.stdout)
    assert [r["outcome"] for r in report["runs"]] == ["ok", "crash", "crash", "crash"]
    assert report["pitfalls"][0]["case"] == "03_lambda_collate"
    assert report["pitfalls"][0]["fix"] and report["pitfalls"][0]["docs_page"] == "cases/03_lambda_collate/"
    assert any("DLP002" in line for line in report["lint"])


@pytest.mark.slow
def test_check_cli_finds_a_fork_only_hang_by_idleness_before_the_stall():
    completed = harness(
        "check",
        "cases/11_lock_held_at_fork/broken.py",
        *EMULATED,
        "--stall",
        "60",
        "--json",
    )
    report = json.loads(completed.stdout)
    assert completed.returncode == 1
    assert [r["outcome"] for r in report["runs"]] == ["hang", "ok", "ok", "ok"]
    signature = report["runs"][0]["signature"]
    assert signature.startswith("hang: 2 process(es) in record (broken.py:23)"), signature
    assert signature.endswith(
        "; idle 4 s waiting for a batch, no CPU used, a worker blocked on a lock with no timeout"
    )
    assert report["pitfalls"][0]["case"] == "11_lock_held_at_fork"
    # found by idleness, not by the 60 s stall limit: within seconds of the workers' block
    assert report["runs"][0]["duration_s"] < 30


@pytest.mark.slow
def test_check_ends_a_long_training_script_by_batches_not_by_timeout():
    started = time.monotonic()
    completed = harness(
        "check",
        str(SCRIPTS_DIR / "realistic_train.py"),
        *EMULATED,
        "--timeout",
        "600",
        "--",
        "--epochs",
        "500",
    )
    elapsed = time.monotonic() - started
    assert completed.returncode == 0, completed.stdout
    assert completed.stdout.count("stopped by the harness after") == 4
    assert "No pitfall found" in completed.stdout
    # ended by its batches: 500 epochs would run into the 600 s timeout, however busy the machine
    assert elapsed < 300, f"{elapsed:.0f} s: it should stop after a few batches"


@pytest.mark.slow
def test_check_reports_what_only_lint_can_see_in_a_realistic_script(tmp_path):
    """A lambda collate_fn on the validation loader, which runs only after the first epoch: the
    runs stop before reaching it, the static check still finds it."""
    source = (SCRIPTS_DIR / "realistic_train.py").read_text()
    plain = "val = DataLoader(Synthetic(1024, 16, 1), batch_size=256, num_workers=args.workers)"
    assert plain in source
    script = tmp_path / "train_with_lambda.py"
    script.write_text(source.replace(plain, plain[:-1] + ", collate_fn=lambda batch: batch)"))
    completed = harness("check", str(script), "--profile", "windows-emulated")
    assert completed.returncode == 1
    assert "DLP002" in completed.stdout and "03 · A lambda as `collate_fn`" in completed.stdout


@pytest.mark.slow
def test_unmatched_failure_is_reported_raw_not_guessed(tmp_path):
    script = tmp_path / "odd.py"
    script.write_text("raise SystemExit('my own configuration error')\n")
    completed = harness("check", str(script), "--profile", "linux")
    assert completed.returncode == 1
    assert "No known pitfall matches" in completed.stdout and "my own configuration error" in completed.stdout
    assert "Known pitfall" not in completed.stdout


@pytest.mark.slow
def test_check_says_when_nothing_could_be_judged(tmp_path):
    from harness.run.launch.native import NativeLauncher

    if not NativeLauncher().missing(("cuda",)):
        pytest.skip("this machine has a GPU: the runs can be judged")
    script = tmp_path / "gpu_only.py"
    script.write_text(
        "import torch\n"
        "from torch.utils.data import DataLoader\n\n"
        "if __name__ == '__main__':\n"
        "    model = torch.nn.Linear(2, 2).cuda()\n"
        "    for batch in DataLoader(list(range(8)), batch_size=4, num_workers=2):\n"
        "        print(batch)\n"
    )
    completed = harness("check", str(script), *EMULATED)
    assert completed.returncode == 3, completed.stdout + completed.stderr
    assert "Nothing could be judged" in completed.stdout
    assert "No pitfall found" not in completed.stdout


@pytest.mark.slow
def test_a_class_under_the_main_guard_is_recognised_as_the_notebook_mechanism(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(
        "import argparse\n"
        "import torch\n"
        "from torch.utils.data import DataLoader, Dataset\n\n"
        "if __name__ == '__main__':\n"
        "    parser = argparse.ArgumentParser()\n"
        "    parser.add_argument('--workers', type=int, default=2)\n"
        "    args = parser.parse_args()\n\n"
        "    class Squares(Dataset):\n"
        "        def __len__(self):\n"
        "            return 8\n\n"
        "        def __getitem__(self, index):\n"
        "            return torch.tensor(index * index)\n\n"
        "    for batch in DataLoader(Squares(), batch_size=4, num_workers=args.workers):\n"
        "        print(batch)\n"
    )
    completed = harness("check", str(script), *EMULATED, "--json")
    report = json.loads(completed.stdout)
    assert completed.returncode == 1
    assert {r["profile"]: r["outcome"] for r in report["runs"]} == {
        "linux": "ok",
        "linux-3.14": "crash",
        "windows-emulated": "crash",
        "macos": "crash",
    }
    found = report["pitfalls"][0]
    assert found["case"] == "07_interactive_main_class", report["pitfalls"]
    assert any("<module '__mp_main__'" in line for line in found["runtime_evidence"])
    assert any("DLP013" in line for line in found["lint_evidence"])


@pytest.mark.slow
def test_a_small_dev_shm_is_recognised_only_where_check_imposes_it():
    """On this machine's large /dev/shm case 16's script runs; with --shm-mb 64, as in a Docker
    container, it fails and is named, and the profiles without /dev/shm say why they were skipped."""
    from harness.profiles import PROFILES
    from harness.run import confine
    from harness.run.settings import RunSettings

    linux = PROFILES["linux"]
    if reason := confine.unavailable(RunSettings(1, confined={"dev_shm_mb": 64}), linux.system, linux.title):
        pytest.skip(reason)
    script = "cases/16_dev_shm_too_small/broken.py"
    roomy = json.loads(harness("check", script, "--profile", "linux", "--json").stdout)
    assert [r["outcome"] for r in roomy["runs"]] == ["ok"]
    completed = harness("check", script, "--profile", "linux,windows-emulated", "--shm-mb", "64", "--json")
    report = json.loads(completed.stdout)
    assert completed.returncode == 1
    assert {r["profile"]: r["outcome"] for r in report["runs"]} == {
        "linux": "crash",
        "windows-emulated": "skipped",
    }
    assert report["pitfalls"][0]["case"] == "16_dev_shm_too_small"
