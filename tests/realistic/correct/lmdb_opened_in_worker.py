"""An LMDB-backed Dataset that keeps only the path and opens the environment lazily, once in each
worker, read-only and without a lock file: the pattern that LMDB datasets in detection and OCR code
bases follow so that no open environment is pickled to a spawned worker or shared by forked ones.

Source: the lazy opening that Dataset classes built on py-lmdb use (the environment opened in
`__getitem__` at first use, `readonly=True, lock=False, readahead=False, meminit=False`); the
records are written here, in a temporary folder.

pitfalls:
risks:
"""

import os
import pickle
import tempfile

import lmdb
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset

PATH = os.path.join(tempfile.gettempdir(), "features.lmdb")


def write_records(path, count=32):
    rng = np.random.default_rng(0)
    with lmdb.open(path, map_size=1 << 24) as env, env.begin(write=True) as txn:
        for index in range(count):
            txn.put(f"{index:05d}".encode(), pickle.dumps(rng.random(16, dtype=np.float32)))


class LmdbFeatures(Dataset):
    def __init__(self, path, length):
        self.path = path
        self.length = length
        self.env = None

    def _open(self):
        self.env = lmdb.open(self.path, readonly=True, lock=False, readahead=False, meminit=False)

    def __len__(self):
        return self.length

    def __getitem__(self, index):
        if self.env is None:
            self._open()
        with self.env.begin() as txn:
            features = pickle.loads(txn.get(f"{index:05d}".encode()))
        return torch.from_numpy(features)


def main():
    write_records(PATH)
    loader = DataLoader(LmdbFeatures(PATH, 32), batch_size=8, shuffle=True, num_workers=2)
    total = sum(float(batch.sum()) for batch in loader)
    print(f"sum {total:.3f}")


if __name__ == "__main__":
    main()
