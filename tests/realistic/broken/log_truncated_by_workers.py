"""A training log opened at the top of the script with `filemode="w"`, "so that each run starts
afresh", above a correct `if __name__ == "__main__":`. Under spawn and forkserver every worker
imports the script again, and its `basicConfig` truncates train.log once more: the lines the main
process logged before its workers started are lost (overwritten with zero bytes), and the script
exits 0.

After `logging.basicConfig`'s own documentation (its docstring, read here: "filemode  Specifies
the mode to open the file, if filename is specified (if filemode is unspecified, it defaults to
'a')"), and the multiprocessing programming guidelines' "Safe importing of main module" (a spawned
child imports the main module).

pitfalls: 08
risks:
"""

import logging

import torch
from torch.utils.data import DataLoader, TensorDataset

logging.basicConfig(
    filename="train.log", filemode="w", level=logging.INFO, format="%(levelname)s %(message)s"
)
log = logging.getLogger("train")


def main():
    log.info("building the loader")
    loader = DataLoader(TensorDataset(torch.randn(256, 8)), batch_size=32, num_workers=2)
    total = sum(batch.sum().item() for (batch,) in loader)
    log.info("epoch done, sum %.3f", total)
    logging.shutdown()
    with open("train.log", "rb") as written:
        print(written.read().replace(b"\0", b"<NUL>").decode())


if __name__ == "__main__":
    main()
