"""The documented fix: the Dataset's generator replaced in each worker from get_worker_info().seed.

pitfalls:
risks:
"""

import numpy as np
from torch.utils.data import DataLoader, Dataset, get_worker_info


class RandomCrops(Dataset):
    def __init__(self):
        self.rng = np.random.default_rng(0)

    def __len__(self):
        return 64

    def __getitem__(self, index):
        return int(self.rng.integers(0, 1_000_000))


def seed_worker(worker_id):
    info = get_worker_info()
    info.dataset.rng = np.random.default_rng(info.seed)


if __name__ == "__main__":
    loader = DataLoader(RandomCrops(), batch_size=8, num_workers=2, worker_init_fn=seed_worker)
    offsets = [o for batch in loader for o in batch.tolist()]
    print(len(set(offsets)), "distinct offsets")
