# Notebook-style code: the Dataset class lives in a module file beside the notebook
# (squares_dataset.py), imported here, then a DataLoader with two workers.
from squares_dataset import Squares
from torch.utils.data import DataLoader

loader = DataLoader(Squares(), batch_size=4, num_workers=2)
print("sum of squares:", sum(int(batch.sum()) for batch in loader))
