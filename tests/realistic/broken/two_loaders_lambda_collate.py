"""Train and validation loaders; the padding collate is a lambda written inline.

pitfalls: 03
risks:
"""

import torch
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader, Dataset


class Sentences(Dataset):
    def __init__(self, count):
        self.lengths = torch.randint(3, 12, (count,))

    def __len__(self):
        return len(self.lengths)

    def __getitem__(self, index):
        return torch.ones(int(self.lengths[index]), dtype=torch.long) * index


def run():
    pad = 0
    collate = lambda batch: pad_sequence(batch, batch_first=True, padding_value=pad)
    train = DataLoader(Sentences(200), batch_size=16, shuffle=True, num_workers=2, collate_fn=collate)
    val = DataLoader(Sentences(40), batch_size=16, num_workers=2, collate_fn=collate)
    for batch in train:
        pass
    for batch in val:
        pass
    print("epoch done", batch.shape)


if __name__ == "__main__":
    run()
