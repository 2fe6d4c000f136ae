"""DLP017: a shuffling DistributedSampler never told the epoch."""

import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def train(rank, dataset):
    dist.init_process_group("gloo", rank=rank, world_size=2)
    sampler = DistributedSampler(dataset)  # DLP017
    told = DistributedSampler(dataset)  # near miss: set_epoch below
    ordered = DistributedSampler(dataset, shuffle=False)  # near miss: nothing to reshuffle
    for epoch in range(2):
        told.set_epoch(epoch)
        for loader in (DataLoader(dataset, sampler=s, num_workers=2) for s in (sampler, told, ordered)):
            for batch in loader:
                print(batch)
