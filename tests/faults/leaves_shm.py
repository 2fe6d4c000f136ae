"""Holds batches in shared memory (file_system strategy) and hangs: killed, it leaves them in /dev/shm."""

import time

import torch
from torch.utils.data import DataLoader, Dataset

torch.multiprocessing.set_sharing_strategy("file_system")


class Tensors(Dataset):
    def __len__(self):
        return 64

    def __getitem__(self, index):
        return torch.full((256,), float(index))


if __name__ == "__main__":
    kept = [batch for batch in DataLoader(Tensors(), batch_size=8, num_workers=2, persistent_workers=True)]
    print(f"kept {len(kept)} batches", flush=True)
    time.sleep(600)  # hangs holding them: the harness kills it and its torch_shm_manager
