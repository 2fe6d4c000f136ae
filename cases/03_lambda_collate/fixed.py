"""Batch variable-length sequences with a module-level collate function, two DataLoader workers."""

import torch
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader, Dataset


class Sequences(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, index):
        return torch.arange(index % 4 + 1)


def pad_batch(batch):
    return pad_sequence(batch, batch_first=True)


def main():
    loader = DataLoader(
        Sequences(),
        batch_size=4,
        num_workers=2,
        collate_fn=pad_batch,
    )
    for batch in loader:
        print(tuple(batch.shape))


if __name__ == "__main__":
    main()
