"""A Dataset whose samples wait, as storage answers: workers overlap their waits."""

from __future__ import annotations

import time

import torch
from torch.utils.data import Dataset


class Waits(Dataset):
    """Each sample waits 10 ms, as storage answers: workers overlap their waits."""

    def __len__(self):
        return 64

    def __getitem__(self, index):
        time.sleep(0.01)
        return torch.tensor(index)
