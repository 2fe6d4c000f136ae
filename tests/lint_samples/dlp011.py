"""DLP011: a DataLoader with workers, not persistent, iterated in every epoch."""

from torch.utils.data import DataLoader


def main(ds):
    loader = DataLoader(ds, num_workers=4)  # DLP011
    kept = DataLoader(ds, num_workers=4, persistent_workers=True)  # near miss: workers kept
    inline = DataLoader(ds, num_workers=0)  # near miss: no workers
    once = DataLoader(ds, num_workers=4)  # near miss: iterated once
    for epoch in range(10):
        for batch in loader:
            print(epoch, batch)
        for batch in kept:
            print(batch)
        for batch in inline:
            print(batch)
    for batch in once:
        print(batch)
