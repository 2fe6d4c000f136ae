"""worker_init_fn seeds numpy with `np.random.get_state()[1][0] + worker_id`, a fix passed around
for the duplicated numpy seeds. Since torch seeds numpy in each worker (torch 1.9) with an array of
four words, the first word of the legacy generator's key is always 0x80000000 (observed here, torch
2.13.0, numpy 2.4.6: 2147483648 in each worker of each epoch; numpy seeded with an array, not with
an int): every epoch, and every run, each worker is seeded with the same number and draws the same
augmentations.

The fix as published in Tanel Pärnamaa, "Using PyTorch + NumPy? You're making a mistake" (2021),
written from memory: not re-read here (no internet on this machine).

pitfalls: 09
risks:
"""

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


def worker_init_fn(worker_id):
    np.random.seed(np.random.get_state()[1][0] + worker_id)


class RandomCrops(Dataset):
    def __len__(self):
        return 48

    def __getitem__(self, index):
        offset = np.random.randint(0, 16)
        return torch.arange(offset, offset + 4)


if __name__ == "__main__":
    loader = DataLoader(RandomCrops(), batch_size=6, num_workers=2, worker_init_fn=worker_init_fn)
    for epoch in range(2):
        first = next(iter(loader))
        print(f"epoch {epoch}: first crops start at {first[:, 0].tolist()}")
