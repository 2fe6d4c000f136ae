"""Watches torch's DataLoader from outside the script: events that the harness reads after a run.

Each process appends lines to <probe_dir>/<pid>.events:
    worker_ready <time>              a DataLoader worker entered its loop (Dataset unpickled,
                                     before worker_init_fn)
    iter <epoch id> <time>           the script started iterating a DataLoader (an epoch)
    want <epoch id> <time>           the script asked that epoch for its next batch
    batch <epoch id> <n> <time>      that epoch delivered its n-th batch
    end <epoch id> <n> <time>        that epoch ended after n batches

The patches are applied when torch imports the modules, so a script that never imports torch
pays nothing. Functions keep their names, so spawn still pickles them by reference.
"""

import functools
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


def install(probe_dir):
    def record(*fields):
        with open(os.path.join(probe_dir, f"{os.getpid()}.events"), "a") as events:
            events.write(" ".join(map(str, (*fields, time.time()))) + "\n")

    def patch_worker(module):
        original = getattr(module, "_worker_loop", None)
        if original is None:  # another torch layout: no marks, the harness falls back
            return

        @functools.wraps(original)
        def _worker_loop(*args, **kwargs):
            record("worker_ready")
            return original(*args, **kwargs)

        module._worker_loop = _worker_loop

    def patch_loader(module):
        loader, base = getattr(module, "DataLoader", None), getattr(module, "_BaseDataLoaderIter", None)
        if loader is None or base is None:
            return
        original_iter, original_next = loader.__iter__, base.__next__

        @functools.wraps(original_iter)
        def __iter__(self):
            epoch = next(_iterator_ids)  # persistent workers reuse the iterator: count calls instead
            record("iter", epoch)
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
            record("batch", epoch, self._dlp_batches)
            return batch

        loader.__iter__, base.__next__ = __iter__, __next__

    patch_on_import({_WORKER_MODULE: patch_worker, _LOADER_MODULE: patch_loader})
