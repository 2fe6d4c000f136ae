"""A training script as posted in a bug report: argparse and the loop at top level, no guard.

pitfalls: 01
risks:
"""

import argparse

import torch
from torch.utils.data import DataLoader, TensorDataset

parser = argparse.ArgumentParser()
parser.add_argument("--workers", type=int, default=2)
parser.add_argument("--batch-size", type=int, default=16)
args = parser.parse_args()

data = TensorDataset(torch.randn(256, 8), torch.randint(0, 2, (256,)))
loader = DataLoader(data, batch_size=args.batch_size, shuffle=True, num_workers=args.workers)
model = torch.nn.Linear(8, 2)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for features, labels in loader:
    loss = torch.nn.functional.cross_entropy(model(features), labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print("done")
