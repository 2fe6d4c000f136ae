"""A padding collate at module level, configured with functools.partial.

pitfalls:
risks:
"""

import functools

import torch
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader, Dataset


def pad_batch(batch, value):
    return pad_sequence(batch, batch_first=True, padding_value=value)


class Sentences(Dataset):
    def __len__(self):
        return 100

    def __getitem__(self, index):
        return torch.arange(index % 9 + 1)


if __name__ == "__main__":
    collate = functools.partial(pad_batch, value=-1)
    for batch in DataLoader(Sentences(), batch_size=10, num_workers=2, collate_fn=collate):
        pass
    print(batch.shape)
