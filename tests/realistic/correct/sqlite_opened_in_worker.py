"""The SQLite fix: the Dataset keeps the path and connects on first use in each worker.

pitfalls:
risks:
"""

import os
import sqlite3
import tempfile

import torch
from torch.utils.data import DataLoader, Dataset


class Captions(Dataset):
    def __init__(self, path, count):
        self.path, self.count = path, count
        self.db = None

    def __len__(self):
        return self.count

    def __getitem__(self, index):
        if self.db is None:
            self.db = sqlite3.connect(self.path)
        (length,) = self.db.execute("SELECT length FROM captions WHERE id = ?", (index,)).fetchone()
        return torch.tensor([length])


def main():
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "captions.db")
        with sqlite3.connect(path) as db:
            db.execute("CREATE TABLE captions (id INTEGER PRIMARY KEY, length INTEGER)")
            db.executemany("INSERT INTO captions VALUES (?, ?)", [(i, i % 17) for i in range(64)])
        for batch in DataLoader(Captions(path, 64), batch_size=8, num_workers=2):
            batch.sum()


if __name__ == "__main__":
    main()
