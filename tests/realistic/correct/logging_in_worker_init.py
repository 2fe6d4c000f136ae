"""The Dataset warns about unreadable records; every process sets its logging up, workers too.

pitfalls:
risks:
"""

import logging

import torch
from torch.utils.data import DataLoader, Dataset

log = logging.getLogger("data")


def setup_logging(worker_id=None):
    logging.basicConfig(filename="run.log", level=logging.INFO, format="%(process)d %(message)s")


class Records(Dataset):
    def __len__(self):
        return 64

    def __getitem__(self, index):
        if index % 16 == 0:
            log.warning("record %d unreadable, using zeros", index)
            return torch.zeros(4)
        return torch.full((4,), float(index))


def main():
    setup_logging()
    loader = DataLoader(Records(), batch_size=16, num_workers=2, worker_init_fn=setup_logging)
    total = sum(batch.sum().item() for batch in loader)
    log.info("epoch done, sum %.0f", total)


if __name__ == "__main__":
    main()
