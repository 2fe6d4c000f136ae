"""A Lightning-style DataModule: it holds the Dataset and builds the loaders, padding batches with
a lambda.

pitfalls: 03
risks:
"""

import torch
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader, Dataset


class Sentences(Dataset):
    def __init__(self, count):
        self.lengths = [3 + i % 9 for i in range(count)]

    def __len__(self):
        return len(self.lengths)

    def __getitem__(self, index):
        return torch.arange(self.lengths[index])


class TextDataModule:
    def __init__(self, batch_size=8, num_workers=2):
        self.batch_size, self.num_workers = batch_size, num_workers
        self.train_set = None

    def setup(self):
        self.train_set = Sentences(96)

    def train_dataloader(self):
        return DataLoader(
            self.train_set,
            batch_size=self.batch_size,
            num_workers=self.num_workers,
            shuffle=True,
            collate_fn=lambda batch: pad_sequence(batch, batch_first=True),
        )


def main():
    data = TextDataModule()
    data.setup()
    for batch in data.train_dataloader():
        batch.float().mean()


if __name__ == "__main__":
    main()
