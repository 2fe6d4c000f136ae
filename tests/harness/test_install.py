"""The tool as users install it: a wheel built from the repository, installed into a new virtual
environment outside the clone, run on scripts in another folder; and the pre-commit hook, tried
against this repository from a sample git repository (`pre-commit try-repo`)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import time
from pathlib import Path

import pytest

from harness.run.launch import wine_env as wine
from tests.conftest import ROOT, needs_wine

pytestmark = [pytest.mark.slow, pytest.mark.linux]
BROKEN = ROOT / "cases" / "03_lambda_collate" / "broken.py"
CLEAN = ROOT / "cases" / "03_lambda_collate" / "fixed.py"


def run(*command, **options) -> subprocess.CompletedProcess:
    return subprocess.run(command, capture_output=True, text=True, timeout=600, **options)


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> dict:
    """The wheel, a new venv with it installed (its dependencies from the index), and a folder of
    the user's scripts; torch comes from this test environment, as the user's own torch would."""
    where = tmp_path_factory.mktemp("install")
    # Built from a copy of the checkout, as from a fresh clone: setuptools' build/ of an earlier
    # layout in the checkout would travel into the wheel.
    source = where / "source"
    top = {".git", ".nox", "build", "site", "results"}  # the checkout's own, not its packages' folders

    def skipped(folder: str, names: list[str]) -> list[str]:
        at_top = Path(folder) == ROOT
        return [n for n in names if (at_top and n in top) or n == "__pycache__" or n.endswith(".egg-info")]

    shutil.copytree(ROOT, source, ignore=skipped)
    built = run(
        sys.executable,
        "-m",
        "pip",
        "wheel",
        "--no-deps",
        "--no-build-isolation",
        "-w",
        str(where),
        str(source),
    )
    assert built.returncode == 0, built.stderr[-2000:]
    (wheel,) = where.glob("dataloader_pitfalls-*.whl")
    venv = where / "venv"
    assert run(sys.executable, "-m", "venv", str(venv)).returncode == 0
    bin_dir = venv / ("Scripts" if os.name == "nt" else "bin")
    started = time.monotonic()
    pip = run(str(bin_dir / "python"), "-m", "pip", "install", "-q", str(wheel))
    assert pip.returncode == 0, pip.stderr[-2000:]
    seconds = time.monotonic() - started
    project = where / "project"
    project.mkdir()
    shutil.copy(BROKEN, project / "train.py")
    shutil.copy(CLEAN, project / "clean.py")
    lines = BROKEN.read_text().splitlines()
    noqa = "\n".join(f"{line}  # noqa" if "collate_fn=lambda" in line else line for line in lines)
    assert "# noqa" in noqa
    (project / "silenced.py").write_text(noqa)
    print(f"wheel {wheel.stat().st_size / 1024:.0f} KB, installed in {seconds:.1f} s")
    installed = {"wheel": wheel, "bin": bin_dir, "project": project, "install_s": seconds}
    installed["without_torch"] = tool(installed, "check", "train.py", "--profile", "linux")
    site = run(str(bin_dir / "python"), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))")
    torch_dir = Path(__import__("torch").__file__).parent.parent
    (Path(site.stdout.strip()) / "users_torch.pth").write_text(f"{torch_dir}\n")
    return installed


def tool(installed, *args, command="dataloader-pitfalls", **variables: str) -> subprocess.CompletedProcess:
    """The installed command, run in the user's project with this environment (less the test
    environment's own paths and this checkout's Windows environment) and `variables`."""
    dropped = ("PYTHONPATH", "VIRTUAL_ENV", wine.ENV_VARIABLE)
    env = {k: v for k, v in os.environ.items() if k not in dropped} | variables
    return run(str(installed["bin"] / command), *args, cwd=installed["project"], env=env)


def test_the_wheel_carries_the_catalog_and_runs_outside_the_clone(installed):
    code = "import dataloader_pitfalls.cases as c; print(c.CASES_DIR, len(c.discover()))"
    located = tool(installed, "-c", code, command="python")
    folder, count = located.stdout.split()
    assert "site-packages" in folder and not folder.startswith(str(ROOT)), folder
    assert int(count) == len(list((ROOT / "cases").glob("[0-9][0-9]_*")))


def test_the_wheel_installs_one_top_level_package_named_for_the_project(installed):
    import zipfile

    names = zipfile.ZipFile(installed["wheel"]).namelist()
    top = {name.split("/")[0] for name in names if not name.split("/")[0].endswith(".dist-info")}
    assert top == {"dataloader_pitfalls"}, top
    assert "dataloader_pitfalls/fixes/worker_random.py" in names, "the recipes, importable"
    for name in ("harness", "fixes"):
        unclaimed = tool(installed, "-c", f"import {name}", command="python")
        assert unclaimed.returncode == 1 and "ModuleNotFoundError" in unclaimed.stderr, name
    as_module = tool(installed, "-m", "dataloader_pitfalls", "list", command="python")
    assert as_module.returncode == 0 and "03_lambda_collate" in as_module.stdout, as_module.stderr[-2000:]
    assert "python -m dataloader_pitfalls" in tool(installed, "-m", "dataloader_pitfalls", "--help",
                                                   command="python").stdout  # fmt: skip


def test_lint_names_the_case_and_respects_noqa(installed):
    broken = tool(installed, "lint", "train.py")
    assert broken.returncode == 1 and "DLP002" in broken.stdout and "cases/03_lambda_collate" in broken.stdout
    assert tool(installed, "lint", "clean.py", "silenced.py", command="dlp").returncode == 0


def test_check_without_torch_in_its_environment_says_so(installed):
    completed = installed["without_torch"]
    assert completed.returncode == 2 and "has no torch" in completed.stderr, completed.stderr


def test_check_runs_the_script_and_names_the_case(installed):
    completed = tool(installed, "check", "train.py", "--profile", "linux,windows-emulated", "--json")
    assert completed.returncode == 1, completed.stderr[-2000:]
    report = json.loads(completed.stdout)
    assert report["schema"] == 2
    assert [r["outcome"] for r in report["runs"]] == ["ok", "crash"]
    assert report["pitfalls"][0]["case"] == "03_lambda_collate"


def test_installed_check_runs_windows_binaries_from_the_environment_it_is_given(installed):
    needs_wine()
    given = {wine.ENV_VARIABLE: str(wine.root())}
    completed = tool(installed, "check", "train.py", "--profile", "windows", "--json", **given)
    report = json.loads(completed.stdout)
    assert [r["outcome"] for r in report["runs"]] == ["crash"], completed.stderr[-2000:]
    assert report["runs"][0]["emulation"].startswith(wine.DESCRIPTION_START)
    assert report["runs"][0]["how"]["launcher"] == "wine" and not report["runs"][0]["how"]["emulated"]


def test_installed_the_windows_environment_belongs_in_the_users_cache(installed, tmp_path):
    """From a wheel there is no checkout to hold .nox/windows-binaries: the environment goes to
    the user's cache folder, and the skip reason names the installed command that prepares it."""
    completed = tool(
        installed, "check", "train.py", "--profile", "windows", "--json", XDG_CACHE_HOME=str(tmp_path)
    )
    (run_report,) = json.loads(completed.stdout)["runs"]
    assert run_report["outcome"] == "skipped"
    if shutil.which("wine") or shutil.which("wine64"):
        where = tmp_path / "dataloader-pitfalls" / "windows-binaries"
        assert f"no Windows environment in {where}" in run_report["reason"], run_report["reason"]
        assert "dataloader-pitfalls windows-env" in run_report["reason"]
    else:
        assert "Wine is not installed" in run_report["reason"]
    assert not (tmp_path / "dataloader-pitfalls").exists()


@pytest.mark.skipif(shutil.which("git") is None, reason="pre-commit needs git")
def test_pre_commit_try_repo_runs_the_hook(tmp_path):
    sample = tmp_path / "sample"
    sample.mkdir()
    shutil.copy(BROKEN, sample / "train.py")
    shutil.copy(CLEAN, sample / "clean.py")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.org"]
    for step in (["init", "-q"], ["add", "."], ["commit", "-q", "-m", "sample"]):
        assert run(*git, *step, cwd=sample).returncode == 0
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "cache")}
    env.pop("PYTHONPATH", None)
    pre_commit = Path(sysconfig.get_path("scripts")) / "pre-commit"
    tried = run(
        str(pre_commit), "try-repo", str(ROOT), "dataloader-pitfalls", "--all-files", cwd=sample, env=env
    )
    assert tried.returncode == 1, tried.stdout[-3000:] + tried.stderr[-2000:]
    assert "train.py:21:20: DLP002" in tried.stdout and "clean.py" not in tried.stdout.split("DLP")[0]
