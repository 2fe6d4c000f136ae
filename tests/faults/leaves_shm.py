"""Holds batches in shared memory (file_system strategy), loses the helpers that would remove them
(each process's torch_shm_manager, killed as a crash would end it) and hangs: killed in turn, it
leaves its segments in /dev/shm. With its helpers alive, they would remove them once it is gone."""

import os
import signal
import time

import torch
from torch.utils.data import DataLoader, Dataset

torch.multiprocessing.set_sharing_strategy("file_system")


class Tensors(Dataset):
    def __len__(self):
        return 64

    def __getitem__(self, index):
        return torch.full((256,), float(index))


def own_managers():
    """The torch_shm_manager processes this script started: a manager leaves its session (setsid)
    and its parent, but keeps the environment of the process that started it (Linux /proc)."""
    environment = {key + b"=" + value for key, value in os.environb.items()}
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/comm") as comm, open(f"/proc/{entry}/environ", "rb") as env:
                if (
                    comm.read().startswith("torch_shm_manag")
                    and set(env.read().split(b"\0")[:-1]) == environment
                ):
                    yield int(entry)
        except (OSError, ValueError):
            continue


if __name__ == "__main__":
    # The loader stays referenced: its persistent workers live on, holding their share, while this
    # process hangs (a loader dropped after the loop would shut them down within the second, and a
    # test waiting for the run's three processes could miss them).
    loader = DataLoader(Tensors(), batch_size=8, num_workers=2, persistent_workers=True)
    kept = list(loader)
    for pid in own_managers():
        os.kill(pid, signal.SIGKILL)
    print(f"kept {len(kept)} batches", flush=True)
    time.sleep(600)  # hangs holding them: the harness kills it
