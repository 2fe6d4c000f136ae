"""numpy and `random` reseeded in each worker from `torch.initial_seed()`, as PyTorch's
reproducibility notes teach: the seed differs per worker and per epoch (torch's base seed is drawn
anew for each iteration of the loader), and a `generator` makes the whole run reproducible. Three
epochs of augmentations, none repeated.

From PyTorch's "Reproducibility" notes (docs/source/notes/randomness.md, section "DataLoader":
`def seed_worker(worker_id): worker_seed = torch.initial_seed() % 2**32; numpy.random.seed(
worker_seed); random.seed(worker_seed)` and `g = torch.Generator(); g.manual_seed(0)`), written
from memory: not re-read here (no internet); the page REFERENCES.md lists.

pitfalls:
risks:
"""

import random

import numpy
import torch
from torch.utils.data import DataLoader, Dataset


def seed_worker(worker_id):
    worker_seed = torch.initial_seed() % 2**32
    numpy.random.seed(worker_seed)
    random.seed(worker_seed)


class Jittered(Dataset):
    def __len__(self):
        return 64

    def __getitem__(self, index):
        return torch.tensor(index + numpy.random.normal(scale=0.1) + random.random(), dtype=torch.float32)


def main():
    g = torch.Generator()
    g.manual_seed(0)
    loader = DataLoader(Jittered(), batch_size=8, num_workers=2, worker_init_fn=seed_worker, generator=g)
    for epoch in range(3):
        print(f"epoch {epoch}: {torch.cat(list(loader))[:3].tolist()}")


if __name__ == "__main__":
    main()
