# Notebook-style code: a Dataset class defined in the session itself (a notebook cell, an IPython
# prompt, or `python - < file`), then a DataLoader with two workers.
import torch
from torch.utils.data import DataLoader, Dataset


class Squares(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, index):
        return torch.tensor(index * index)


loader = DataLoader(Squares(), batch_size=4, num_workers=2)
print("sum of squares:", sum(int(batch.sum()) for batch in loader))
