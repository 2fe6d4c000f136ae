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

    Every process appends (basicConfig's default mode, "a"); one that opened the file with "w" would
    write at its own offset, over what the others appended. basicConfig does nothing where logging
    is already set up (forked workers)."""
    logging.basicConfig(filename="train.log", level=logging.INFO)


def main():
    open("train.log", "w").close()  # a new log each run: emptied once, before any process writes
    setup_logging()
    logger.info("training starts")
    loader = DataLoader(Samples(), batch_size=4, num_workers=2, worker_init_fn=setup_logging)
    for step, batch in enumerate(loader):
        logger.info("step %d done", step)  # a training step
    logger.info("training ends")
    logging.shutdown()
    with open("train.log") as log:
        lines = log.read().splitlines()
    warnings = [line for line in lines if "is corrupt" in line]
    own = [line for line in lines if "training" in line or "step" in line]
    print(f"train.log holds {len(warnings)} of {len(CORRUPT)} warnings and {len(own)} of main()'s 4 records")
    assert len(warnings) == len(CORRUPT), (
        f"train.log holds {len(warnings)} of the workers' {len(CORRUPT)} warnings: their records were lost"
    )
    assert len(own) == 4, f"train.log holds {len(own)} of main()'s 4 records: the others were overwritten"


if __name__ == "__main__":
    main()
