"""What a run is confined to, as a Linux container or job confines a training script: one
`Confinement` per way (base.py), each asked for by a size in the run's settings.

- `private_shm` (private_shm.py): a /dev/shm of its own, as Docker's `--shm-size` gives;
- `memory_cgroup` (memory_cgroup.py): a memory limit the kernel enforces, as `docker run --memory`,
  a Kubernetes pod's limit or a Slurm job's `--mem` does.

Each module of this package declares its confinements in `CONFINEMENTS`, and each declares itself
once (its option, its case.toml key, its words: base.py). The runner asks `made(settings)` for the
confinements of a run, wraps its command in each, lets each observe the ended run, and closes them;
`unavailable` says why a run cannot have what it asks for. Nothing outside this package names a
confinement: adding one is a module here (and its words in the site's translations).
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Mapping

from ..settings import RunSettings
from .base import Confined, Confinement

__all__ = ["ORDER", "Confined", "Confinement", "close", "made", "said", "unavailable", "wrapped"]


def _declared() -> tuple[Confinement, ...]:
    """The confinements the modules of this package declare, innermost first (by `order`): each
    wraps the command of those before it, so the last one holds them all (the shell that mounts a
    private /dev/shm, and every process it starts, is in the memory cgroup)."""
    found = [
        way
        for module in pkgutil.iter_modules(__path__)
        for way in getattr(importlib.import_module(f"{__name__}.{module.name}"), "CONFINEMENTS", ())
    ]
    return tuple(sorted(found, key=lambda way: way.order))


ORDER: tuple[Confinement, ...] = _declared()


def unavailable(settings: RunSettings, system: str, title: str) -> str:
    """Why a run with `settings` for a platform `system` (a profile's, titled `title`) cannot be
    confined as they ask here; "" when it can."""
    return next((why for way in ORDER if (why := way.unavailable(settings, system, title))), "")


def said(sizes: Mapping[str, float]) -> list[str]:
    """What `sizes` ({setting: size}, as `RunSettings.confined`) confine a run to, in words: ["with
    a /dev/shm of 64 MB", …]."""
    return [way.planned.format(size=sizes[way.setting]) for way in ORDER if way.setting in sizes]


def made(settings: RunSettings) -> list[Confined]:
    """The confinements `settings` ask for, made for one run, in ORDER; OSError where one cannot
    be (those already made are closed first)."""
    confined: list[Confined] = []
    try:
        for way in ORDER:
            if (size := way.size(settings)) is not None:
                confined.append(way.make(size))
    except OSError:
        close(confined)
        raise
    return confined


def wrapped(confined: list[Confined], command: list[str], env: dict) -> tuple[list[str], dict]:
    """`command` and its environment run inside every confinement of `confined`."""
    for each in confined:
        command, variables = each.wrap(command)
        env = {**env, **variables}
    return command, env


def close(confined: list[Confined]) -> list[str]:
    """Closes each confinement, outermost first; what is left of them, said."""
    return [left for each in reversed(confined) if (left := each.close())]
