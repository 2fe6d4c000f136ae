"""Everything under the main guard, the Dataset class too, as a notebook cell pasted into a file.

pitfalls: 07
risks:
"""

import torch
from torch.utils.data import DataLoader

if __name__ == "__main__":
    from torch.utils.data import Dataset

    class Windows(Dataset):
        def __init__(self, series, width):
            self.series, self.width = series, width

        def __len__(self):
            return len(self.series) - self.width

        def __getitem__(self, index):
            return self.series[index : index + self.width]

    loader = DataLoader(Windows(torch.arange(500.0), 10), batch_size=32, num_workers=2)
    print(sum(float(batch.mean()) for batch in loader))
