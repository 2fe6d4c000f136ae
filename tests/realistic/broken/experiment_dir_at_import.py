"""An experiment folder made when the script is imported, named by the time.

Each worker that imports it again (spawn, forkserver) makes a folder of its own: the runs
record it (case 08, measured, no longer a lint risk only).

pitfalls: 08
risks:
"""

import os
import time

import torch
from torch.utils.data import DataLoader, TensorDataset

RUN_DIR = os.path.join("runs", time.strftime("%Y%m%d-%H%M%S") + f"-{os.getpid()}")
os.makedirs(RUN_DIR, exist_ok=True)


def main():
    loader = DataLoader(TensorDataset(torch.randn(64, 2)), batch_size=16, num_workers=2)
    for (batch,) in loader:
        pass
    torch.save(batch, os.path.join(RUN_DIR, "last.pt"))


if __name__ == "__main__":
    main()
