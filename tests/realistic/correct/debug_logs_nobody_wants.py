"""The Dataset logs at DEBUG; the main process keeps logging's default WARNING level: nothing is
lost, in the main process these records would be dropped too.

pitfalls:
risks:
"""

import logging

import torch
from torch.utils.data import DataLoader, Dataset

log = logging.getLogger(__name__)


class Cached(Dataset):
    def __len__(self):
        return 48

    def __getitem__(self, index):
        log.debug("cache miss for %d", index)
        return torch.tensor([float(index)])


def main():
    logging.basicConfig(format="%(levelname)s %(message)s")
    for batch in DataLoader(Cached(), batch_size=8, num_workers=2):
        batch.sum()


if __name__ == "__main__":
    main()
