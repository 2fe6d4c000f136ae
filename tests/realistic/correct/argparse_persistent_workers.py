"""A full training script: argparse, train and validation loaders with persistent workers.

pitfalls:
risks:
"""

import argparse

import torch
from torch.utils.data import DataLoader, TensorDataset


def parse():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--workers", type=int, default=2)
    return parser.parse_args()


def main():
    args = parse()
    train_set = TensorDataset(torch.randn(512, 8), torch.randint(0, 3, (512,)))
    val_set = TensorDataset(torch.randn(128, 8), torch.randint(0, 3, (128,)))
    common = dict(num_workers=args.workers, persistent_workers=True)
    train = DataLoader(train_set, batch_size=32, shuffle=True, **common)
    val = DataLoader(val_set, batch_size=64, **common)
    model = torch.nn.Linear(8, 3)
    optimizer = torch.optim.Adam(model.parameters())
    for epoch in range(args.epochs):
        for features, labels in train:
            loss = torch.nn.functional.cross_entropy(model(features), labels)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        with torch.no_grad():
            correct = sum(int((model(f).argmax(1) == y).sum()) for f, y in val)
        print(f"epoch {epoch}: {correct}/{len(val_set)}")


if __name__ == "__main__":
    main()
