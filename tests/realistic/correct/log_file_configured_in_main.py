"""The training log opened with `filemode="w"` inside the `if __name__ == "__main__":` block: the
workers import the script without running it, so nothing truncates train.log; every line the main
process logged is in the file at the end.

The fix the multiprocessing programming guidelines give ("Safe importing of main module": code
with side effects under the guard), with `logging.basicConfig`'s `filemode` as its docstring
describes it (read here).

pitfalls:
risks:
"""

import logging

import torch
from torch.utils.data import DataLoader, TensorDataset

log = logging.getLogger("train")


def main():
    logging.basicConfig(filename="train.log", filemode="w", level=logging.INFO)
    log.info("building the loader")
    loader = DataLoader(TensorDataset(torch.randn(256, 8)), batch_size=32, num_workers=2)
    total = sum(batch.sum().item() for (batch,) in loader)
    log.info("epoch done, sum %.3f", total)
    logging.shutdown()
    with open("train.log") as written:
        print(written.read())


if __name__ == "__main__":
    main()
