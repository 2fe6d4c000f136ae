"""The confinement family (harness/run/confine/): a run gets what its settings ask for, each
confinement wraps the command of those declared before it, and they are closed outermost first,
those already made closed too when one cannot be made."""

from __future__ import annotations

import pytest

from harness.run import confine
from harness.run.confine import Confined, Confinement
from harness.run.settings import RunSettings


class _Marked(Confined):
    def __init__(self, name: str, log: list) -> None:
        self.name, self.log = name, log

    def wrap(self, command):
        return [f"in-{self.name}", *command], {f"DLP_{self.name.upper()}": "1"}

    def close(self):
        self.log.append(f"closed {self.name}")
        return f"{self.name} left" if self.name == "outer" else ""


class _Way(Confinement):
    def __init__(self, name: str, setting: str, log: list, fails: bool = False) -> None:
        self.name, self.setting, self.log, self.fails = name, setting, log, fails

    @property
    def elsewhere(self):
        return "{title} has no " + self.name

    def cannot_here(self):
        return ""

    def make(self, size_mb):
        if self.fails:
            raise OSError(f"no {self.name}")
        return _Marked(self.name, self.log)


def test_the_declared_order_wraps_inner_first_and_closes_outer_first(monkeypatch):
    log = []
    ways = (_Way("inner", "dev_shm_mb", log), _Way("outer", "memory_cgroup_mb", log))
    monkeypatch.setattr(confine, "ORDER", ways)
    made = confine.made(RunSettings(1, confined={"dev_shm_mb": 8, "memory_cgroup_mb": 64}))
    command, env = confine.wrapped(made, ["python", "x.py"], {"A": "1"})
    assert command == ["in-outer", "in-inner", "python", "x.py"]
    assert env == {"A": "1", "DLP_INNER": "1", "DLP_OUTER": "1"}
    assert confine.close(made) == ["outer left"] and log == ["closed outer", "closed inner"]


def test_only_what_the_settings_ask_for_is_made(monkeypatch):
    log = []
    monkeypatch.setattr(
        confine, "ORDER", (_Way("inner", "dev_shm_mb", log), _Way("outer", "memory_cgroup_mb", log))
    )
    assert [c.name for c in confine.made(RunSettings(1, confined={"memory_cgroup_mb": 64}))] == ["outer"]
    assert confine.made(RunSettings(1)) == []


def test_one_that_cannot_be_made_closes_those_made_before_it(monkeypatch):
    log = []
    ways = (_Way("inner", "dev_shm_mb", log), _Way("outer", "memory_cgroup_mb", log, fails=True))
    monkeypatch.setattr(confine, "ORDER", ways)
    with pytest.raises(OSError, match="no outer"):
        confine.made(RunSettings(1, confined={"dev_shm_mb": 8, "memory_cgroup_mb": 64}))
    assert log == ["closed inner"]


def test_a_profile_of_another_system_says_it_has_none_and_nothing_asked_is_never_refused(monkeypatch):
    monkeypatch.setattr(confine, "ORDER", (_Way("inner", "dev_shm_mb", []),))
    assert (
        confine.unavailable(RunSettings(1, confined={"dev_shm_mb": 8}), "windows", "Windows")
        == "Windows has no inner"
    )
    assert confine.unavailable(RunSettings(1), "windows", "Windows") == ""
    assert confine.unavailable(RunSettings(1, confined={"dev_shm_mb": 8}), "linux", "Linux") == ""


def test_each_confinement_declares_itself_once_and_the_rest_reads_the_family():
    """Its setting, option and words are its own; check's options, case.toml's keys, the recorded
    limits and check's plan come from the family, naming none of its members."""
    from harness.cases import TOP_LEVEL_KEYS
    from harness.cli import build_parser

    ways = confine.ORDER
    assert len({w.setting for w in ways}) == len({w.option for w in ways}) == len({w.order for w in ways})
    assert [w.order for w in ways] == sorted(w.order for w in ways), "innermost first"
    for way in ways:
        for words in (way.help, way.planned, way.exercise, way.elsewhere):
            assert words and "{" not in words.format(size=2, title="T"), (way.setting, words)
        assert way.setting in TOP_LEVEL_KEYS, "a case.toml key"
        args = build_parser().parse_args(["check", __file__, way.option, "2"])
        assert getattr(args, way.setting) == 2, "check's option"
        settings = RunSettings(1, confined={way.setting: 2})
        assert settings.limits()[way.setting] == 2, "recorded with the run"
        assert confine.said(settings.confined) == [way.planned.format(size=2)]


def test_a_profile_s_confinements_apply_where_a_run_sets_none_of_its_own():
    settings = RunSettings(1, confined={"a": 5})
    assert settings.confined_by_default({"a": 1, "b": 2}).confined == {"a": 5, "b": 2}
    assert RunSettings(1).confined_by_default({}).confined == {}


def test_the_open_file_limit_lowers_the_soft_limit_of_the_script_and_its_children(tmp_path):
    import os
    import subprocess
    import sys

    from harness.run.confine.open_files import hard_limit

    settings = RunSettings(1, confined={"open_files": 64})
    made = confine.made(settings)
    code = (
        "import os, resource; print(resource.getrlimit(resource.RLIMIT_NOFILE)[0]); os.system('ulimit -Sn')"
    )
    command, env = confine.wrapped(made, [sys.executable, "-c", code], dict(os.environ))
    printed = subprocess.run(command, env=env, capture_output=True, text=True, check=True).stdout.split()
    assert printed == ["64", "64"], "the interpreter, and a process it starts"
    assert confine.unavailable(settings, "darwin", "macOS") == "", "macOS has it"
    assert "Windows has no soft limit" in confine.unavailable(settings, "windows", "Windows")
    if (hard := hard_limit()) is not None:
        too_many = RunSettings(1, confined={"open_files": hard + 1})
        assert f"hard limit is {hard}" in confine.unavailable(too_many, "linux", "Linux")
