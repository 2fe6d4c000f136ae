"""Runs PyTorch DataLoader scripts under each multiprocessing start method and classifies what happens."""

from pathlib import Path

# Installed from a wheel (which carries the cases as harness/catalog/), not run from a checkout.
INSTALLED = (Path(__file__).resolve().parent / "catalog").is_dir()
