"""DLP016: a Dataset that logs in its workers, logging set up in the main process only."""

import logging

from torch.utils.data import DataLoader, Dataset

logger = logging.getLogger(__name__)


class Samples(Dataset):
    def __init__(self):
        logger.info("building the index")  # near miss: __init__ runs in the main process

    def __getitem__(self, index):
        if index % 2:
            logger.warning("sample %d is corrupt", index)  # DLP016
        return index

    def __len__(self):
        return 4


def main():
    logging.basicConfig(filename="train.log", level=logging.INFO)
    return DataLoader(Samples(), num_workers=2)
