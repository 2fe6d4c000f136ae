"""Each sample is decoded tile by tile on a thread pool inside __getitem__; two workers."""

from concurrent.futures import ThreadPoolExecutor

from torch.utils.data import DataLoader, Dataset


def decode_tile(tile):
    return sum(range(tile * 1000))  # stands for decoding one tile of a large image


class TiledImages(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, index):
        tiles = range(index * 4, index * 4 + 4)
        with ThreadPoolExecutor(2) as pool:  # threads: a DataLoader worker may not have children
            return sum(pool.map(decode_tile, tiles))


def main():
    loader = DataLoader(TiledImages(), batch_size=4, num_workers=2)
    samples = [value for batch in loader for value in batch.tolist()]
    print(f"{len(samples)} samples decoded")


if __name__ == "__main__":
    main()
