"""worker_init_fn seeds numpy "for reproducibility", with the same seed in every worker.

pitfalls: 09
risks:
"""

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

SEED = 1234


def seed_worker(worker_id):
    np.random.seed(SEED)


class Jitter(Dataset):
    def __len__(self):
        return 64

    def __getitem__(self, index):
        return torch.tensor(index + np.random.normal(scale=0.1))


if __name__ == "__main__":
    loader = DataLoader(Jitter(), batch_size=8, num_workers=2, worker_init_fn=seed_worker)
    print(torch.cat(list(b for b in loader)).std())
