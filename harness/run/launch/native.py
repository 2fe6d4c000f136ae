"""The native launcher: the script runs on this machine's own interpreter, the harness's."""

from __future__ import annotations

import functools
import os
import subprocess
import sys
from pathlib import Path

from .. import needs, processes
from .base import NATIVE, Launched, Launcher, this_interpreter

# torch_shm_manager (the file_system sharing strategy's) polls for its clients: it goes about 2.1 s
# after the last one. Helpers that end by themselves (and the forkserver: 2 s let case 06's, which
# preloads torch, outlive its script under a loaded test matrix) alone are given this long.
CLEANUP_GRACE_S = 5.0
LEFTOVER_GRACE_S = 2.0  # how long other processes (resource tracker, forkserver) may take to go

# What each need of a case asks of an interpreter (code that sets `ok`), and why its runs are
# skipped without it.
NEEDS = {
    needs.CUDA: (
        "import torch; ok = torch.cuda.is_available()",
        "no usable CUDA GPU (torch.cuda.is_available() is False)",
    ),
    needs.OPENCV: (
        "import importlib.util; ok = importlib.util.find_spec('cv2') is not None",
        "OpenCV is not installed (no module cv2)",
    ),
    needs.DISTRIBUTED: (
        "import torch.distributed as d; ok = d.is_available()",
        "torch.distributed is not available in this torch build",
    ),
}
# Run by an interpreter after environment.py's source: its environment, the needs it meets and where
# its libraries live, as JSON.
CHECK_CODE = f"""
import json
NEEDS = {NEEDS!r}
def _met(code):
    scope = {{}}
    try:
        exec(code, scope)
    except Exception:
        return False
    return bool(scope.get("ok"))
met = {{n: "" if _met(c) else why for n, (c, why) in NEEDS.items()}}
import sys, sysconfig
paths = {{n: sysconfig.get_path(n) for n in ("stdlib", "platstdlib", "purelib", "platlib")}}
paths["prefix"] = sys.prefix
print(json.dumps({{"environment": describe(), "needs": met, "paths": paths}}))
"""


@functools.cache
def _met(need: str) -> bool:
    # In a child process: importing torch here would cost seconds and CUDA state in the harness.
    code = f"import sys\n{NEEDS[need][0]}\nsys.exit(0 if ok else 1)"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, timeout=120).returncode == 0


class NativeLauncher(Launcher):
    name = NATIVE
    stack_trigger = processes.STACK_TRIGGER

    def unavailable(self) -> str:
        return ""

    def missing(self, needs: tuple[str, ...]) -> str:
        return "; ".join(NEEDS[need][1] for need in needs if not _met(need))

    def interpreter(self) -> tuple[str, str]:
        return this_interpreter()

    def new_run(self, workdir: Path) -> Launched:
        return NativeRun()


class NativeRun(Launched):
    def start(self, command, env, *, script, output, stdin, cwd, wrap) -> subprocess.Popen:
        command, env = wrap(command, env)
        with open(output, "wb") as out, open(stdin or os.devnull, "rb") as given:
            self.proc = subprocess.Popen(
                command, stdin=given, stdout=out, stderr=subprocess.STDOUT, cwd=cwd, env=env,
                **processes.NEW_GROUP,
            )  # fmt: skip
        return self.proc

    def snapshot(self) -> list:
        return processes.snapshot(self.proc.pid)

    def main_pids(self, script_pid: int) -> tuple[int, int]:
        return (self.proc.pid, script_pid)

    def dump_stacks(self, tree: list, probe_dir: Path, workers: int) -> tuple[dict, dict, str]:
        stacks = processes.dump_stacks(tree, probe_dir)
        return (stacks, *processes.dump_native_stacks(tree))

    def by_machine_pid(self, by_script_pid: dict) -> dict:
        return by_script_pid

    def may_still_end(self, left: list, waited_s: float, idle_s: float) -> bool:
        finishing = all(processes.ends_by_itself(p) or processes.is_exiting(p) for p in left)
        return waited_s < (CLEANUP_GRACE_S if finishing else LEFTOVER_GRACE_S)

    def is_own_helper(self, process) -> bool:
        return False

    def finish(self, kill_all) -> None:
        pass
