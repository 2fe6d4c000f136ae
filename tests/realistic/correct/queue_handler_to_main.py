"""The logging cookbook's way: workers send their records through a multiprocessing queue to a
QueueListener in the main process, set up in worker_init_fn.

pitfalls:
risks:
"""

import functools
import logging
import logging.handlers
import sys

import torch
import torch.multiprocessing as mp
from torch.utils.data import DataLoader, Dataset

logger = logging.getLogger("data")


def log_to_queue(records, worker_id):
    root = logging.getLogger()
    root.handlers[:] = [logging.handlers.QueueHandler(records)]
    root.setLevel(logging.INFO)


class Items(Dataset):
    def __len__(self):
        return 32

    def __getitem__(self, index):
        logger.info("item %d", index)
        return torch.tensor([index])


def main():
    logging.basicConfig(level=logging.INFO, stream=sys.stdout, format="%(processName)s %(message)s")
    records = mp.get_context().Queue()
    listener = logging.handlers.QueueListener(records, *logging.getLogger().handlers)
    listener.start()
    try:
        init = functools.partial(log_to_queue, records)
        for batch in DataLoader(Items(), batch_size=4, num_workers=2, worker_init_fn=init):
            batch.sum()
    finally:
        listener.stop()


if __name__ == "__main__":
    main()
