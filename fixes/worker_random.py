"""Random generators that differ in every DataLoader worker, yet repeat from run to run.

PyTorch seeds each worker's torch generator (base seed + worker id) and, since torch 1.9, the
global numpy and `random` generators too. It cannot reach a generator object that your Dataset
created and stores: every worker receives a copy of it in the same state, so all workers draw the
same "random" numbers. Create the generator in the worker instead, from the worker's seed.
"""

from __future__ import annotations

import random

import numpy as np
import torch
from torch.utils.data import get_worker_info


def worker_seed() -> int:
    """This worker's seed (base seed + worker id); the process's torch seed outside a worker.

    Both follow the DataLoader's `generator=`: seed that generator for repeatable runs.
    """
    info = get_worker_info()
    return info.seed if info is not None else torch.initial_seed()


def numpy_generator() -> np.random.Generator:
    """A numpy Generator seeded for this worker: call it in the worker, e.g. on first use."""
    return np.random.default_rng(worker_seed())


def python_random() -> random.Random:
    """A `random.Random` seeded for this worker."""
    return random.Random(worker_seed())
