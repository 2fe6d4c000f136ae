"""The Hogwild example's shape (pytorch/examples, mnist_hogwild): a model in shared memory,
trained by torch.multiprocessing processes at once, each with its own DataLoader (without workers
on CPU, as the example has), started with spawn as the example does. Its training processes grow
as they train: they are no DataLoader workers, and their memory is no copy-on-read.

pitfalls:
risks:
"""

import torch
import torch.multiprocessing as mp
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


def train(rank, model, dataset):
    torch.manual_seed(rank)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    loader = DataLoader(dataset, batch_size=32, shuffle=True)
    for epoch in range(3):
        for features, labels in loader:
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(features), labels)
            loss.backward()
            optimizer.step()


def main():
    dataset = TensorDataset(torch.randn(2048, 64), torch.randint(0, 10, (2048,)))
    model = nn.Sequential(nn.Linear(64, 256), nn.ReLU(), nn.Linear(256, 10))
    mp.set_start_method("spawn", force=True)
    model.share_memory()
    processes = [mp.Process(target=train, args=(rank, model, dataset)) for rank in range(2)]
    for process in processes:
        process.start()
    for process in processes:
        process.join()


if __name__ == "__main__":
    main()
