"""Hostile scripts (tests/faults/): each is classified as it should be and leaves nothing behind."""

from __future__ import annotations

import os

import psutil
import pytest

from harness.run import shm_leftovers

pytestmark = pytest.mark.linux


def test_only_the_runs_own_shared_memory_is_removed(tmp_path):
    folder = tmp_path / "shm"
    folder.mkdir()
    (folder / "there-before").write_bytes(b"x")
    watch = shm_leftovers.ShmWatch(folder=folder)
    dead = psutil.Popen(["true"])
    dead.wait()
    held = folder / "psm_held"
    with open(held, "wb") as handle:
        handle.write(b"y" * 2048)
        watch.poll([os.getpid()], force=True)  # the run's process has it open
    names = ["there-before", "psm_held", f"torch_{dead.pid}_1_0", f"torch_{os.getpid()}_1_0", "sem.mp-other"]
    for name in names[2:]:
        (folder / name).write_bytes(b"z")
    watch.pids.add(dead.pid)  # os.getpid() is a run pid too, but alive: its pid was reused elsewhere
    assert watch.remove_leftovers() == ["psm_held (2 KB)", f"torch_{dead.pid}_1_0 (0 KB)"]
    assert sorted(os.listdir(folder)) == sorted(["there-before", f"torch_{os.getpid()}_1_0", "sem.mp-other"])


def test_processes_are_not_read_while_nothing_new_is_in_shared_memory(tmp_path, monkeypatch):
    folder = tmp_path / "shm"
    folder.mkdir()
    (folder / "there-before").write_bytes(b"x")
    watch = shm_leftovers.ShmWatch(folder=folder)
    read = []
    monkeypatch.setattr(shm_leftovers, "held_by", lambda pid, _folder: read.append(pid) or {"psm_new"})
    watch.poll([1, 2], force=True)
    assert read == [], "nothing new in /dev/shm: no process's maps read"
    (folder / "psm_new").write_bytes(b"y")
    watch.poll([1, 2], force=True)
    assert read == [1, 2] and watch.held == {"psm_new"}
