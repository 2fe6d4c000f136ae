"""DLP019: a DataLoader timeout shorter than a spawned worker's start-up."""

from torch.utils.data import DataLoader


def loaders(dataset):
    DataLoader(dataset, num_workers=4, timeout=1)  # DLP019
    fast = DataLoader(dataset, batch_size=8, num_workers=2, timeout=5.0)  # DLP019
    DataLoader(dataset, num_workers=4, timeout=60)  # near miss: covers the start-up
    DataLoader(dataset, timeout=1)  # near miss: no workers, no start-up
    DataLoader(dataset, num_workers=0, timeout=1)  # near miss: no workers
    DataLoader(dataset, num_workers=4)  # near miss: no timeout
    return fast
