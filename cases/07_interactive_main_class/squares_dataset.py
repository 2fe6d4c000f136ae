"""The Dataset of case 07's fixed.py, in a module that worker processes can import by name."""

import torch
from torch.utils.data import Dataset


class Squares(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, index):
        return torch.tensor(index * index)
