"""The same training script with a lambda as collate_fn for the validation loader, many
epochs. It would run for minutes; `check` must judge it from its first batches."""

import argparse
import logging
import time

import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset

log = logging.getLogger("train")


class Synthetic(Dataset):
    def __init__(self, count, features, seed):
        generator = torch.Generator().manual_seed(seed)
        self.inputs = torch.randn(count, features, generator=generator)
        self.targets = (self.inputs.sum(dim=1, keepdim=True) > 0).float()

    def __len__(self):
        return len(self.inputs)

    def __getitem__(self, index):
        time.sleep(0.002)  # stands for decoding and augmenting a sample
        return self.inputs[index], self.targets[index]


def parse_args():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--epochs", type=int, default=50)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--lr", type=float, default=0.01)
    return parser.parse_args()


def evaluate(model, loader):
    model.eval()
    correct = total = 0
    with torch.no_grad():
        for inputs, targets in loader:
            correct += ((model(inputs) > 0).float() == targets).sum().item()
            total += len(targets)
    return correct / total


def main():
    args = parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    train = DataLoader(
        Synthetic(4096, 16, 0), batch_size=args.batch_size, shuffle=True, num_workers=args.workers
    )
    val = DataLoader(
        Synthetic(1024, 16, 1),
        batch_size=256,
        num_workers=args.workers,
        collate_fn=lambda batch: [torch.stack(column) for column in zip(*batch, strict=True)],
    )
    model = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr)
    loss_fn = nn.BCEWithLogitsLoss()
    for epoch in range(args.epochs):
        model.train()
        for step, (inputs, targets) in enumerate(train):
            optimizer.zero_grad()
            loss = loss_fn(model(inputs), targets)
            loss.backward()
            optimizer.step()
            if step % 50 == 0:
                log.info("epoch %d step %d loss %.3f", epoch, step, loss.item())
        log.info("epoch %d validation accuracy %.3f", epoch, evaluate(model, val))


if __name__ == "__main__":
    main()
