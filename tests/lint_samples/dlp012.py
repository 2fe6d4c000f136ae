"""DLP012: batches from a loader with workers kept as they were received."""

from torch.utils.data import DataLoader


def main(ds):
    loader = DataLoader(ds, num_workers=2)
    kept = []
    for batch in loader:
        kept.append(batch)  # DLP012
        kept.append(batch.clone())  # near miss: a copy
    everything = [b for b in loader]  # DLP012
    as_list = list(loader)  # DLP012
    copies = [b.numpy().copy() for b in loader]  # near miss: copies
    inline = DataLoader(ds, num_workers=0)
    same = [b for b in inline]  # near miss: no workers, no shared memory
    return kept, everything, as_list, copies, same
