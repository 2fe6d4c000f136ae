"""A run inside a private mount namespace whose /dev/shm is a tmpfs of a given size, as in a Docker
container (64 MB unless `--shm-size` says otherwise).

The run enters a mount namespace of its own (harness/run/mount_namespace.py; as a user who is not
root, in a user namespace too, where they are enabled), where a shell mounts the small tmpfs on
/dev/shm and execs the script's interpreter: the run's pid, session and process tree are unchanged.
The tmpfs, and anything left in it, goes with the namespace when the run's last process ends.
"""

from __future__ import annotations

import functools
import os
import platform
import shutil
import subprocess

from .. import mount_namespace
from .base import Confined, Confinement

_MOUNT = 'mount -t tmpfs -o size="$DLP_SHM_SIZE" tmpfs /dev/shm'


def wrap(command: list[str], size_mb: float) -> tuple[list[str], dict[str, str]]:
    """The command that runs `command` with a /dev/shm of `size_mb`, and the variable it reads."""
    entered = mount_namespace.entered([_MOUNT], mount_namespace.EXEC_ARGUMENTS, command, own_user=True)
    return entered, {"DLP_SHM_SIZE": f"{int(size_mb)}m"}


@functools.cache
def _cannot_mount() -> str:
    if platform.system() != "Linux" or shutil.which("unshare") is None:
        return f"a private /dev/shm needs Linux's unshare (this is {platform.system()})"
    command, variables = wrap(["true"], 1)
    try:
        made = subprocess.run(
            command, env={**os.environ, **variables}, capture_output=True, text=True, timeout=30
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"cannot make a private /dev/shm here: {exc}"
    if made.returncode != 0:
        why = made.stderr.strip().splitlines()[-1:] or [f"exit status {made.returncode}"]
        return f"cannot make a private /dev/shm here (no mount namespace for this user): {why[0]}"
    return ""


class _Mounted(Confined):
    def __init__(self, size_mb: float) -> None:
        self.size_mb = size_mb

    def wrap(self, command: list[str]) -> tuple[list[str], dict[str, str]]:
        return wrap(command, self.size_mb)


class PrivateShm(Confinement):
    """A private /dev/shm of `RunSettings.confined["dev_shm_mb"]` MB."""

    setting = "dev_shm_mb"
    option = "--shm-mb"
    help = "run with a /dev/shm of this size, as in a container (Docker's default: 64); Linux only"
    planned = "with a /dev/shm of {size:g} MB"
    exercise = (
        "`--shm-mb {size}` gives the runs a {size} MB `/dev/shm`, as in a Docker container (Linux only)."
    )
    order = 10
    elsewhere = (
        "{title} has no /dev/shm to limit: {size:g} MB is a Linux container's /dev/shm (the linux profiles)"
    )
    cannot_here = staticmethod(_cannot_mount)
    make = _Mounted


CONFINEMENTS = (PrivateShm(),)
