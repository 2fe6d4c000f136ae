"""How long torch_shm_manager, the helper of torch's file_system sharing strategy, outlives the
script that used it: a training process (this script with the argument `train`) receives batches
from two spawned workers and exits; this script, its parent, times how long the helpers go on.
Case 12's README quotes the figure (python -m harness experiment shm_manager_lifetime)."""

import subprocess
import sys
import time

import psutil
import torch
from torch.utils.data import DataLoader, Dataset

torch.multiprocessing.set_sharing_strategy("file_system")  # at the top: the spawned workers use it too


class Squares(Dataset):
    def __len__(self):
        return 16

    def __getitem__(self, index):
        return torch.full((256,), float(index * index))


def helpers():
    """The torch_shm_manager processes that this process's workers started (each helper starts a
    session of its own: its parent is what ties it to this process while the workers run)."""
    workers = {child.pid for child in psutil.Process().children()}
    return [
        process.pid
        for process in psutil.process_iter(["name", "ppid"])
        if process.info["name"] == "torch_shm_manager" and process.info["ppid"] in workers
    ]


def train():
    loader = DataLoader(Squares(), batch_size=4, num_workers=2, multiprocessing_context="spawn")
    batches = iter(loader)
    received = [next(batches)]
    print(*helpers(), flush=True)
    received += list(batches)


def main():
    trainer = subprocess.run([sys.executable, __file__, "train"], capture_output=True, text=True, check=True)
    ended = time.perf_counter()
    running = [psutil.Process(int(pid)) for pid in trainer.stdout.split()]
    assert running, "the training process's workers started no torch_shm_manager"
    _, alive = psutil.wait_procs(running, timeout=30)
    assert not alive, f"{len(alive)} torch_shm_manager still running 30 s after the training process ended"
    print(f"torch_shm_manager exited {time.perf_counter() - ended:.1f} s after the training process")


if __name__ == "__main__":
    train() if sys.argv[1:] == ["train"] else main()
