"""A large Dataset whose samples live in numpy arrays, the copy-on-read fix.

pitfalls:
risks:
"""

import numpy as np
from torch.utils.data import DataLoader, Dataset


class Captions(Dataset):
    def __init__(self, count):
        self.lengths = np.array([len(f"caption {n:08d}") for n in range(count)], dtype=np.int32)

    def __len__(self):
        return len(self.lengths)

    def __getitem__(self, index):
        return int(self.lengths[index])


if __name__ == "__main__":
    loader = DataLoader(Captions(400_000), batch_size=2000, num_workers=2)
    print(sum(int(batch.sum()) for batch in loader))
