"""A predictions file opened for writing at module level, its header written, the rows appended
in main() after the loader ran. Under spawn and forkserver each worker's import opens it with "w"
again and truncates it; the main process goes on writing at its own offset, so the header's bytes
read back as zeros.

The shape of "open the output once, at the top" scripts, which the multiprocessing programming
guidelines ("Safe importing of main module") warn about: a spawned child imports the main module
and runs its top level again.

pitfalls: 08
risks:
"""

import json

import torch
from torch.utils.data import DataLoader, TensorDataset

out = open("predictions.jsonl", "w")
out.write(json.dumps({"model": "linear", "columns": ["index", "score"]}) + "\n")
out.flush()


def main():
    loader = DataLoader(TensorDataset(torch.arange(64.0)), batch_size=16, num_workers=2)
    for (batch,) in loader:
        for value in batch.tolist():
            out.write(json.dumps({"index": int(value), "score": value / 64}) + "\n")
    out.close()
    with open("predictions.jsonl", "rb") as written:
        head = written.read(64)
    print("starts with", head[:32])


if __name__ == "__main__":
    main()
