"""Inference over a test set that keeps every batch's features (a numpy view) for a report at the
end; the model takes a few milliseconds a batch, so the failure comes after a thousand batches.

pitfalls: 12
risks:
"""

import time

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


class TestSet(Dataset):
    def __len__(self):
        return 24000

    def __getitem__(self, index):
        return torch.full((16,), float(index % 11))


def infer():
    loader = DataLoader(TestSet(), batch_size=8, num_workers=2)
    features, scores = [], []
    for batch in loader:
        time.sleep(0.01)  # stands for the model's forward pass
        features.append(batch.numpy())
        scores.append(float(batch.mean()))
    print("report over", len(np.concatenate(features)), "samples")


if __name__ == "__main__":
    infer()
