"""Text batches padded in a collate_fn that reads the parsed arguments, made global in main():
a spawned worker never ran main(), so `args` does not exist there.

pitfalls: 23
risks:
"""

import argparse

import torch
from torch.utils.data import DataLoader, Dataset


class Sentences(Dataset):
    def __init__(self, count):
        generator = torch.Generator().manual_seed(1)
        lengths = torch.randint(3, 20, (count,), generator=generator)
        self.sentences = [torch.randint(1, 1000, (int(n),), generator=generator) for n in lengths]

    def __len__(self):
        return len(self.sentences)

    def __getitem__(self, index):
        return self.sentences[index]


def pad_collate(batch):
    padded = torch.zeros(len(batch), args.max_len, dtype=torch.long)
    for row, tokens in enumerate(batch):
        tokens = tokens[: args.max_len]
        padded[row, : len(tokens)] = tokens
    return padded


def main():
    global args
    parser = argparse.ArgumentParser()
    parser.add_argument("--max-len", type=int, default=16)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    loader = DataLoader(Sentences(64), batch_size=8, num_workers=args.workers, collate_fn=pad_collate)
    embedding = torch.nn.EmbeddingBag(1000, 32)
    for batch in loader:
        features = embedding(batch)
    print("features", tuple(features.shape))


if __name__ == "__main__":
    main()
