"""Case 21: how much memory the main process adds while it pickles a Dataset holding a 512 MB numpy
array for a worker, by pickle protocol (multiprocessing's pickler, as the DataLoader sends it).

    python pickle_protocol_copies.py PROTOCOL

Prints the rise of the process's peak resident memory (python -m harness experiment
pickle_protocol_copies records it)."""

import resource
import sys
from multiprocessing.reduction import ForkingPickler

import numpy as np


class Features:
    def __init__(self):
        self.features = np.ones((500_000, 256), dtype=np.float32)  # 512 MB, as case 21's Dataset


def peak_mb():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: kilobytes


def main():
    protocol = int(sys.argv[1])
    dataset = Features()
    before = peak_mb()
    pickled = ForkingPickler.dumps(dataset, protocol)
    size, rise = len(pickled) / 2**20, peak_mb() - before
    print(f"protocol {protocol}: a pickle of {size:.0f} MB raised the peak by {rise:.0f} MB")


if __name__ == "__main__":
    main()
