"""Case 21: what the main process says when the kernel kills one of its DataLoader workers
(SIGKILL, as the OOM killer sends), by start method. Under fork and spawn the workers are the main
process's children; under forkserver they are the server's.

    python worker_killed.py METHOD

(python -m harness experiment worker_killed records what each method printed.)"""

import os
import signal
import sys
import time

from torch.utils.data import DataLoader, Dataset


class DiesAtFour(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, index):
        if index == 4:
            os.kill(os.getpid(), signal.SIGKILL)  # what the OOM killer does to a worker
        time.sleep(0.1)
        return index


def main():
    loader = DataLoader(DiesAtFour(), batch_size=1, num_workers=2, multiprocessing_context=sys.argv[1])
    started = time.perf_counter()
    try:
        print(f"{len(list(loader))} batches")
    finally:
        print(f"the loop ended {time.perf_counter() - started:.1f} s after it started", flush=True)


if __name__ == "__main__":
    main()
