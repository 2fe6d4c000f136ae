"""Three epochs over 100,000 embeddings memory-mapped from a file by the Dataset, with two
persistent workers."""

import os
import tempfile

import numpy as np
from torch.utils.data import DataLoader, Dataset


class Embeddings(Dataset):
    def __init__(self, path):
        self.path = path
        self.count = len(np.load(path, mmap_mode="r"))
        self.table = None  # memory-mapped on first use, in the process that reads

    def __len__(self):
        return self.count

    def __getitem__(self, index):
        if self.table is None:
            self.table = np.load(self.path, mmap_mode="c")
        return self.table[index]


def main():
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "embeddings.npy")
        np.save(path, np.random.default_rng(0).random((100_000, 512), dtype=np.float32))  # 200 MB
        loader = DataLoader(Embeddings(path), batch_size=1000, num_workers=2, persistent_workers=True)
        for epoch in range(3):
            total = sum(float(batch.sum()) for batch in loader)
            print(f"epoch {epoch}: total {total:.0f}")
        del loader  # end the persistent workers: they hold the file open, and Windows cannot delete it then


if __name__ == "__main__":
    main()
