"""A lambda, written inside main(), reseeds numpy with the worker's id. Two pitfalls in one line:
under spawn and forkserver the lambda cannot be pickled to the workers (case 03); under fork it
runs, and every epoch repeats the same augmentations (case 09); each epoch starts its workers
again, most of its time in so small a script (case 13, measured under fork).

The one-line `worker_init_fn=lambda worker_id: np.random.seed(worker_id)` of the workarounds
posted under pytorch/pytorch#5059, written from memory: not re-read here (no internet).

pitfalls: 03 09 13
risks:
"""

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


class Flip(Dataset):
    def __len__(self):
        return 32

    def __getitem__(self, index):
        sign = 1.0 if np.random.rand() < 0.5 else -1.0
        return torch.tensor([index * sign])


def main():
    loader = DataLoader(
        Flip(), batch_size=4, num_workers=2, worker_init_fn=lambda worker_id: np.random.seed(worker_id)
    )
    for epoch in range(2):
        flipped = sum(int((batch < 0).sum()) for batch in loader)
        print(f"epoch {epoch}: {flipped} of 32 flipped")


if __name__ == "__main__":
    main()
