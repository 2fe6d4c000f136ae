"""What a script needs of an interpreter that is not this one (harness/run/script_needs.py), and the
Windows binaries given the script's own packages (harness/run/launch/wine_packages.py): brought at
the version installed here, cached per version; a package that cannot be had skips the run with
its name, and a module that imports here is never an outcome of the script there."""

from __future__ import annotations

import importlib.metadata as metadata
import subprocess
import time
from pathlib import Path

import pytest
from filelock import FileLock

from harness.outcomes import Outcome
from harness.results import RunResult
from harness.run import script_needs
from harness.run.launch import wine_env, wine_packages


def test_third_party_imports_leave_out_the_standard_library_and_the_scripts_own_modules(tmp_path):
    (tmp_path / "model.py").write_text("import lmdb\nfrom helpers import tools\n")
    (tmp_path / "helpers").mkdir()
    (tmp_path / "helpers" / "__init__.py").write_text("import h5py.h5f\n")
    script = tmp_path / "train.py"
    script.write_text(
        "from __future__ import annotations\nimport os, json\nimport torch.nn as nn\n"
        "from model import Net\nfrom . import sibling\n\ndef f():\n    import monai.data\n"
    )
    assert script_needs.third_party_imports(script) == ("h5py", "lmdb", "monai", "torch")


def test_a_script_that_joins_a_process_group_needs_distributed_and_a_sampler_alone_does_not(tmp_path):
    script = tmp_path / "ddp.py"
    script.write_text("import torch.distributed as dist\ndist.init_process_group('gloo')\n")
    assert script_needs.needs(script) == ("distributed",)
    script.write_text(
        "from torch.utils.data.distributed import DistributedSampler\nDistributedSampler(d, 2, 0)\n"
    )
    assert script_needs.needs(script) == ()
    script.write_text("this is not python (\n")
    assert script_needs.needs(script) == () and script_needs.third_party_imports(script) == ()


def test_the_packages_wanted_are_this_interpreters_versions_less_what_the_environment_has(tmp_path):
    dist = metadata.distribution("filelock")  # a dependency of the harness: installed wherever it runs
    script = tmp_path / "train.py"
    script.write_text("import filelock\nimport torch\n")
    wanted = wine_packages.wanted(script, have={"torch"}, python="3.13.2")
    assert [(w.name.lower(), w.version, w.for_module) for w in wanted] == [
        ("filelock", dist.version, "filelock")
    ]
    assert wine_packages.wanted(script, have={"torch", "filelock"}, python="3.13.2") == []
    given = frozenset(
        {"filelock"}
    )  # the module there under another distribution (cv2: opencv-python-headless)
    assert wine_packages.wanted(script, have={"torch"}, python="3.13.2", have_modules=given) == []


def test_requirements_are_read_with_windows_markers():
    markers = wine_packages._windows_markers("3.13.2")
    assert (markers["sys_platform"], markers["python_version"], markers["platform_system"]) == (
        "win32", "3.13", "Windows"
    )  # fmt: skip

    import types

    dist = types.SimpleNamespace(
        requires=["a", "b; sys_platform == 'linux'", "c; sys_platform == 'win32'", "d; extra == 'x'", "!!"]
    )
    assert wine_packages._requirements(dist, markers) == ["a", "c"]


class _Dist:
    """An installed distribution as importlib.metadata gives it: its name, version, requirements."""

    def __init__(self, name, version, requires=()):
        self.metadata, self.version, self.requires = {"Name": name}, version, list(requires)


def test_a_requirement_on_windows_only_is_wanted_at_what_it_allows_not_dropped(monkeypatch, tmp_path):
    """tqdm requires colorama on Windows only: not installed here, it is still brought there."""
    installed = {"tqdm": _Dist("tqdm", "4.67.1", ["colorama; platform_system == 'Windows'"])}

    def distribution(name):
        if name not in installed:
            raise metadata.PackageNotFoundError(name)
        return installed[name]

    monkeypatch.setattr(wine_packages, "_distributions_by_module", lambda: {"tqdm": ["tqdm"]})
    monkeypatch.setattr(metadata, "distribution", distribution)
    script = tmp_path / "train.py"
    script.write_text("from tqdm import tqdm\n")
    wanted = wine_packages.wanted(script, have=set(), python="3.13.2")
    assert [(w.name, w.version, w.spec, w.required_by) for w in wanted] == [
        ("colorama", "", "", "tqdm"),
        ("tqdm", "4.67.1", "", ""),
    ]
    assert str(wanted[0]) == "colorama (required on Windows by tqdm, which tqdm needs; not installed here)"


def _pip_gives(version):
    def run(command, **kwargs):
        folder = Path(command[command.index("--target") + 1])
        (folder / f"colorama-{version}.dist-info").mkdir(parents=True)
        return subprocess.CompletedProcess(command, 0, "", "")

    return run


def test_a_windows_only_requirement_is_fetched_at_its_newest_allowed_version_and_kept(monkeypatch, tmp_path):
    calls = []
    pip = _pip_gives("0.4.6")
    monkeypatch.setattr(subprocess, "run", lambda command, **kw: calls.append(command) or pip(command))
    monkeypatch.setattr(wine_packages, "_compile", lambda *args: None)
    package = wine_packages.Wanted("colorama", "", "tqdm", ">=0.4", "tqdm")
    kept = wine_packages._kept(tmp_path, package, "3.13.2", tmp_path)
    assert kept == tmp_path / "colorama-0.4.6" and (kept / wine_packages.DONE).is_file()
    assert "colorama>=0.4" in calls[0]
    assert wine_packages._kept(tmp_path, package, "3.13.2", tmp_path) == kept and len(calls) == 1
    newer = wine_packages.Wanted("colorama", "", "tqdm", ">=0.5", "tqdm")
    monkeypatch.setattr(subprocess, "run", _no_wheel)
    with pytest.raises(wine_packages.Unavailable, match=r"colorama>=0\.5 \(required on Windows by tqdm"):
        wine_packages._kept(tmp_path, newer, "3.13.2", tmp_path)


def test_preparing_stops_at_checks_deadline_naming_what_took_the_time(monkeypatch, tmp_path):
    """A fetch that would outlast check's deadline is stopped at it; a lock held by another check
    is waited for until then, not for ever."""

    def slow(command, timeout, **kwargs):
        raise subprocess.TimeoutExpired(command, timeout)

    monkeypatch.setattr(subprocess, "run", slow)
    clock = wine_packages._Clock(time.monotonic() + 2)
    with pytest.raises(
        wine_packages.Unavailable,
        match=r"could not fetch x 1\.0 for Windows: check's deadline came after 2 s",
    ):
        wine_packages._kept(tmp_path, wine_packages.Wanted("x", "1.0", "xmod"), "3.13.2", tmp_path, clock)
    monkeypatch.setattr(wine_packages, "wanted", lambda *args: [wine_packages.Wanted("x", "1.0", "xmod")])
    (tmp_path / wine_packages.FOLDER).mkdir()
    with FileLock(tmp_path / wine_packages.FOLDER / ".lock"):  # another check, preparing
        started = time.monotonic()
        with pytest.raises(
            wine_packages.Unavailable, match=r"another run was preparing .*waited 1 s for its lock"
        ):
            wine_packages.prepare(tmp_path / "train.py", tmp_path, deadline=time.monotonic() + 1)
        assert time.monotonic() - started < 5


def _no_wheel(command, **kwargs):
    return subprocess.CompletedProcess(command, 1, "", "ERROR: No matching distribution found for x==1.0")


def test_a_package_without_a_windows_wheel_is_named_and_not_asked_for_again(monkeypatch, tmp_path):
    calls = []
    monkeypatch.setattr(subprocess, "run", lambda command, **kw: calls.append(command) or _no_wheel(command))
    package = wine_packages.Wanted("x", "1.0", "xmod")
    for _ in range(2):
        with pytest.raises(
            wine_packages.Unavailable, match=r"x 1\.0 \(imported as xmod\) has no Windows wheel"
        ):
            wine_packages._kept(tmp_path, package, "3.13.2", tmp_path)
    assert len(calls) == 1, "the refusal is kept for a day"
    assert "--platform" in calls[0] and "win_amd64" in calls[0] and "x==1.0" in calls[0]


def test_a_fetch_that_fails_otherwise_is_could_not_fetch_and_is_asked_again(monkeypatch, tmp_path):
    failed = subprocess.CompletedProcess([], 1, "", "ERROR: HTTP error 503 while getting …")
    monkeypatch.setattr(subprocess, "run", lambda command, **kw: failed)
    package = wine_packages.Wanted("x", "1.0", "xmod")
    with pytest.raises(
        wine_packages.Unavailable, match=r"could not fetch x 1\.0 for Windows: ERROR: HTTP error 503"
    ):
        wine_packages._kept(tmp_path, package, "3.13.2", tmp_path)
    assert not list(tmp_path.glob("*.no-wheel")) and not list(tmp_path.glob("x-1.0*"))


def test_a_kept_version_is_used_as_it_is(monkeypatch, tmp_path):
    monkeypatch.setattr(subprocess, "run", lambda *a, **k: pytest.fail("fetched again"))
    kept = tmp_path / "x-1.0"
    kept.mkdir()
    (kept / wine_packages.DONE).write_text("{}")
    assert wine_packages._kept(tmp_path, wine_packages.Wanted("X", "1.0", "x"), "3.13.2", tmp_path) == kept


def _crashed(signature: str, output: str = "") -> RunResult:
    return RunResult(case="c", variant="check", profile="windows", outcome=Outcome.CRASH, signature=signature,
                     output_tail=output)  # fmt: skip


def _lacking(result: RunResult):
    from harness import recognition
    from harness.run.launch.base import module_lacking

    return module_lacking(recognition.raised(result), "CPython 3.13.2 win_amd64 under Wine")


def test_a_module_missing_there_that_imports_here_is_its_fault_and_one_missing_here_too_is_the_scripts():
    there = _lacking(_crashed("ModuleNotFoundError: No module named 'psutil'"))
    assert not there.passing and "has no module 'psutil', which imports in this one" in there.reason
    worker = _crashed("RuntimeError: DataLoader worker (pid(s) 12) exited unexpectedly",
                      "Traceback (most recent call last):\n  File \"<string>\", line 1, in <module>\n"
                      "ModuleNotFoundError: No module named 'filelock.sub'\n")  # fmt: skip
    assert _lacking(worker) is not None, "a worker's, too"
    assert _lacking(_crashed("ModuleNotFoundError: No module named 'no_such_module_anywhere'")) is None


def test_wine_lacking_a_function_a_dll_calls_is_named_and_other_output_is_not():
    output = "Unhandled exception: unimplemented function ucrtbase.dll.feholdexcept called in 64-bit code"
    assert "does not implement ucrtbase.dll.feholdexcept" in wine_env.gap_in(output)
    # as Wine itself says it, its debugger disabled (observed with h5py's hdf5.dll under Wine 8.0)
    loader = "wine: Unimplemented function ucrtbase.dll.feholdexcept called at address 000000007B013D7E"
    assert "does not implement ucrtbase.dll.feholdexcept" in wine_env.gap_in(loader)
    assert wine_env.gap_in("Traceback …\nValueError: unimplemented function arguments") == ""
