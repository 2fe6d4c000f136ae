"""Logging set up with dictConfig in main() (keeping the loggers made at import); the Dataset warns
about unreadable records. The spawned workers' warnings reach logging's last resort, not run.log:
measured, not guessed.

pitfalls: 18
risks:
"""

import logging
import logging.config

import torch
from torch.utils.data import DataLoader, Dataset

log = logging.getLogger("data")


class Records(Dataset):
    def __len__(self):
        return 64

    def __getitem__(self, index):
        if index % 16 == 0:
            log.warning("record %d unreadable, using zeros", index)
            return torch.zeros(4)
        return torch.full((4,), float(index))


def main():
    logging.config.dictConfig(
        {
            "version": 1,
            "disable_existing_loggers": False,
            "handlers": {"file": {"class": "logging.FileHandler", "filename": "run.log"}},
            "root": {"handlers": ["file"], "level": "INFO"},
        }
    )
    loader = DataLoader(Records(), batch_size=16, num_workers=2)
    total = sum(batch.sum().item() for batch in loader)
    log.info("epoch done, sum %.0f", total)


if __name__ == "__main__":
    main()
