"""A background process loads the batches and hands them to the training loop through a queue, then
exits; the loop waits for it to finish, then takes the batches."""

import torch
import torch.multiprocessing as mp
from torch.utils.data import DataLoader, TensorDataset


def load_batches(queue):
    dataset = TensorDataset(torch.arange(512, dtype=torch.float32).reshape(64, 8))
    for (batch,) in DataLoader(dataset, batch_size=8):
        queue.put(batch)
    queue.put(None)  # no more batches; the function returns and the process exits


def main():
    queue = mp.Queue()
    loader = mp.Process(target=load_batches, args=(queue,))
    loader.start()
    loader.join()  # every batch is loaded before training starts
    total = 0.0
    while (batch := queue.get()) is not None:
        total += float(batch.sum())
    print(f"total {total:.0f}")


if __name__ == "__main__":
    main()
