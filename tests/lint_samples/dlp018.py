"""DLP018: the same seed on every rank of a process group."""

import torch
import torch.distributed as dist


def train(rank, args):
    dist.init_process_group("gloo", rank=rank, world_size=2)
    torch.manual_seed(0)  # DLP018
    torch.manual_seed(args.seed)  # DLP018
    torch.manual_seed(0 + rank)  # near miss: a seed of its own per rank
    torch.manual_seed(args.seed + dist.get_rank())  # near miss: the same, asked of the group


def evaluate():
    torch.manual_seed(0)  # near miss: no process group here
