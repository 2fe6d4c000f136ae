"""Train with two DataLoader workers while a metrics client uploads from a background thread.

The client's thread holds its lock while it uploads, as many clients, caches and loggers do.
"""

import threading
import time

import torch
from torch.utils.data import DataLoader, Dataset


class MetricsClient:
    """Stands for a metrics or telemetry client: records are uploaded by a background thread."""

    def __init__(self):
        self.lock = threading.Lock()
        self.pending = []
        self.wake = threading.Event()
        threading.Thread(target=self._upload_forever, daemon=True).start()

    def record(self, name, value):
        with self.lock:
            self.pending.append((name, value))

    def flush(self):
        self.wake.set()  # the upload thread sends what is pending

    def _upload_forever(self):
        while True:
            self.wake.wait()
            self.wake.clear()
            with self.lock:
                self.pending.clear()
                time.sleep(2.0)  # stands for the upload's network round trip


METRICS = MetricsClient()


class Squares(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, index):
        METRICS.record("samples_loaded", 1)
        return torch.tensor(index * index)


def main():
    METRICS.record("run_started", 1)
    METRICS.flush()
    time.sleep(0.2)  # stands for building the model, while the client uploads
    loader = DataLoader(Squares(), batch_size=4, num_workers=2)
    total = sum(int(batch.sum()) for batch in loader)
    print(f"sum of squares: {total}")


if __name__ == "__main__":
    main()
