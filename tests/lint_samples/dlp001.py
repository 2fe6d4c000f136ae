"""DLP001: a DataLoader used at module level, outside the `__main__` guard."""

import torch
from torch.utils.data import DataLoader, TensorDataset

data = TensorDataset(torch.arange(8.0))
loader = DataLoader(data, num_workers=2)  # DLP001
total = sum(batch[0].sum() for batch in torch.utils.data.DataLoader(data, num_workers=2))  # DLP001
print([DataLoader(data), DataLoader(data)])  # DLP001


# near misses: inside a function, a class, or the guard
def make_loader():
    return DataLoader(data, num_workers=2)


class Loaders:
    train = staticmethod(make_loader)


if __name__ == "__main__":
    for batch in DataLoader(data, num_workers=2):
        print(batch)
