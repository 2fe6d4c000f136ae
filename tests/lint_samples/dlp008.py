"""DLP008: a side effect at module level of a script that uses DataLoader."""

import os
import shutil
from pathlib import Path

from torch.utils.data import DataLoader

os.makedirs("runs/x", exist_ok=True)  # DLP008
shutil.rmtree("runs/old", ignore_errors=True)  # DLP008
Path("runs/y").mkdir(exist_ok=True)  # DLP008
log = open("runs/log.txt", "w")  # DLP008
config = open("config.txt")  # near miss: opened for reading


def main():
    os.makedirs("runs/z")  # near miss: inside main
    DataLoader(range(8), num_workers=2)


if __name__ == "__main__":
    os.mkdir("runs/w")  # near miss: inside the guard
    main()
