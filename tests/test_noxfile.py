"""The noxfile's install step: torch from pip's default index, or from the one DLP_TORCH_INDEX names."""

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


def test_torch_comes_from_the_default_index_unless_one_is_named(noxfile, monkeypatch):
    monkeypatch.delenv("DLP_TORCH_INDEX", raising=False)
    plain = RecordingSession()
    noxfile.install_project(plain, "docs")
    assert plain.installs[0] == ("torch==2.13.0",)
    assert plain.installs[1] == ("torch==2.13.0", "-e", ".[cases,native-stacks,docs]")

    monkeypatch.setenv("DLP_TORCH_INDEX", "https://download.pytorch.org/whl/cpu")
    cpu = RecordingSession()
    noxfile.install_project(cpu)
    assert cpu.installs[0] == ("--index-url", "https://download.pytorch.org/whl/cpu", "torch==2.13.0")
    assert all("--index-url" not in args for args in cpu.installs[1:]), "the rest comes from pip's default"
