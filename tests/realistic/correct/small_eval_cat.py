"""Collect the predictions of a small validation set with torch.cat(list(loader)).

pitfalls:
risks:
"""

import torch
from torch.utils.data import DataLoader, TensorDataset

if __name__ == "__main__":
    val = TensorDataset(torch.randn(64, 4))
    loader = DataLoader(val, batch_size=8, num_workers=2)
    features = torch.cat([batch for (batch,) in loader])
    everything = list(loader)
    print(features.shape, len(everything))
