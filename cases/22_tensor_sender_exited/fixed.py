"""A background process loads the batches and hands them to the training loop through a queue, and
stays alive until the loop has taken them all."""

import torch
import torch.multiprocessing as mp
from torch.utils.data import DataLoader, TensorDataset


def load_batches(queue, taken):
    dataset = TensorDataset(torch.arange(512, dtype=torch.float32).reshape(64, 8))
    for (batch,) in DataLoader(dataset, batch_size=8):
        queue.put(batch)
    queue.put(None)  # no more batches
    # A tensor sent through a queue travels as a handle to this process's shared memory: the
    # receiver opens it through this process, so this process must outlive the last get().
    taken.wait()


def main():
    queue, taken = mp.Queue(), mp.Event()
    # A daemon: if the loop below raises, the program still ends (its loader is stopped at exit)
    # instead of waiting forever for `taken`.
    loader = mp.Process(target=load_batches, args=(queue, taken), daemon=True)
    loader.start()
    total = 0.0
    while (batch := queue.get()) is not None:
        total += float(batch.sum())
    taken.set()  # every batch is here: the loading process may exit
    loader.join()
    print(f"total {total:.0f}")


if __name__ == "__main__":
    main()
