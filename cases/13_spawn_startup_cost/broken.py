"""Three epochs over 100,000 embeddings held in memory by the Dataset, with two workers."""

import numpy as np
from torch.utils.data import DataLoader, Dataset


class Embeddings(Dataset):
    def __init__(self, count):
        self.table = np.random.default_rng(0).random((count, 512), dtype=np.float32)  # 200 MB

    def __len__(self):
        return len(self.table)

    def __getitem__(self, index):
        return self.table[index]


def main():
    loader = DataLoader(Embeddings(100_000), batch_size=1000, num_workers=2)
    for epoch in range(3):
        total = sum(float(batch.sum()) for batch in loader)
        print(f"epoch {epoch}: total {total:.0f}")


if __name__ == "__main__":
    main()
