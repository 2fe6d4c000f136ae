"""A custom Sampler that keeps its own torch.Generator, seeded once, for a reproducible order;
the Sampler stays in the main process, only indices go to the workers.

pitfalls:
risks:
"""

import torch
from torch.utils.data import DataLoader, Sampler, TensorDataset


class SeededShuffle(Sampler):
    def __init__(self, length, seed=0):
        self.length = length
        self.generator = torch.Generator().manual_seed(seed)

    def __len__(self):
        return self.length

    def __iter__(self):
        return iter(torch.randperm(self.length, generator=self.generator).tolist())


def main():
    dataset = TensorDataset(torch.arange(256, dtype=torch.float32).unsqueeze(1))
    sampler = SeededShuffle(len(dataset))
    loader = DataLoader(dataset, batch_size=16, sampler=sampler, num_workers=2, persistent_workers=True)
    for epoch in range(2):
        seen = sorted(int(x) for (batch,) in loader for x in batch.flatten())
        assert seen == list(range(256))


if __name__ == "__main__":
    main()
