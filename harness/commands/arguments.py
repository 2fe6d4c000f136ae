"""Command-line argument types shared by every command: bad input is one line naming it, exit 2.

Each type is an argparse `type=` callable; argparse reports its ArgumentTypeError, and
`Parser.error` turns that into a UsageError: `--timeout must be positive, not 0`.
"""

from __future__ import annotations

import argparse
import os
import re
from pathlib import Path

from ..profiles import BY_START_METHOD, PROFILE_NAMES, PROFILES, START_METHODS, Profile
from ..run.settings import IDLE_S

EXIT_USAGE = 2


class UsageError(Exception):
    """Bad input from the command line; the message names it."""


class Parser(argparse.ArgumentParser):
    """Reports bad arguments as a UsageError (one line, exit 2); subcommand parsers share the class."""

    def error(self, message: str):
        # "argument --timeout: must be positive, not 0" reads as "--timeout must be positive, not 0"
        raise UsageError(re.sub(r"^argument (\S+): (must )", r"\1 \2", message))


def choices_list(allowed: tuple[str, ...], what: str):
    """A type for a comma-separated list of `allowed` names, at least one: ("fork", "spawn")."""

    def parse(text: str) -> tuple[str, ...]:
        names = tuple(name.strip() for name in text.split(",") if name.strip())
        for name in names:
            if name not in allowed:
                raise argparse.ArgumentTypeError(f"unknown {what} '{name}'; choose from {', '.join(allowed)}")
        if not names:
            raise argparse.ArgumentTypeError(f"needs at least one of {', '.join(allowed)}")
        return names

    return parse


start_methods = choices_list(START_METHODS, "start method")
_profile_names = choices_list(PROFILE_NAMES, "profile")


def profiles(text: str) -> tuple[Profile, ...]:
    """A comma-separated list of profiles: ("linux", "windows")."""
    return tuple(PROFILES[name] for name in _profile_names(text))


def start_method_profiles(text: str) -> tuple[Profile, ...]:
    """The profiles of a comma-separated list of start methods (spawn: windows and macos)."""
    return tuple(PROFILES[name] for method in start_methods(text) for name in BY_START_METHOD[method])


def positive_number(text: str) -> float:
    """Seconds and the like: a number above 0."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number, not '{text}'") from None
    if not value > 0:
        raise argparse.ArgumentTypeError(f"must be positive, not {text}")
    return value


def whole_number(text: str) -> int:
    """A count that may be 0."""
    if not text.strip().isdigit():
        raise argparse.ArgumentTypeError(f"must be a whole number, not '{text}'")
    return int(text)


def count(text: str) -> int:
    """A count of at least 1 (runs, jobs, batches)."""
    value = whole_number(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a whole number of at least 1, not '{text}'")
    return value


def add_start_methods(parser: argparse.ArgumentParser) -> None:
    """--start-method for the bench: a comma-separated list, all three by default."""
    parser.add_argument(
        "--start-method",
        dest="start_methods",
        metavar="METHODS",
        type=start_methods,
        default=START_METHODS,
        help=f"comma-separated list (default: {','.join(START_METHODS)})",
    )


def add_profiles(parser: argparse.ArgumentParser) -> None:
    """The one declaration of --profile (all four by default), and --start-method as a shorthand."""
    group = parser.add_mutually_exclusive_group()
    group.add_argument(
        "--profile",
        dest="profiles",
        metavar="PROFILES",
        type=profiles,
        default=tuple(PROFILES.values()),
        help=f"comma-separated list (default: {','.join(PROFILE_NAMES)})",
    )
    shorthand = ", ".join(f"{m}: {' and '.join(BY_START_METHOD[m])}" for m in START_METHODS)
    group.add_argument(
        "--start-method",
        dest="profiles",
        metavar="METHODS",
        type=start_method_profiles,
        default=argparse.SUPPRESS,
        help=f"the profiles of these start methods ({shorthand})",
    )


def add_jobs(parser: argparse.ArgumentParser, default: int | None = None, per_profile: bool = False) -> None:
    """--jobs, by default `default` (the CPUs); `per_profile`: by default one per chosen profile
    (None here: `jobs(args)` reads it)."""
    if per_profile:
        parser.add_argument("--jobs", type=count, help="runs in parallel (default: one per profile)")
        return
    default = default or os.cpu_count() or 1
    parser.add_argument("--jobs", type=count, default=default, help=f"runs in parallel (default: {default})")


def jobs(args: argparse.Namespace) -> int:
    """The runs in parallel asked for, or one per chosen profile."""
    return args.jobs or len(args.profiles)


def add_timeout(parser: argparse.ArgumentParser, default: float | None, what: str) -> None:
    """--timeout in seconds; `what` says what it bounds, and the default is named in the help."""
    shown = "each case's own" if default is None else f"{default:g}"
    parser.add_argument(
        "--timeout", type=positive_number, default=default, help=f"seconds {what} (default: {shown})"
    )


def idle_seconds(text: str) -> float | None:
    """--idle: seconds above 0, or 0 for never."""
    if text.strip() in ("0", "0.0"):
        return None
    return positive_number(text)


def add_idle(parser: argparse.ArgumentParser) -> None:
    """--idle: how long a run waiting for a batch, idle, with a worker blocked for good, takes to
    be called hung (harness/run/idleness.py)."""
    parser.add_argument(
        "--idle",
        type=idle_seconds,
        default=argparse.SUPPRESS,  # not given: the run settings' own default
        help=f"seconds a run may wait for a batch with no CPU used and a worker blocked for good before "
        f"it is a hang (Linux; default {IDLE_S:g}; 0: never)",
    )


def overrides(args: argparse.Namespace) -> dict:
    """The run settings the command line gave (--timeout, --idle), as RunSettings fields; a setting
    not given keeps the default of the case or of RunSettings, stated once there."""
    given = {} if getattr(args, "timeout", None) is None else {"timeout_s": args.timeout}
    if hasattr(args, "idle"):  # given on the command line (argparse keeps no default for it)
        given["idle_s"] = args.idle  # None: never
    return given


def add_script(parser: argparse.ArgumentParser, stdin_help: str) -> None:
    """A user's script, its arguments after --, and --stdin: as `script` and `check` take them."""
    parser.add_argument("path", type=existing_script, help="your script, run unmodified as __main__")
    parser.add_argument("script_args", nargs="*", metavar="ARG", help="its arguments (after --)")
    parser.add_argument("--stdin", action="store_true", help=stdin_help)


def existing_script(text: str) -> Path:
    path = Path(text)
    if not path.is_file():
        raise argparse.ArgumentTypeError(f"no such script: {text}")
    return path


def add_chroot(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--chroot",
        type=Path,
        metavar="ROOT",
        help="run the scripts with the interpreter of a Debian root that observe-chroot made "
        "(e.g. .nox/chroot-sid: its Python 3.14), as root; results go to that interpreter's file",
    )


def another_interpreter(args: argparse.Namespace) -> bool:
    """Whether the command line asks for runs by another interpreter than this one (--chroot)."""
    return getattr(args, "chroot", None) is not None


def launched(args: argparse.Namespace) -> tuple[list[Profile], dict]:
    """The chosen profiles, each launched as the command line asks (`--chroot`: by that root's
    interpreter), and the environment their runs see (its OS, Python, torch)."""
    from .. import environment
    from ..run import launch

    if not another_interpreter(args):
        return list(args.profiles), environment.describe()
    launcher = launch.in_chroot(args.chroot)
    refused = launcher.unavailable()
    if refused:
        raise UsageError(f"--chroot {args.chroot}: {refused}")
    return [profile.launched_by(launcher) for profile in args.profiles], launcher.environment()
