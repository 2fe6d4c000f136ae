"""Random crops for 64 samples, drawn from a numpy Generator made in each worker, two workers."""

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset, get_worker_info


class RandomCrops(Dataset):
    def __init__(self):
        self.rng = None  # made in the worker, from the worker's seed

    def __len__(self):
        return 64

    def __getitem__(self, index):
        if self.rng is None:
            info = get_worker_info()  # None in the main process (num_workers=0)
            self.rng = np.random.default_rng(info.seed if info is not None else torch.initial_seed())
        return int(self.rng.integers(0, 1_000_000))  # stands for a random crop offset


def main():
    loader = DataLoader(
        RandomCrops(), batch_size=8, num_workers=2, generator=torch.Generator().manual_seed(0)
    )
    offsets = [offset for batch in loader for offset in batch.tolist()]
    repeated = len(offsets) - len(set(offsets))
    print(f"{len(offsets)} crop offsets, {repeated} of them repeats")
    assert repeated == 0, (
        f"{repeated} of {len(offsets)} random crop offsets repeat: the workers drew the same numbers"
    )


if __name__ == "__main__":
    main()
