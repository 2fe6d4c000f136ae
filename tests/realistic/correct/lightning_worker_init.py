"""The `worker_init_fn` that Lightning adds with `seed_everything(seed, workers=True)`: it backs the
loader's base seed out of `torch.initial_seed()` and derives torch's, `random`'s and numpy's seeds
from it, the worker id and the rank. Every worker and every epoch differ.

From lightning_fabric 2.6.6, lightning_fabric/utilities/seed.py, `pl_worker_init_function` (read
here from the wheel): `process_seed = torch.initial_seed()`, `base_seed = process_seed - worker_id`,
`np.random.SeedSequence([base_seed, worker_id, global_rank]).generate_state(4)` for numpy. Written
out without Lightning (its `_generate_seed_sequence` replaced by numpy's SeedSequence for torch
and `random` too), rank 0.

pitfalls:
risks:
"""

import random

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


def pl_worker_init_function(worker_id, rank=0):
    process_seed = torch.initial_seed()
    base_seed = process_seed - worker_id
    seeds = np.random.SeedSequence([base_seed, worker_id, rank]).generate_state(4, dtype=np.uint64)
    torch.manual_seed(int(seeds[0]))
    random.seed(int(seeds[1]))
    np.random.seed(np.random.SeedSequence([base_seed, worker_id, rank]).generate_state(4))


class Augmented(Dataset):
    def __len__(self):
        return 48

    def __getitem__(self, index):
        scale = np.random.uniform(0.9, 1.1) * random.uniform(0.9, 1.1)
        return torch.randn(3) * scale + index


if __name__ == "__main__":
    loader = DataLoader(Augmented(), batch_size=8, num_workers=2, worker_init_fn=pl_worker_init_function)
    for epoch in range(2):
        print(f"epoch {epoch}: {next(iter(loader))[0].tolist()}")
