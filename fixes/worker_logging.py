"""Log records from DataLoader workers, written by the main process alone (cases/18_logging_lost_in_workers).

Spawned and forkserver workers start with no logging handlers. Here every worker sends its records
through a queue, and a listener in the main process hands them to the main process's handlers:

    queue = multiprocessing.get_context().Queue()  # the start method the DataLoader uses
    with records_from_workers(queue):
        loader = DataLoader(dataset, num_workers=4, worker_init_fn=functools.partial(log_to_queue, queue))
        for batch in loader:
            ...
"""

from __future__ import annotations

import contextlib
import logging
import logging.handlers
from collections.abc import Iterator


def log_to_queue(queue, worker_id: int | None = None, level: int = logging.DEBUG) -> None:
    """In a worker (as worker_init_fn): the root logger's only handler puts records on `queue`."""
    root = logging.getLogger()
    for handler in root.handlers[:]:  # under fork: the main process's handlers, copied
        root.removeHandler(handler)
    root.addHandler(logging.handlers.QueueHandler(queue))
    root.setLevel(level)


@contextlib.contextmanager
def records_from_workers(queue) -> Iterator[logging.handlers.QueueListener]:
    """In the main process: hands the records on `queue` to the root logger's handlers meanwhile."""
    listener = logging.handlers.QueueListener(
        queue, *logging.getLogger().handlers, respect_handler_level=True
    )
    listener.start()
    try:
        yield listener
    finally:
        listener.stop()
