"""A command run in a mount namespace of its own: the one way the harness changes what a run sees
mounted (a private /dev/shm, a chroot's /proc, /sys and /dev).

`unshare --mount --propagation private` gives the command its own mount table; a shell makes the
mounts there and then runs what follows in the same process (`exec`), so the run keeps its pid,
session and process tree, and the mounts go with the namespace when its last process ends.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path

# The command given after `sh -c SCRIPT`, as the shell sees it; EXEC_ARGUMENTS runs it in its place.
ARGUMENTS = '"$0" "$@"'
EXEC_ARGUMENTS = f"exec {ARGUMENTS}"


def unshare(own_user: bool = False) -> list[str]:
    """`unshare` into a private mount namespace; with `own_user`, as a user who is not root, in a
    user namespace of its own (where the system enables them)."""
    as_user = ["--user", "--map-root-user"] if own_user and os.geteuid() != 0 else []
    return ["unshare", *as_user, "--mount", "--propagation", "private"]


def entered(mounts: list[str], then: str, arguments=(), *, own_user: bool = False) -> list[str]:
    """The command that makes `mounts` (shell commands) in a mount namespace of its own and then
    runs `then` (a shell command; EXEC_ARGUMENTS runs `arguments`), each only if the ones before
    it succeeded."""
    return [*unshare(own_user), "sh", "-c", " && ".join([*mounts, then]), *arguments]


def root_mounts(root: Path) -> list[str]:
    """What a chroot at `root` needs mounted to run an interpreter with multiprocessing: the root
    a mount point of its own (a script's own `unshare` inside needs one), /proc, /sys and /dev
    (with /dev/shm)."""
    quoted = shlex.quote(str(root))
    return [
        f"mount --bind {quoted} {quoted}",
        f"mount -t proc proc {quoted}/proc",
        f"mount --rbind /sys {quoted}/sys",
        f"mount --rbind /dev {quoted}/dev",
    ]
