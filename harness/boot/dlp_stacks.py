"""Each process of a run dumps the Python stacks of all its threads into <probe dir>/<pid>.stacks
when the harness asks: on SIGUSR1 (POSIX; faulthandler answers even while the process holds the
GIL), or, where there is no SIGUSR1 (Windows), once <probe dir>/dump-stacks appears."""

import os

import dlp_contract as contract


def arm(probe_dir: str, trigger: str) -> None:
    def arm_here() -> None:
        path = os.path.join(probe_dir, f"{os.getpid()}{contract.STACKS_SUFFIX}")
        # Kept open for the life of the process: faulthandler writes to its descriptor.
        stacks = open(path, "w")  # noqa: SIM115
        if trigger == "signal":
            import faulthandler
            import signal

            faulthandler.register(signal.SIGUSR1, file=stacks, all_threads=True)
        else:
            _watch_trigger_file(os.path.join(probe_dir, contract.DUMP_STACKS_FILE), stacks)

    arm_here()
    if hasattr(os, "register_at_fork"):  # a forked child would otherwise write into its parent's file
        os.register_at_fork(after_in_child=arm_here)


def _watch_trigger_file(trigger_path: str, stacks) -> None:
    """A thread that dumps every other thread's stack once the trigger file exists. It needs the
    GIL, so a process stuck while holding it stays silent."""
    import threading
    import time

    def watch() -> None:
        while not os.path.exists(trigger_path):
            time.sleep(0.1)
        stacks.write(_dump_as_from_main_thread())
        stacks.flush()

    threading.Thread(target=watch, name="dlp-stack-dump", daemon=True).start()


def _dump_as_from_main_thread() -> str:
    """faulthandler's dump of all threads, as SIGUSR1 would have it: the main thread is the
    "Current thread", and this watching thread is left out."""
    import faulthandler
    import tempfile
    import threading

    with tempfile.TemporaryFile("w+") as raw:
        faulthandler.dump_traceback(file=raw, all_threads=True)
        raw.seek(0)
        blocks = raw.read().strip().split("\n\n")
    main = f"Thread 0x{threading.main_thread().ident:016x}"
    kept = [b for b in blocks if not b.startswith("Current thread")]
    return (
        "\n\n".join("Current thread" + b[len("Thread") :] if b.startswith(main) else b for b in kept) + "\n"
    )
