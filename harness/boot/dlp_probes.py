"""Watches torch's DataLoader from outside the script: events that the harness reads after a run.

Each process appends lines to <probe_dir>/<pid>.events:
    worker_ready <time>              a DataLoader worker entered its loop (Dataset unpickled,
                                     before worker_init_fn)
    rng <seed> <worker> <path> <hash> <time>
                                     a generator's state as that worker of the loader iteration
                                     seeded `seed` starts (after worker_init_fn; see dlp_rng)
    size <path> <length> <time>      a list, tuple or dict the Dataset holds, and its length (worker 0)
    rng_used <seed> <worker> <path> <time>
                                     that generator's state had changed by the worker's first
                                     batch: the worker draws from it
    iter <epoch id> <length> <fd limit> <time>
                                     the script started iterating a DataLoader (an epoch) of
                                     `length` batches, under that soft open-file limit (- unknown)
    want <epoch id> <time>           the script asked that epoch for its next batch
    batch <epoch id> <n> <fds> <time>
                                     that epoch delivered its n-th batch; the process had `fds`
                                     open file descriptors then (- where that cannot be read)
    end <epoch id> <n> <time>        that epoch ended after n batches

The patches are applied when torch imports the modules, so a script that never imports torch
pays nothing. Functions keep their names, so spawn still pickles them by reference.
"""

import functools
import inspect
import itertools
import os
import sys
import time

_WORKER_MODULE = "torch.utils.data._utils.worker"
_LOADER_MODULE = "torch.utils.data.dataloader"
_iterator_ids = itertools.count(1)
_PATCHES = {}


class _PatchOnImport:
    """A meta path finder that calls `patches[name](module)` right after that module executes."""

    def __init__(self, patches):
        self.patches = patches

    def find_spec(self, fullname, path, target=None):
        patch = self.patches.get(fullname)
        if patch is None:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None and spec.loader is not None:
                break
        else:
            return None
        execute = spec.loader.exec_module

        def exec_module(module):
            execute(module)
            patch(module)

        spec.loader.exec_module = exec_module
        return spec


def patch_on_import(patches):
    """Calls `patches[name](module)` right after torch (or any module) executes module `name`."""
    if not _PATCHES:
        sys.meta_path.insert(0, _PatchOnImport(_PATCHES))
    _PATCHES.update(patches)


def _length(loader):
    try:
        return len(loader)
    except Exception:  # an IterableDataset without __len__
        return "-"


def _fd_limit():
    try:
        import resource

        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        return "-" if soft == resource.RLIM_INFINITY else soft
    except Exception:  # Windows: no such limit
        return "-"


_FD_DIRS = ("/proc/self/fd", "/dev/fd")


def _open_fds():
    for folder in _FD_DIRS:
        try:
            return len(os.listdir(folder)) - 1  # less the one listdir itself opened
        except OSError:
            continue
    return "-"


def install(probe_dir):
    def record(*fields):
        with open(os.path.join(probe_dir, f"{os.getpid()}.events"), "a") as events:
            events.write(" ".join(map(str, (*fields, time.time()))) + "\n")

    def patch_worker(module):
        original = getattr(module, "_worker_loop", None)
        if original is None:  # another torch layout: no marks, the harness falls back
            return

        signature = inspect.signature(original)

        @functools.wraps(original)
        def _worker_loop(*args, **kwargs):
            record("worker_ready")
            try:
                bound = signature.bind(*args, **kwargs)
                started = {}
                bound.arguments["init_fn"] = _fingerprinting(bound.arguments, started)
                bound.arguments["collate_fn"] = _noting_use(bound.arguments, started)
                args, kwargs = bound.args, bound.kwargs
            except (TypeError, KeyError):  # another torch layout: no fingerprints
                pass
            return original(*args, **kwargs)

        def _fingerprinting(arguments, started):
            """worker_init_fn, then the generators' states fingerprinted into `started`."""
            init_fn, dataset, seed = arguments["init_fn"], arguments["dataset"], arguments["base_seed"]

            def init(worker_id):
                if init_fn is not None:
                    init_fn(worker_id)
                import dlp_rng

                started.update(dlp_rng.fingerprints(dataset))
                for path, digest in started.items():
                    record("rng", seed, worker_id, path.replace(" ", "_"), digest)
                if worker_id == 0:
                    for path, size in dlp_rng.list_sizes(dataset).items():
                        record("size", path.replace(" ", "_"), size)

            return init

        def _noting_use(arguments, started):
            """collate_fn, and after its first call the generators whose state changed: drawn from."""
            collate, dataset, seed = arguments["collate_fn"], arguments["dataset"], arguments["base_seed"]
            worker_id, first = arguments["worker_id"], [True]

            def collate_fn(data):
                batch = collate(data)
                if first and started:
                    first.clear()
                    import dlp_rng

                    now = dlp_rng.fingerprints(dataset)
                    for path in (p for p, digest in started.items() if now.get(p) != digest):
                        record("rng_used", seed, worker_id, path.replace(" ", "_"))
                return batch

            return collate_fn

        module._worker_loop = _worker_loop

    def patch_loader(module):
        loader, base = getattr(module, "DataLoader", None), getattr(module, "_BaseDataLoaderIter", None)
        if loader is None or base is None:
            return
        original_iter, original_next = loader.__iter__, base.__next__

        @functools.wraps(original_iter)
        def __iter__(self):
            epoch = next(_iterator_ids)  # persistent workers reuse the iterator: count calls instead
            record("iter", epoch, _length(self), _fd_limit())
            iterator = original_iter(self)
            iterator._dlp_id, iterator._dlp_batches = epoch, 0
            return iterator

        @functools.wraps(original_next)
        def __next__(self):
            epoch = getattr(self, "_dlp_id", None)
            if epoch is None:  # an iterator not made by DataLoader.__iter__
                return original_next(self)
            record("want", epoch)
            try:
                batch = original_next(self)
            except StopIteration:
                record("end", epoch, self._dlp_batches)
                raise
            self._dlp_batches += 1
            record("batch", epoch, self._dlp_batches, _open_fds())
            return batch

        loader.__iter__, base.__next__ = __iter__, __next__

    patch_on_import({_WORKER_MODULE: patch_worker, _LOADER_MODULE: patch_loader})
