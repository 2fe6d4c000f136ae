"""A seed_everything(seed) helper, as training templates have, called again in worker_init_fn
with the run's seed: every worker restarts numpy from the same state.

pitfalls: 09
risks:
"""

import random

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

SEED = 1234


def seed_everything(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def seed_worker(worker_id):
    seed_everything(SEED)


class Jittered(Dataset):
    def __len__(self):
        return 64

    def __getitem__(self, index):
        return torch.tensor([index + np.random.uniform(-0.5, 0.5)])


def main():
    seed_everything(SEED)
    loader = DataLoader(Jittered(), batch_size=8, num_workers=2, worker_init_fn=seed_worker)
    for batch in loader:
        batch.sum()


if __name__ == "__main__":
    main()
