"""Progress logged from the Dataset to a stdout StreamHandler set up in main() (a forum report:
"my DataLoader workers print nothing on Windows").

pitfalls: 18
risks:
"""

import logging
import sys

import torch
from torch.utils.data import DataLoader, Dataset

logger = logging.getLogger(__name__)


class Shards(Dataset):
    def __len__(self):
        return 48

    def __getitem__(self, index):
        logger.info("decoding shard item %d", index)
        return torch.full((8,), float(index))


def main():
    handler = logging.StreamHandler(sys.stdout)
    handler.setFormatter(logging.Formatter("%(asctime)s %(processName)s %(message)s"))
    logging.getLogger().addHandler(handler)
    logging.getLogger().setLevel(logging.INFO)
    loader = DataLoader(Shards(), batch_size=8, num_workers=2)
    for step, batch in enumerate(loader):
        logger.info("step %d mean %.1f", step, batch.mean().item())


if __name__ == "__main__":
    main()
