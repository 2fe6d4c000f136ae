"""Sum a tiny dataset of squares with two DataLoader workers, written at the script's top level."""

import torch
from torch.utils.data import DataLoader, Dataset


class Squares(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, index):
        return torch.tensor(index * index)


loader = DataLoader(Squares(), batch_size=4, num_workers=2)
total = sum(int(batch.sum()) for batch in loader)
print(f"sum of squares: {total}")
