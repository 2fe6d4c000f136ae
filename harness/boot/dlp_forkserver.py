"""The forkserver as CPython 3.14.1+ runs it, on an interpreter that predates the fix.

Since 2013 the forkserver was meant to import the main script once, in the server, so that each
worker (a fork of the server) finds it imported; a renamed key (`main_path` became
`init_main_from_path`) left that dead until CPython PR 135295 (issues 126631, 137996; in 3.14.1
and 3.13.8), and PR 143717 gave that import the script's `sys.argv`. Here the parent hands the
server the main script's path under the key the server reads, and the server sets `sys.argv` and
`sys.path` before importing it, as the fixed `forkserver.main` does. On a fixed interpreter this
does nothing.
"""

import json
import os
import sys

import dlp_contract as contract

ARGV_VARIABLE = contract.FORKSERVER_ARGV


def has_upstream_fix(version=None) -> bool:
    """Whether this CPython's forkserver imports `__main__` once, in the server (3.13.8+, 3.14.1+)."""
    version = version or sys.version_info[:3]
    return version >= (3, 14, 1) or (3, 13, 8) <= version < (3, 14)


def preload_main() -> None:
    if has_upstream_fix():
        return
    from multiprocessing import forkserver, spawn

    original_data = spawn.get_preparation_data
    original_main = forkserver.main

    def get_preparation_data(name):
        data = original_data(name)
        called_by_forkserver = sys._getframe(1).f_globals.get("__name__") == "multiprocessing.forkserver"
        if called_by_forkserver and "init_main_from_path" in data:
            data["main_path"] = data["init_main_from_path"]
            os.environ[ARGV_VARIABLE] = json.dumps(sys.argv)  # read by the server, which it inherits
        return data

    def main(listener_fd, alive_r, preload, main_path=None, sys_path=None, **kwargs):
        argv = os.environ.pop(ARGV_VARIABLE, None)
        if preload and argv is not None:
            sys.argv[:] = json.loads(argv)
        if preload and sys_path is not None:
            sys.path[:] = sys_path
        return original_main(listener_fd, alive_r, preload, main_path, sys_path, **kwargs)

    spawn.get_preparation_data = get_preparation_data
    forkserver.main = main
