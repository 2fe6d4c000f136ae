"""Corrupt samples are skipped with a warning, logged to train.log as set up in each process; two workers."""

import logging

from torch.utils.data import DataLoader, Dataset

logger = logging.getLogger(__name__)
CORRUPT = {1, 3, 4, 6}


class Samples(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, index):
        if index in CORRUPT:
            logger.warning("sample %d is corrupt: replaced by zeros", index)
            return 0
        return index


def setup_logging(worker_id=None):
    """Called in the main process and, as worker_init_fn, in each worker: spawned workers start bare.

    The main process starts a new log; workers append to it. basicConfig does nothing where logging
    is already set up (forked workers)."""
    mode = "w" if worker_id is None else "a"
    logging.basicConfig(filename="train.log", filemode=mode, level=logging.INFO)


def main():
    setup_logging()
    loader = DataLoader(Samples(), batch_size=4, num_workers=2, worker_init_fn=setup_logging)
    for batch in loader:
        pass  # a training step
    logging.shutdown()
    with open("train.log") as log:
        warnings = [line for line in log if "is corrupt" in line]
    print(f"train.log holds {len(warnings)} of {len(CORRUPT)} warnings")
    assert len(warnings) == len(CORRUPT), (
        f"train.log holds {len(warnings)} of the workers' {len(CORRUPT)} warnings: their records were lost"
    )


if __name__ == "__main__":
    main()
