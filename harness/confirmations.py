"""Which expectations a real platform has confirmed: a results file recorded there, in which the
profile ran natively (nothing emulated) and matched its expectation."""

from __future__ import annotations

import functools
from pathlib import Path

from . import profiles, results


@functools.cache
def _confirmed(results_dir: Path) -> frozenset[tuple[str, str, str]]:
    """(case, variant, profile) of every native run that matched, over the results files there."""
    keys = set()
    for path in sorted(results_dir.glob("*.json")):
        try:
            recorded = results.load(path)
        except results.ResultsError:
            continue  # an older or damaged file confirms nothing; `run` and the site name it
        native = profiles.native_profiles(recorded.environment)
        keys.update(r.key for r in recorded.results if r.profile in native and r.matched and r.native)
    return frozenset(keys)


def confirmed(profile: str, case: str, variant: str, results_dir: Path = results.RESULTS_DIR) -> bool:
    return (case, variant, profile) in _confirmed(results_dir)
