"""A multilingual classifier trained on every language at each step: one DataLoader for all the
languages, whose batch sampler takes a shuffled batch of each language for every step, so that one
pool of workers (as many as the machine has CPUs) serves them all. The workers stay alive between
epochs (persistent_workers=True), so each epoch after the first starts at once."""

import os

import torch
from torch import nn
from torch.utils.data import ConcatDataset, DataLoader, Dataset, Sampler

LANGUAGES = ["ar", "bg", "de", "el", "en", "es", "fr", "hi", "ru", "sw", "th", "tr", "ur", "vi", "zh"]
BATCH_SIZE = 32


class Sentences(Dataset):
    """Sentences of one language, as 16 features each, with a label in 3 classes."""

    def __init__(self, seed):
        generator = torch.Generator().manual_seed(seed)
        self.features = torch.randn(256, 16, generator=generator)
        self.labels = torch.randint(0, 3, (256,), generator=generator)

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, index):
        return self.features[index], self.labels[index]


class OneBatchOfEach(Sampler):
    """The indices of one step in a ConcatDataset: a shuffled batch of each of its parts."""

    def __init__(self, concat, batch_size):
        self.starts = [0, *concat.cumulative_sizes[:-1]]
        self.sizes = [len(part) for part in concat.datasets]
        self.batch_size = batch_size

    def __len__(self):
        return min(self.sizes) // self.batch_size

    def __iter__(self):
        parts = zip(self.starts, self.sizes, strict=True)
        orders = [(torch.randperm(size) + start).tolist() for start, size in parts]
        for step in range(len(self)):
            taken = slice(step * self.batch_size, (step + 1) * self.batch_size)
            yield [index for order in orders for index in order[taken]]


def main():
    # Every live worker holds descriptors in this process (pipes to it and from it), and macOS allows
    # a process 256 open files: one loader, one pool of workers for all the languages.
    languages = ConcatDataset([Sentences(seed) for seed, _ in enumerate(LANGUAGES)])
    loader = DataLoader(
        languages,
        batch_sampler=OneBatchOfEach(languages, BATCH_SIZE),
        num_workers=os.cpu_count() or 1,
        persistent_workers=True,
    )
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 3))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for epoch in range(2):
        for features, labels in loader:
            batches = zip(features.split(BATCH_SIZE), labels.split(BATCH_SIZE), strict=True)
            loss = sum(nn.functional.cross_entropy(model(part), target) for part, target in batches)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        print(f"epoch {epoch}: loss {loss.item() / len(LANGUAGES):.3f}")


if __name__ == "__main__":
    main()
