"""The commands of `python -m harness`, one module each.

Every module has `add_parser(subparsers)`, which declares the command and sets its handler, and
`handle(args, console) -> int`, the exit status. A module imports at its top only what parsing its
arguments needs; what its work needs (torch, the runner, the bench) is imported when it runs.
"""

EXIT_OK = 0
EXIT_FAILED = 1  # a mismatch, a pitfall found, a run that is not ok
EXIT_NOT_JUDGED = 3  # `check`: no run could be judged (all skipped or failed to run) and nothing found
