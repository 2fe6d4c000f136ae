"""The chroot launcher: another Linux interpreter runs the script, the one of a Debian root that
`observe-chroot` made (Debian's own Python 3.14 or 3.13, with torch in a virtual environment).

Each run enters the root in a mount namespace of its own (`unshare --mount`, as root): /proc, /sys
and /dev mounted there, and the run's folder, the boot modules and the script's folder bound at the
same paths as outside, so that nothing the runner reads or writes needs a second name. A shell
mounts them and execs `chroot`, which execs the interpreter: the run keeps the pid, session and
process tree that the runner watches from outside (one pid namespace), and the mounts go with its
last process.
"""

from __future__ import annotations

import functools
import json
import os
import shlex
import shutil
import subprocess
from collections.abc import Sequence
from pathlib import Path

from ... import environment
from .. import mount_namespace
from ..observation import Observation
from .base import BOOT_DIR, CHROOT, Fault, Launched, Launcher, module_lacking
from .native import CHECK_CODE, NativeRun

INTERPRETER = "/opt/dlp-venv/bin/python"  # observe-chroot's virtual environment, in the root
PROBE_TIMEOUT_S = 180


class ChrootLauncher(Launcher):
    name = CHROOT
    stack_trigger = "signal"  # one kernel: the runner signals the chrooted processes as any other

    def __init__(self, root: Path, suite: str = "", interpreter: str = INTERPRETER) -> None:
        self.root = Path(root).resolve()
        self.suite = suite or self.root.name.removeprefix("chroot-")
        self.python = interpreter

    def unavailable(self) -> str:
        if not hasattr(os, "geteuid") or os.geteuid() != 0:
            return "a run in a chroot needs root (unshare --mount, chroot)"
        for tool in ("unshare", "chroot", "mount"):
            if shutil.which(tool) is None:
                return f"a run in a chroot needs {tool} (util-linux, coreutils)"
        if not os.path.lexists(self.root / self.python.lstrip("/")):  # a link into the root
            return f"no interpreter {self.python} in {self.root}: make it with `nox -s observe-chroot`"
        return ""

    def missing(self, needs: tuple[str, ...]) -> str:
        found = self._described().get("needs", {})
        unknown = f"could not ask {self.python} in {self.root} whether it has {{}}"
        return "; ".join(found.get(need, unknown.format(need)) for need in needs if found.get(need) != "")

    def interpreter(self) -> tuple[str, str]:
        python = self._described().get("environment", {}).get("python", "?")
        return f"CPython {python} of Debian {self.suite}, in a chroot", python

    def environment(self) -> dict:
        return dict(self._described().get("environment", {}))

    def new_run(self, workdir: Path) -> Launched:
        return ChrootRun(self, workdir)

    def fault(self, observed: Observation, raised: Sequence[str]) -> Fault | None:
        """observe-chroot's virtual environment has torch and the cases' packages, not the user's."""
        return module_lacking(raised, self.interpreter()[0])

    def path_aliases(self, project: Path) -> dict[str, str]:
        found = self._described().get("paths", {})
        named = {"purelib": "<site-packages>", "stdlib": "<stdlib>"}
        return {found[key]: alias for key, alias in named.items() if found.get(key)}

    def library_paths(self) -> set[str]:
        return {path for path in self._described().get("paths", {}).values() if path}

    def entered(self, command: list[str], bound: list[Path], cwd: Path | None = None) -> list[str]:
        """`command` (its first word a path in the root) run in the root, in `cwd` (chroot itself
        goes to /), with `bound` folders seen there at their own paths."""
        mounts = mount_namespace.root_mounts(self.root)
        for folder in dict.fromkeys(str(Path(b).resolve()) for b in bound):
            inside = shlex.quote(f"{self.root}{folder}")
            mounts.append(f"mkdir -p {inside} && mount --bind {shlex.quote(folder)} {inside}")
        in_folder = ["/usr/bin/env", f"--chdir={cwd}"] if cwd is not None else []
        then = f"exec chroot {shlex.quote(str(self.root))} {mount_namespace.ARGUMENTS}"
        return mount_namespace.entered(mounts, then, [*in_folder, *command])

    @functools.cache  # noqa: B019  (one root per launcher; asked for every run)
    def _described(self) -> dict:
        """The interpreter's environment and which needs it meets, asked inside the root once."""
        source = Path(environment.__file__).read_text(encoding="utf-8")
        code = f"{source}\n{CHECK_CODE}"
        try:
            done = subprocess.run(
                self.entered([self.python, "-c", code], []), capture_output=True, text=True,
                timeout=PROBE_TIMEOUT_S, check=False,
            )  # fmt: skip
            return json.loads(done.stdout.strip().splitlines()[-1])
        except (OSError, subprocess.TimeoutExpired, ValueError, IndexError):
            return {}


class ChrootRun(NativeRun):
    """A native run (same kernel, same processes, same stacks) whose command enters the root."""

    def __init__(self, launcher: ChrootLauncher, workdir: Path) -> None:
        self.launcher = launcher
        self.workdir = workdir

    def start(self, command, env, *, script, output, stdin, cwd, wrap) -> subprocess.Popen:
        bound = [self.workdir, BOOT_DIR, script.parent, Path(cwd)]
        entered = self.launcher.entered([self.launcher.python, *command[1:]], bound, Path(cwd))
        return super().start(entered, env, script=script, output=output, stdin=stdin, cwd=cwd, wrap=wrap)
