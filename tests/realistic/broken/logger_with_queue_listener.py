"""A Dataset that carries its own logger: a QueueHandler whose QueueListener thread writes the
records (a pattern from the logging cookbook, moved onto the Dataset).

pitfalls: 02
risks:
"""

import logging
import logging.handlers
import queue

import torch
from torch.utils.data import DataLoader, Dataset


class AuditedDataset(Dataset):
    def __init__(self, size):
        self.size = size
        self.records = queue.Queue()
        self.listener = logging.handlers.QueueListener(self.records, logging.StreamHandler())
        self.listener.start()
        self.log = logging.getLogger("audit")
        self.log.addHandler(logging.handlers.QueueHandler(self.records))

    def __len__(self):
        return self.size

    def __getitem__(self, index):
        if index % 10 == 0:
            self.log.warning("served %d", index)
        return torch.tensor([index], dtype=torch.float32)


def main():
    dataset = AuditedDataset(40)
    try:
        for batch in DataLoader(dataset, batch_size=4, num_workers=2):
            batch.sum()
    finally:
        dataset.listener.stop()


if __name__ == "__main__":
    main()
