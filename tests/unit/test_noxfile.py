"""The noxfile: torch's CPU build on Linux unless DLP_TORCH_INDEX names an index; one pass per call."""

from __future__ import annotations

import importlib.util

import pytest

from tests.conftest import ROOT


class RecordingSession:
    def __init__(self):
        self.installs: list[tuple[str, ...]] = []

    def install(self, *args):
        self.installs.append(args)

    def log(self, *args):
        pass


@pytest.fixture
def noxfile():
    spec = importlib.util.spec_from_file_location("dlp_noxfile", ROOT / "noxfile.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_torch_is_the_cpu_build_on_linux_unless_an_index_is_named(noxfile, monkeypatch):
    monkeypatch.delenv("DLP_TORCH_INDEX", raising=False)
    monkeypatch.setattr(noxfile.sys, "platform", "linux")
    plain = RecordingSession()
    noxfile.install_project(plain, "docs")
    assert plain.installs[0] == ("--index-url", noxfile.CPU_INDEX, "torch==2.13.0")
    assert plain.installs[1] == ("torch==2.13.0", "-e", ".[cases,native-stacks,docs]")
    assert all("--index-url" not in args for args in plain.installs[1:]), "the rest comes from pip's default"

    monkeypatch.setattr(noxfile.sys, "platform", "win32")
    windows = RecordingSession()
    noxfile.install_project(windows)
    assert windows.installs[0] == ("torch==2.13.0",), "PyPI's Windows and macOS builds are the CPU ones"

    monkeypatch.setattr(noxfile.sys, "platform", "linux")
    monkeypatch.setenv("DLP_TORCH_INDEX", "default")
    cuda = RecordingSession()
    noxfile.install_project(cuda)
    assert cuda.installs[0] == ("torch==2.13.0",), "default: pip's own index, the CUDA build on Linux"

    monkeypatch.setenv("DLP_TORCH_INDEX", "https://example.org/simple")
    named = RecordingSession()
    noxfile.install_project(named)
    assert named.installs[0] == ("--index-url", "https://example.org/simple", "torch==2.13.0")


def test_nox_alone_is_one_pass_whose_tests_come_first(noxfile):
    """`nox` with no arguments: the tests observe the matrix, then reproduce and verify take it."""
    sessions = noxfile.nox.options.sessions
    assert sessions.index("tests") < sessions.index("reproduce") < sessions.index("verify")
    assert noxfile.os.environ[noxfile.PASS_VARIABLE], "every session of one nox call shares a pass"
