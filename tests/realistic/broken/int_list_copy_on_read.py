"""Copy-on-read of a plain list of ints: 3 M token ids kept as a Python list, read at random by
two forked workers (each int is an object with a reference count, so reading it writes its page).

pitfalls: 06
risks:
"""

import torch
from torch.utils.data import DataLoader, Dataset


class TokenIds(Dataset):
    def __init__(self, count, block=64):
        self.ids = [(n * 7919) % 50_000 for n in range(count)]
        self.block = block

    def __len__(self):
        return len(self.ids) // self.block

    def __getitem__(self, index):
        start = index * self.block
        return torch.tensor(self.ids[start : start + self.block])


if __name__ == "__main__":
    ids = TokenIds(3_000_000)
    loader = DataLoader(ids, batch_size=16, shuffle=True, num_workers=2, persistent_workers=True)
    tokens = 0
    for epoch in range(2):
        for batch in loader:
            tokens += batch.numel()
    print(f"{tokens} tokens")
