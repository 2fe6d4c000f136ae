"""Two ranks of torch.distributed (gloo, CPU), each with a DistributedSampler and two workers, two epochs."""

import tempfile
from pathlib import Path

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.utils.data import DataLoader, Dataset, DistributedSampler

RANKS = 2


class Images(Dataset):
    def __len__(self):
        return 16

    def __getitem__(self, index):
        flip = torch.rand(1).item()  # stands for a random augmentation
        return index, flip


def train(rank, store):
    dist.init_process_group("gloo", init_method=store, rank=rank, world_size=RANKS)
    torch.manual_seed(0 + rank)  # reproducible runs, and each rank its own random stream
    dataset = Images()
    sampler = DistributedSampler(dataset, shuffle=True)
    loader = DataLoader(dataset, batch_size=4, sampler=sampler, num_workers=2, persistent_workers=True)
    epochs = []
    for epoch in range(2):
        sampler.set_epoch(epoch)  # a new shuffle each epoch, the same on every rank
        seen = [
            (int(i), round(float(f), 6))
            for indices, flips in loader
            for i, f in zip(indices, flips, strict=True)
        ]
        epochs.append(seen)
    everyone = [None] * RANKS
    dist.all_gather_object(everyone, epochs)
    dist.destroy_process_group()
    if rank == 0:
        report(everyone)


def report(ranks):
    problems = []
    for rank, (first, second) in enumerate(ranks):
        if [i for i, _ in first] == [i for i, _ in second]:
            problems.append(f"rank {rank} saw the same order in epochs 0 and 1")
    flips = [sorted(f for _, f in epochs[0]) for epochs in ranks]
    if flips[0] == flips[1]:
        problems.append("both ranks drew the same random augmentations")
    print("; ".join(problems) or "every epoch and every rank saw its own order and augmentations")
    assert not problems, "; ".join(problems)


def main():
    with tempfile.TemporaryDirectory() as folder:
        store = Path(folder, "rendezvous").as_uri()  # a file where the ranks find each other
        mp.spawn(train, args=(store,), nprocs=RANKS)


if __name__ == "__main__":
    main()
