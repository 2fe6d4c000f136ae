"""`observe-chroot`: the cases run natively by a Debian suite's Python, in a chroot (root only)."""

from __future__ import annotations

import os
import shutil

from harness import cli
from harness.commands import observe_chroot


def test_without_root_it_refuses_in_one_line_and_exits_2(monkeypatch, capsys, tmp_path):
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    status = cli.main(["observe-chroot", "--chroots", str(tmp_path / "chroots")])
    out = capsys.readouterr().out.strip()
    assert status == 2
    assert out == f"error: {observe_chroot.NOT_ROOT}"
    assert not (tmp_path / "chroots").exists(), "nothing made"


def test_without_debootstrap_it_names_the_package(monkeypatch, capsys):
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    monkeypatch.setattr(shutil, "which", lambda tool: None if tool == "debootstrap" else f"/usr/bin/{tool}")
    assert cli.main(["observe-chroot", "sid"]) == 2
    assert "needs debootstrap: apt-get install debootstrap" in capsys.readouterr().out


def test_an_unknown_suite_is_refused_by_name(capsys):
    assert cli.main(["observe-chroot", "bookworm"]) == 2
    assert "invalid choice: 'bookworm' (choose from 'sid', 'trixie')" in capsys.readouterr().err
