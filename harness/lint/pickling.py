"""Rules about what a spawned worker receives by pickling: the functions handed to a loader, and
what a Dataset holds."""

from __future__ import annotations

import ast

from .facts import Hits, ModuleFacts, called
from .registry import rule

# Not sockets: multiprocessing sends a socket to a spawned process by duplicating it (its reduction
# registers socket.socket, on Windows too), so a socket on a Dataset reaches each worker.
HANDLE_OPENERS = {
    "open": "file",
    "io.open": "file",
    "sqlite3.connect": "database connection",
    "h5py.File": "HDF5 file",
    "lmdb.open": "LMDB environment",
    "zipfile.ZipFile": "zip file",
    "tarfile.open": "tar file",
    "gzip.open": "file",
    "mmap.mmap": "memory map",
    "psycopg2.connect": "database connection",
    "pymysql.connect": "database connection",
    "redis.Redis": "Redis connection",
    "threading.Lock": "lock",
    "threading.RLock": "lock",
    "queue.Queue": "queue (it holds locks)",
    "logging.FileHandler": "log handler (it holds a lock and a file)",
    "logging.StreamHandler": "log handler (it holds a lock)",
}


@rule(
    "DLP002",
    "unpicklable-worker-function",
    "03_lambda_collate",
    "{what} is a lambda or a nested function: spawn cannot pickle it",
)
def dlp002(facts: ModuleFacts) -> Hits:
    """A lambda or nested function passed as collate_fn/worker_init_fn, or kept on a Dataset."""
    for keyword in facts.callable_keywords:
        value = keyword.value
        nested = isinstance(value, ast.Name) and value.id in facts.nested_functions
        if isinstance(value, ast.Lambda) or nested:
            yield value, {"what": f"`{keyword.arg}`"}
    for dataset in facts.datasets:
        for target, value in dataset.self_assignments("__init__"):
            if isinstance(value, ast.Lambda):
                yield value, {"what": f"`self.{target.attr}`"}


@rule(
    "DLP003",
    "open-handle-on-dataset",
    "02_open_file_handle",
    "Dataset keeps an open {what} {where}: spawn cannot pickle it",
)
def dlp003(facts: ModuleFacts) -> Hits:
    """An open file, connection, lock or handle kept on a Dataset from __init__, or handed to its
    constructor."""
    for dataset in facts.datasets:
        for target, value in dataset.self_assignments("__init__"):
            if called(value) in HANDLE_OPENERS:
                yield value, {"what": HANDLE_OPENERS[called(value)], "where": f"in `self.{target.attr}`"}
    # A Dataset made with a handle opened by its caller: MyDataset(open(path, "rb"))
    names = {dataset.node.name for dataset in facts.datasets}
    for call in facts.calls:
        if called(call).split(".")[-1] in names:
            for value in [*call.args, *(k.value for k in call.keywords)]:
                if called(value) in HANDLE_OPENERS:
                    yield (
                        value,
                        {"what": HANDLE_OPENERS[called(value)], "where": f"handed to `{called(call)}(…)`"},
                    )
