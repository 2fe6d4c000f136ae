"""Watches torch's DataLoader from outside the script: events that the harness reads after a run.

Each process appends lines to <probe_dir>/<pid>.events:
    worker_ready <time>              a DataLoader worker entered its loop (Dataset unpickled,
                                     before worker_init_fn)
    worker_warm <time>               that worker collated its second batch: what it imports and
                                     allocates as it starts serving is behind it (dlp_worker)
    rng <seed> <worker> <path> <hash> <time>
                                     a generator's state as that worker of the loader iteration
                                     seeded `seed` starts (after worker_init_fn; see dlp_rng)
    size <path> <length> <bytes> <time>
                                     a list, tuple or dict the Dataset holds, its length and about
                                     how many bytes its Python objects take (worker 0)
    first_batch <seed> <worker> <hash> <time>
                                     a hash of the first batch an IterableDataset's worker made
    items <seed> <worker> <hashes> <time>
                                     a hash of each item of an IterableDataset worker's batch
                                     (comma-separated; "+" once the rest were left out)
    items_end <seed> <worker> <dropped> <batch size> <time>
                                     that worker's share of the stream ended; its fetcher
                                     dropped that many items no batch took (drop_last)
    rng_used <seed> <worker> <path> <hash> <time>
                                     that generator's state had changed by the worker's first
                                     batch (the worker draws from it), and a hash of it then
    iter <epoch id> <length> <fd limit> <time>
                                     the script started iterating a DataLoader (an epoch) of
                                     `length` batches, under that soft open-file limit (- unknown)
    want <epoch id> <time>           the script asked that epoch for its next batch
    batch <epoch id> <n> <fds> <time>
                                     that epoch delivered its n-th batch; the process had `fds`
                                     open file descriptors then (- where that cannot be read)
    end <epoch id> <n> <time>        that epoch ended after n batches
    shutdown <epoch id> <time>       that epoch's iterator shuts its workers down (exhausted
                                     without persistent workers, abandoned, or deleted)
    import_main, import_effect       a process imports the main script again, and what its top
                                     level did to files, folders and the network then (dlp_imports)
    samples <dataset> <worker> <indices> <digests> <batch> <drew>
                                     a map-style Dataset's batch in a worker: a digest of
                                     each sample by index, of the batch, and whether it drew
                                     random numbers meanwhile (dlp_samples)
    logging_setup, log               how logging is set up in the main process, and what became
                                     of each record a worker logged (dlp_logging)

The patches are applied when torch imports the modules, so a script that never imports torch
pays nothing. Functions keep their names, so spawn still pickles them by reference.
"""

import contextlib
import functools
import itertools
import os
import sys
import time

import dlp_contract as contract

_WORKER_MODULE = "torch.utils.data._utils.worker"
_LOADER_MODULE = "torch.utils.data.dataloader"
_iterator_ids = itertools.count(1)
_loader_ids = itertools.count(1)
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
    def record(kind, *fields):
        if len(fields) != len(contract.EVENT_FIELDS[kind]):  # KeyError: a kind not in the contract
            raise ValueError(f"event {kind!r} takes {contract.EVENT_FIELDS[kind]}, not {fields}")
        fields = (kind, *fields)
        with open(os.path.join(probe_dir, f"{os.getpid()}{contract.EVENTS_SUFFIX}"), "a") as events:
            events.write(" ".join(map(str, (*fields, time.time()))) + "\n")

    def patch_loader(module):
        loader, base = getattr(module, "DataLoader", None), getattr(module, "_BaseDataLoaderIter", None)
        if loader is None or base is None:
            return
        original_iter, original_next = loader.__iter__, base.__next__

        @functools.wraps(original_iter)
        def __iter__(self):
            epoch = next(_iterator_ids)  # persistent workers reuse the iterator: count calls instead
            if "_dlp_loader" not in self.__dict__:  # a training and a validation loader are two
                self.__dict__["_dlp_loader"] = next(_loader_ids)
            record("iter", epoch, _length(self), _fd_limit(), self.__dict__["_dlp_loader"])
            if epoch == 1 and getattr(self, "num_workers", 0):
                import dlp_logging

                dlp_logging.record_setup(record)
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
        patch_shutdown(getattr(module, "_MultiProcessingDataLoaderIter", None))

    def patch_shutdown(iterator_class):
        """Records when an epoch's iterator shuts its workers down: the wait that follows (a
        bounded join of each worker) asks for no batch."""
        original = getattr(iterator_class, "_shutdown_workers", None)
        if original is None:
            return

        @functools.wraps(original)
        def _shutdown_workers(self):
            epoch = getattr(self, "_dlp_id", None)
            if epoch is not None and not getattr(self, "_shutdown", True):
                with contextlib.suppress(Exception):  # at interpreter exit open() may be gone
                    record("shutdown", epoch)
            return original(self)

        iterator_class._shutdown_workers = _shutdown_workers

    def patch_worker(module):
        import dlp_worker

        dlp_worker.patch(module, record)

    patch_on_import({_WORKER_MODULE: patch_worker, _LOADER_MODULE: patch_loader})
    import dlp_imports

    dlp_imports.watch(record)
