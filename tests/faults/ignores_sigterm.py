"""Ignores SIGTERM and SIGINT in the main process and in its DataLoader workers, then blocks."""

import signal
import threading

from torch.utils.data import DataLoader, Dataset


def ignore_termination(*_):
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    print("ignores termination", flush=True)


class Stuck(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, index):
        threading.Event().wait()


if __name__ == "__main__":
    ignore_termination()
    for batch in DataLoader(Stuck(), batch_size=2, num_workers=2, worker_init_fn=ignore_termination):
        print(batch)
