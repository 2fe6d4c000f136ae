"""Batch variable-length sequences with a collate_fn written as a lambda, two DataLoader workers."""

import torch
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader, Dataset


class Sequences(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, index):
        return torch.arange(index % 4 + 1)


def main():
    loader = DataLoader(
        Sequences(),
        batch_size=4,
        num_workers=2,
        collate_fn=lambda batch: pad_sequence(batch, batch_first=True),
    )
    for batch in loader:
        print(tuple(batch.shape))


if __name__ == "__main__":
    main()
