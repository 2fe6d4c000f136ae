"""The PyTorch DDP tutorial's shape on CPU: `mp.spawn` starts 2 ranks, each joins a gloo process
group through an environment rendezvous (MASTER_ADDR, MASTER_PORT), wraps its model in
DistributedDataParallel and loads its shard with a DistributedSampler and 2 workers, told the
epoch each epoch, seeded per rank.

Source: the "Getting Started with Distributed Data Parallel" tutorial (pytorch/tutorials,
intermediate_source/ddp_tutorial.rst: `setup(rank, world_size)` sets MASTER_ADDR and MASTER_PORT
and calls `dist.init_process_group("gloo", rank=rank, world_size=world_size)`; `mp.spawn(demo_fn,
args=(world_size,), nprocs=world_size, join=True)`), with the DataLoader of the "Multi GPU
training with DDP" series (ddp_series_multigpu.rst: `DistributedSampler(dataset)`,
`sampler.set_epoch(epoch)`).

pitfalls:
risks:
"""

import os
import socket

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler

WORLD_SIZE = 2
EPOCHS = 2


class Regression(Dataset):
    def __init__(self, size=64):
        generator = torch.Generator().manual_seed(0)
        self.x = torch.randn(size, 10, generator=generator)
        self.y = self.x.sum(dim=1, keepdim=True)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, index):
        return self.x[index], self.y[index]


def setup(rank, world_size, port):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    dist.init_process_group("gloo", rank=rank, world_size=world_size)


def cleanup():
    dist.destroy_process_group()


def train(rank, world_size, port):
    setup(rank, world_size, port)
    torch.manual_seed(1234 + rank)
    dataset = Regression()
    sampler = DistributedSampler(dataset, num_replicas=world_size, rank=rank, shuffle=True)
    loader = DataLoader(dataset, batch_size=8, sampler=sampler, num_workers=2)
    model = DDP(nn.Linear(10, 1))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    loss_fn = nn.MSELoss()
    for epoch in range(EPOCHS):
        sampler.set_epoch(epoch)
        for inputs, targets in loader:
            optimizer.zero_grad()
            loss = loss_fn(model(inputs), targets)
            loss.backward()
            optimizer.step()
        if rank == 0:
            print(f"epoch {epoch}: loss {loss.item():.4f}")
    cleanup()


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


if __name__ == "__main__":
    mp.spawn(train, args=(WORLD_SIZE, free_port()), nprocs=WORLD_SIZE, join=True)
