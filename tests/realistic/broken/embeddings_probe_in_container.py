"""A linear probe trained on embeddings that an extraction pass saved with `np.save`: the Dataset
loads the whole array (600 MB) into memory, four workers, in a container limited to 2 GB. Under
fork the workers share the array; under forkserver (Python 3.14's default on Linux) and spawn each
gets its own pickled copy, and the kernel's OOM killer ends a process: `Killed`, or `DataLoader
worker (pid N) is killed by signal: Killed.`

Source: written for this set after pytorch/pytorch issue 8976 and mittagessen/kraken issue 266 (a
dataset held in memory, several workers, a memory limit on the cluster); not copied from a project.

check-options: --memory-mb 2048 --profile linux,linux-3.14
pitfalls: 21
risks:
"""

import os
import tempfile

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset


class Embeddings(Dataset):
    def __init__(self, features_path, labels_path):
        self.features = np.load(features_path)
        self.labels = np.load(labels_path)

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, index):
        return torch.from_numpy(self.features[index]), int(self.labels[index])


def extract(folder, count=400_000, width=384):
    """Stands for the extraction pass: embeddings and labels saved side by side."""
    features, labels = os.path.join(folder, "features.npy"), os.path.join(folder, "labels.npy")
    np.save(features, np.full((count, width), 0.5, dtype=np.float32))
    np.save(labels, np.arange(count, dtype=np.int64) % 10)
    return features, labels


def main():
    with tempfile.TemporaryDirectory() as folder:
        dataset = Embeddings(*extract(folder))
        loader = DataLoader(dataset, batch_size=1024, shuffle=True, num_workers=4)
        probe = nn.Linear(384, 10)
        optimizer = torch.optim.SGD(probe.parameters(), lr=0.1)
        for step, (features, labels) in enumerate(loader):
            loss = nn.functional.cross_entropy(probe(features), labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            if step % 100 == 0:
                print(f"step {step}: loss {loss.item():.3f}")


if __name__ == "__main__":
    main()
