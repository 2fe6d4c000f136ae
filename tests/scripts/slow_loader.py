"""Loaders that are slow but working, each idle for longer than the harness's idle limit:
none of them may be called hung.

    io      each item waits 1.5 s, as a read from a slow network share does
    first   worker_init_fn takes 3 s (opening a large index), then items come fast
    thread  each item waits on a lock that a thread of the worker holds for 1.5 s
"""

import sys
import threading
import time

from torch.utils.data import DataLoader, Dataset

MODE = sys.argv[1]


class Slow(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, index):
        if MODE == "io":
            time.sleep(1.5)
        elif MODE == "thread":
            lock = threading.Lock()
            lock.acquire()
            threading.Thread(target=lambda: (time.sleep(1.5), lock.release())).start()
            with lock:  # waits with no timeout; the other thread, sleeping, will release it
                pass
        return index


def open_index(worker_id):
    if MODE == "first":
        time.sleep(3.0)


if __name__ == "__main__":
    loader = DataLoader(Slow(), batch_size=2, num_workers=1, worker_init_fn=open_index)
    print([batch.tolist() for batch in loader])
