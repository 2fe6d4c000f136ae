"""Evaluation that keeps a numpy view of every batch to compute metrics at the end.

pitfalls: 12
risks:
"""

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


class Scores(Dataset):
    def __len__(self):
        return 24000

    def __getitem__(self, index):
        return torch.full((4,), float(index % 7))


def evaluate():
    loader = DataLoader(Scores(), batch_size=8, num_workers=2)
    outputs = []
    for batch in loader:
        outputs.append(batch.numpy())  # a view: the shared tensor stays alive
    print("mean", np.concatenate(outputs).mean())


if __name__ == "__main__":
    evaluate()
