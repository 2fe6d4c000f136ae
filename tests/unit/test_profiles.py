"""Profiles: what each imposes, when it runs natively or is emulated, and that a profile which
cannot be imposed never runs as something else."""

from __future__ import annotations

import sys

import pytest

from harness import profiles
from harness.cases import CaseError, load_case
from harness.profiles import PROFILES
from harness.run.runner import BOOT_DIR


def test_each_profile_says_where_it_is_native():
    assert profiles.native_profiles({"os": "linux", "python": "3.11.7"}) == {"linux"}
    assert profiles.native_profiles({"os": "linux", "python": "3.14.2"}) == {"linux", "linux-3.14"}
    assert profiles.native_profiles({"os": "linux", "python": "3.13.9"}) == {"linux"}, "preloads, is not 3.14"
    assert profiles.native_profiles({"os": "windows", "python": "3.12.1"}) == {"windows", "windows-emulated"}
    assert profiles.native_profiles({"os": "darwin", "python": "3.13.0"}) == {"macos"}


def test_an_emulation_names_what_it_imitates():
    assert PROFILES["linux"].emulation("linux", (3, 11, 7)) == ""
    assert PROFILES["linux-3.14"].emulation("linux", (3, 14, 2)) == ""
    emulated = PROFILES["linux-3.14"].emulation("linux", (3, 11, 7))
    assert emulated.startswith("forkserver on Linux, Python 3.11") and "preloaded" in emulated
    windows = PROFILES["windows-emulated"].emulation("linux", (3, 11, 7))
    assert "file_system" in windows and "resource" in windows
    assert PROFILES["windows-emulated"].emulation("windows", (3, 12, 0)) == ""
    assert PROFILES["windows"].emulation("windows", (3, 12, 0)) == "", "Windows' own binaries, on Windows"
    assert "under Wine" in PROFILES["windows"].emulation("linux", (3, 11, 7))


def test_start_method_shorthand_and_profile_list(tmp_path):
    from harness.commands import arguments

    assert [p.name for p in arguments.start_method_profiles("spawn")] == [
        "windows",
        "windows-emulated",
        "macos",
    ]
    assert [p.name for p in arguments.profiles("linux,macos")] == ["linux", "macos"]


def test_case_toml_overrides_an_expectation_per_profile(tmp_path):
    folder = tmp_path / "99_sample"
    folder.mkdir()
    for variant in ("broken", "fixed"):
        (folder / f"{variant}.py").write_text("pass\n")
    expect = "".join(
        f'[expect.{v}.{m}]\noutcome = "{"crash" if v == "broken" else "ok"}"\n\n'
        for v in ("broken", "fixed")
        for m in ("fork", "forkserver", "spawn")
    )
    head = 'title = "t"\nsummary = "s"\ntags = []\ntimeout = 5\n\n'
    (folder / "case.toml").write_text(head + expect + '[expect.broken.macos]\noutcome = "ok"\n')
    case = load_case(folder)
    assert case.expectation("broken", PROFILES["macos"]).outcome == "ok"
    assert case.expectation("broken", PROFILES["macos"]).profile == "macos"
    assert case.expectation("broken", PROFILES["windows"]).outcome == "crash"
    (folder / "case.toml").write_text(head + expect + '[expect.broken.solaris]\noutcome = "ok"\n')
    with pytest.raises(CaseError, match=r"unknown key 'solaris' \(known: fork, forkserver, spawn, linux"):
        load_case(folder)


def test_the_preload_is_applied_only_where_python_lacks_it():
    sys.path.insert(0, str(BOOT_DIR))
    try:
        import dlp_forkserver
    finally:
        sys.path.remove(str(BOOT_DIR))
    assert dlp_forkserver.has_upstream_fix((3, 14, 1)) and dlp_forkserver.has_upstream_fix((3, 13, 8))
    assert not dlp_forkserver.has_upstream_fix((3, 14, 0)) and not dlp_forkserver.has_upstream_fix((3, 12, 9))
