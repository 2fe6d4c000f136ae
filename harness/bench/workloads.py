"""Synthetic Datasets for the benchmark, each built from a small JSON-able description.

- `cpu`: JPEG images made once in memory; each sample is decoded with Pillow, randomly cropped,
  resized and flipped, and normalised with numpy (about 1.6 ms a sample on this project's 2-CPU
  machine). Workers compute: more workers than cores cannot help.
- `io`: one file read from disk per sample, then a fixed wait (`latency_ms`), as remote or network
  storage answers. Workers mostly wait: more workers than cores can help.
- `payload`: a Dataset that holds `megabytes` of data and serves tiny samples, to measure what it
  costs to send the Dataset object to each worker.
"""

from __future__ import annotations

import io
import time
from pathlib import Path

import numpy as np
import torch
from torch.utils.data import Dataset

MEAN = np.array([0.485, 0.456, 0.406], dtype=np.float32)
STD = np.array([0.229, 0.224, 0.225], dtype=np.float32)


class DecodeAugment(Dataset):
    """CPU-bound: decode, crop, resize, flip and normalise a JPEG per sample."""

    def __init__(
        self, samples: int = 256, side: int = 384, crop: int = 256, size: int = 128, distinct: int = 16
    ) -> None:
        from PIL import Image

        rng = np.random.default_rng(0)
        y, x = np.mgrid[0:side, 0:side]
        blobs = []
        for i in range(distinct):
            smooth = (np.sin(x / (7 + i)) + np.cos(y / (5 + i))) * 60 + 128
            pixels = smooth[..., None] + rng.normal(0, 20, (side, side, 3))
            buffer = io.BytesIO()
            Image.fromarray(pixels.clip(0, 255).astype(np.uint8)).save(buffer, format="JPEG", quality=90)
            blobs.append(buffer.getvalue())
        self.images = [blobs[i % distinct] for i in range(samples)]
        self.crop, self.size = crop, size

    def __len__(self) -> int:
        return len(self.images)

    def __getitem__(self, index: int) -> torch.Tensor:
        from PIL import Image

        image = Image.open(io.BytesIO(self.images[index])).convert("RGB")
        rng = np.random.default_rng(index)
        left, top = rng.integers(0, image.width - self.crop + 1, size=2)
        image = image.crop((left, top, left + self.crop, top + self.crop))
        image = image.resize((self.size, self.size), Image.Resampling.BILINEAR)
        pixels = np.asarray(image, dtype=np.float32) / 255.0
        if rng.random() < 0.5:
            pixels = pixels[:, ::-1]
        pixels = (pixels - MEAN) / STD
        return torch.from_numpy(np.ascontiguousarray(pixels.transpose(2, 0, 1)))


class ReadFiles(Dataset):
    """I/O-bound: read one file per sample, then wait as remote storage would."""

    def __init__(self, folder: str, latency_ms: float = 4.0) -> None:
        self.paths = sorted(str(path) for path in Path(folder).glob("*.bin"))
        self.latency_s = latency_ms / 1000
        if not self.paths:
            raise ValueError(f"no *.bin files in {folder}")

    def __len__(self) -> int:
        return len(self.paths)

    def __getitem__(self, index: int) -> torch.Tensor:
        with open(self.paths[index], "rb") as handle:
            data = handle.read()
        time.sleep(self.latency_s)
        return torch.frombuffer(bytearray(data[:4096]), dtype=torch.uint8)


def write_files(folder: Path, samples: int, kilobytes: int = 64) -> None:
    """The files that `ReadFiles` reads: `samples` files of random bytes."""
    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(0)
    for index in range(samples):
        (folder / f"{index:05d}.bin").write_bytes(rng.bytes(kilobytes * 1024))


class Payload(Dataset):
    """Holds `megabytes` of data; each sample is one number, so only start-up is measured."""

    def __init__(self, megabytes: int = 0, samples: int = 64) -> None:
        self.data = np.ones(megabytes * 1024 * 1024 // 8, dtype=np.float64)
        self.samples = samples

    def __len__(self) -> int:
        return self.samples

    def __getitem__(self, index: int) -> int:
        return index


def build(description: dict) -> Dataset:
    """The Dataset a description names: {"kind": "cpu"|"io"|"payload", ...its arguments}."""
    kinds = {"cpu": DecodeAugment, "io": ReadFiles, "payload": Payload}
    arguments = dict(description)
    kind = arguments.pop("kind")
    if kind not in kinds:
        raise ValueError(f"unknown workload kind {kind!r}; choose from {', '.join(kinds)}")
    return kinds[kind](**arguments)
