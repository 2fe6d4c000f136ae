"""A Lightning-style DataModule done right: the Dataset keeps paths and opens each file in the
worker that reads it; collate is a module-level function.

pitfalls:
risks:
"""

import os
import tempfile

import torch
from torch.utils.data import DataLoader, Dataset


def pad_collate(batch):
    width = max(len(x) for x in batch)
    return torch.stack([torch.nn.functional.pad(x, (0, width - len(x))) for x in batch])


class TextFiles(Dataset):
    def __init__(self, paths):
        self.paths = paths

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, index):
        with open(self.paths[index], encoding="utf-8") as file:
            return torch.tensor([len(word) for word in file.read().split()], dtype=torch.float32)


class TextDataModule:
    def __init__(self, folder, num_workers=2):
        self.folder, self.num_workers = folder, num_workers
        self.train_set = None

    def setup(self):
        names = sorted(os.listdir(self.folder))
        self.train_set = TextFiles([os.path.join(self.folder, name) for name in names])

    def train_dataloader(self):
        return DataLoader(self.train_set, batch_size=4, num_workers=self.num_workers, collate_fn=pad_collate)


def main():
    with tempfile.TemporaryDirectory() as folder:
        for index in range(32):
            with open(os.path.join(folder, f"{index:03}.txt"), "w", encoding="utf-8") as file:
                file.write("word " * (index % 6 + 1))
        data = TextDataModule(folder)
        data.setup()
        for batch in data.train_dataloader():
            batch.sum()


if __name__ == "__main__":
    main()
