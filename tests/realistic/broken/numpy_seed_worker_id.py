"""worker_init_fn reseeds numpy with the worker's id, "so that the workers differ". They do, but
every epoch starts each worker from the same seed again: worker 0 draws the same augmentations in
epoch 1, 2 and 3 (and in every run). Comparing workers with each other shows nothing wrong;
comparing epochs does.

The shape of the workaround posted under pytorch/pytorch#5059 ("numpy random seed is duplicated
across DataLoader workers"; `np.random.seed(worker_id)` in a `worker_init_fn`), written from memory
of the thread: not re-read here (no internet on this machine).

pitfalls: 09
risks:
"""

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


def seed_worker(worker_id):
    np.random.seed(worker_id)


class Noisy(Dataset):
    def __len__(self):
        return 64

    def __getitem__(self, index):
        return torch.tensor(index + np.random.normal(scale=0.1), dtype=torch.float32)


def main():
    loader = DataLoader(Noisy(), batch_size=8, num_workers=2, worker_init_fn=seed_worker)
    for epoch in range(3):
        noise = torch.cat(list(loader)) - torch.arange(64)
        print(f"epoch {epoch}: first noise {noise[:3].tolist()}")


if __name__ == "__main__":
    main()
