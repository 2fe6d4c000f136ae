"""Captions kept in SQLite; the Dataset connects once in __init__ and queries in __getitem__.

pitfalls: 02
risks:
"""

import os
import sqlite3
import tempfile

import torch
from torch.utils.data import DataLoader, Dataset


def make_db(path):
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE captions (id INTEGER PRIMARY KEY, length INTEGER)")
        db.executemany("INSERT INTO captions VALUES (?, ?)", [(i, i % 17) for i in range(64)])


class Captions(Dataset):
    def __init__(self, path):
        self.db = sqlite3.connect(path, check_same_thread=False)
        self.count = self.db.execute("SELECT COUNT(*) FROM captions").fetchone()[0]

    def __len__(self):
        return self.count

    def __getitem__(self, index):
        (length,) = self.db.execute("SELECT length FROM captions WHERE id = ?", (index,)).fetchone()
        return torch.tensor([length])


def main():
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "captions.db")
        make_db(path)
        for batch in DataLoader(Captions(path), batch_size=8, num_workers=2):
            batch.sum()


if __name__ == "__main__":
    main()
