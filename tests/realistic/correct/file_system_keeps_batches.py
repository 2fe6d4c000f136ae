"""Keeps every batch, with the file_system sharing strategy so that none holds a descriptor.

pitfalls:
risks:
"""

import torch
import torch.multiprocessing
from torch.utils.data import DataLoader, TensorDataset

torch.multiprocessing.set_sharing_strategy("file_system")

if __name__ == "__main__":
    loader = DataLoader(TensorDataset(torch.randn(8000, 4)), batch_size=4, num_workers=2)
    kept = [batch for (batch,) in loader]
    print(len(kept))
