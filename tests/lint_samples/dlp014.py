"""DLP014: the Dataset of a loader with persistent workers changed between epochs."""

from torch.utils.data import DataLoader


def main(ds, other, sampler):
    loader = DataLoader(ds, num_workers=2, persistent_workers=True)
    fresh = DataLoader(other, num_workers=2)  # DLP011
    ds.scale = 1.0  # near miss: before the workers start
    for epoch in range(3):
        ds.set_epoch(epoch)  # DLP014
        ds.strength = epoch / 3  # DLP014
        sampler.set_epoch(epoch)  # near miss: the sampler runs in the main process
        other.epoch = epoch  # near miss: workers are started anew each epoch
        for batch in loader:
            print(batch)
        for batch in fresh:
            print(batch)
