"""Random crops for 64 samples, drawn from a numpy Generator that the Dataset keeps, two workers."""

import numpy as np
from torch.utils.data import DataLoader, Dataset


class RandomCrops(Dataset):
    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)

    def __len__(self):
        return 64

    def __getitem__(self, index):
        return int(self.rng.integers(0, 1_000_000))  # stands for a random crop offset


def main():
    loader = DataLoader(RandomCrops(seed=0), batch_size=8, num_workers=2)
    offsets = [offset for batch in loader for offset in batch.tolist()]
    repeated = len(offsets) - len(set(offsets))
    print(f"{len(offsets)} crop offsets, {repeated} of them repeats")
    assert repeated == 0, (
        f"{repeated} of {len(offsets)} random crop offsets repeat: the workers drew the same numbers"
    )


if __name__ == "__main__":
    main()
