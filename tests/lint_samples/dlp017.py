"""DLP017: a DistributedSampler never told the epoch; the same seed on every rank."""

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler


def train(rank, dataset, args):
    dist.init_process_group("gloo", rank=rank, world_size=2)
    torch.manual_seed(0)  # DLP017
    torch.manual_seed(args.seed)  # DLP017
    torch.manual_seed(0 + rank)  # near miss: a seed of its own per rank
    torch.manual_seed(args.seed + dist.get_rank())  # near miss: the same, asked of the group
    sampler = DistributedSampler(dataset)  # DLP017
    told = DistributedSampler(dataset)  # near miss: set_epoch below
    ordered = DistributedSampler(dataset, shuffle=False)  # near miss: nothing to reshuffle
    for epoch in range(2):
        told.set_epoch(epoch)
        for loader in (DataLoader(dataset, sampler=s, num_workers=2) for s in (sampler, told, ordered)):
            for batch in loader:
                print(batch)


def evaluate():
    torch.manual_seed(0)  # near miss: no process group here
