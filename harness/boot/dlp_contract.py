"""The contract between the harness and its boot modules: every name both sides use, in one place.

The boot modules run inside the script's processes, with this folder on PYTHONPATH, and import
it as `dlp_contract`; the harness imports it as `harness.boot.dlp_contract`. It imports nothing,
so that both sides can: a name changed here changes for both.
"""

# Environment variables that the harness sets for a run (the profile to impose, where to report).
START_METHOD = "DLP_START_METHOD"  # fork, forkserver or spawn: multiprocessing's default
PRELOAD_MAIN = "DLP_PRELOAD_MAIN"  # "1": the forkserver imports __main__ once (CPython 3.14.1+)
SHARING_STRATEGY = "DLP_SHARING_STRATEGY"  # torch.multiprocessing's only sharing strategy
WINDOWS_APIS = "DLP_WINDOWS_APIS"  # "1": what Windows lacks is hidden (dlp_windows)
PROBE_DIR = "DLP_PROBE_DIR"  # the folder of the files below
STACK_TRIGGER = "DLP_STACK_TRIGGER"  # "signal" (SIGUSR1) or "file" (DUMP_STACKS_FILE appears)
RUN_ID = "DLP_RUN_ID"  # marks every process of the run, so that none escapes its end
PID_MARKER = "DLP_PID_MARKER"  # "1" (under Wine): each process holds <pid>.pid open, see PID_SUFFIX
# Set by the boot modules for the processes the script starts.
MAIN_PID = "DLP_MAIN_PID"  # the script's interpreter: the first process of the run that booted
FORKSERVER_ARGV = "DLP_FORKSERVER_ARGV"  # the script's sys.argv, for the forkserver's preload

# Set for one run only: never taken from the environment of whoever started the harness.
RUN_VARIABLES = (
    START_METHOD,
    PRELOAD_MAIN,
    SHARING_STRATEGY,
    WINDOWS_APIS,
    MAIN_PID,
    FORKSERVER_ARGV,
    STACK_TRIGGER,
    PID_MARKER,
)

# A profile that cannot be imposed ends the process with this status, the reason in BOOT_FAILED_FILE.
BOOT_EXIT_CODE = 86

# Files in the probe folder.
MAIN_PID_FILE = "main.pid"  # the pid of MAIN_PID's process
BOOT_FAILED_FILE = "boot-failed"  # why the profile could not be imposed
DUMP_STACKS_FILE = "dump-stacks"  # appears when the harness wants stacks and has no SIGUSR1
STACKS_SUFFIX = ".stacks"  # <pid>.stacks: that process's Python stacks, once asked
EVENTS_SUFFIX = ".events"  # <pid>.events: a line per event below, fields separated by spaces
# <pid>.pid: held open by that process while it lives (PID_MARKER), so that the harness can find
# which Linux process has which Windows pid under Wine (the file is among its open descriptors).
PID_SUFFIX = ".pid"

# The events of <pid>.events: the kind, these fields, then the time (time.time()). See dlp_probes.
EVENT_FIELDS = {
    "worker_ready": (),
    "worker_served": (),  # it collated its first batch (dlp_worker)
    "worker_warm": (),  # it collated its WARM_BATCHES-th batch (dlp_worker): its warm-up is over
    "rng": ("seed", "worker", "path", "hash"),
    "size": ("path", "length", "bytes"),  # bytes: about what its Python objects take (dlp_rng.held_bytes)
    "first_batch": ("seed", "worker", "hash"),
    "rng_used": ("seed", "worker", "path", "hash"),  # hash: its state after the first batch
    "items": ("seed", "worker", "hashes"),  # hashes: comma-separated, "+" once some were left out
    "items_end": ("seed", "worker", "dropped", "batch_size"),
    "iter": ("epoch", "length", "fd_limit", "loader"),  # loader: which DataLoader, 1, 2, … per process
    "want": ("epoch",),
    "batch": ("epoch", "n", "fds"),
    "end": ("epoch", "n"),
    "shutdown": ("epoch",),  # the epoch's iterator shuts its workers down (exhausted, abandoned, deleted)
    "import_main": (),  # this process imports the main script again (spawn, forkserver)
    "import_effect": ("what", "target"),  # what the script's top level did then (dlp_imports)
    "logging_setup": ("logger", "level", "handler_level", "propagate", "disabled"),
    "log": ("worker", "logger", "level", "delivered"),
    # a map-style Dataset's batch in a worker: each sample's digest by index, the batch's, and
    # whether a random generator's state changed meanwhile (dlp_samples)
    "samples": ("dataset", "worker", "indices", "digests", "batch", "drew"),
}


def event_width(kind):
    """How many fields an event line of `kind` has: the kind, its fields and the time."""
    return len(EVENT_FIELDS[kind]) + 2
