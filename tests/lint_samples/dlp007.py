"""DLP007: a Python list kept on a Dataset (copy-on-read under fork)."""

import glob
import json
import os

import numpy as np
from torch.utils.data import Dataset


class Files(Dataset):
    def __init__(self, root, count):
        self.files = sorted(glob.glob(root + "/*.jpg"))  # DLP007
        self.names = [name.upper() for name in os.listdir(root)]  # DLP007
        self.labels = json.load(open(root + "/labels.json"))  # DLP007 (the file itself is closed: no DLP003)
        self.ids = list(range(1_000_000))  # DLP007
        self.captions = [f"caption {n}" for n in range(2_000_000)]  # DLP007
        self.sizes = [n for n in range(count)]  # DLP007 (count is not known at parse time)
        self.table = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]  # DLP007
        self.paths = np.array(sorted(glob.glob(root + "/*.png")))  # near miss: a numpy array
        self.mean = [0.5, 0.5, 0.5]  # near miss: a short literal list
        self.images = [f"img_{n:03d}.png" for n in range(128)]  # near miss: 128 paths, known at parse time
        self.order = list(range(100))  # near miss: 100 items
