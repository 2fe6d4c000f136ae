"""Runs PyTorch DataLoader scripts under each multiprocessing start method and classifies what happens."""
