"""The training log opened for writing at the top of the script, so that every function can
write to it: each spawned worker imports the script again and truncates it.

The runs record the truncation (case 08, measured, no longer a lint risk only).

pitfalls: 08
risks:
"""

import torch
from torch.utils.data import DataLoader, TensorDataset

LOG = open("train.log", "w")


def main():
    dataset = TensorDataset(torch.randn(128, 4), torch.randint(0, 2, (128,)))
    loader = DataLoader(dataset, batch_size=16, num_workers=2)
    for step, (features, labels) in enumerate(loader):
        LOG.write(f"step {step} loss {features.mean().item():.3f}\n")
    LOG.close()


if __name__ == "__main__":
    main()
