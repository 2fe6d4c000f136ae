"""Workers that draw the same numbers (case 09): their generators' states, compared."""

from __future__ import annotations

from ..results import RunResult
from .verdict import CONFIRMED, REFUTED, UNKNOWN, Measurement, worst


def randomness(results: list[RunResult], case=None) -> Measurement:
    """Workers that draw the same numbers: two workers of one loader iteration whose generator
    ended their first batch in the same state, or a worker whose generator ended it in the same
    state in iterations the loader seeded differently (later epochs, other runs): its draws do
    not follow the loader's seed, so each epoch repeats them. Judged on what was drawn, not on
    the state a generator started from (a library may reseed it per item)."""
    found = [m for result in results for m in _across_workers(result)]
    if found:
        found.append(_across_seeds(results))
    measured = worst(found, "no loader ran with two workers or more: nothing to compare")
    return Measurement(REFUTED, "; ".join(m.text for m in found)) if measured.refuted else measured


def _across_workers(result: RunResult) -> list[Measurement]:
    found = []
    for paths in result.rng.values():
        workers = set().union(*(entry["states"] for entry in paths.values()))
        if len(workers) < 2:
            continue
        repeats = [r for r in (_repeated(path, entry) for path, entry in sorted(paths.items())) if r]
        if repeats:
            found.append(Measurement(CONFIRMED, f"{result.profile}: " + "; ".join(repeats)))
            continue
        text = (
            f"{result.profile}: {len(workers)} workers drew different numbers from each of "
            f"{len(paths)} random generators ({', '.join(sorted(paths))}), or never drew from it"
        )
        found.append(Measurement(REFUTED, text))
    return found


def _across_seeds(results: list[RunResult]) -> Measurement:
    """A worker's generator that ended its first batch in the same state under different loader
    seeds (epochs, runs); unknown where no worker was seen under two seeds."""
    compared = {key: by_end for key, by_end in _ends(results).items() if len(_seeds(by_end.values())) > 1}
    if not compared:
        return Measurement(
            UNKNOWN,
            "no worker's generators were seen in two loader iterations seeded differently: whether "
            "its draws repeat in every epoch is not known (run two epochs)",
        )
    for (worker, path), by_end in sorted(compared.items()):
        repeated = next((runs for runs in by_end.values() if len(_seeds([runs])) > 1), None)
        if repeated:
            profiles = sorted({profile for profile, _ in repeated})
            where = ", ".join(f"{p}: {sum(p == profile for profile, _ in repeated)}" for p in profiles)
            return Measurement(
                CONFIRMED,
                f"`{path}` ended worker {worker}'s first batch in the same state in "
                f"{len(_seeds([repeated]))} loader iterations seeded differently ({where}): its draws "
                "do not follow the loader's seed, so every epoch (and every run) repeats them",
            )
    iterations = len(_seeds(runs for by_end in compared.values() for runs in by_end.values()))
    return Measurement(
        REFUTED,
        f"each worker drew differently from its generators in each of {iterations} loader iterations "
        "seeded differently (epochs and runs)",
    )


def _ends(results: list[RunResult]) -> dict[tuple[str, str], dict[str, set[tuple[str, str]]]]:
    """{(worker id, generator path): {its state after the first batch: {(profile, loader seed)}}}."""
    ends: dict[tuple[str, str], dict[str, set[tuple[str, str]]]] = {}
    for result in results:
        for seed, paths in result.rng.items():
            for path, entry in paths.items():
                for worker, digest in entry.get("ends", {}).items():
                    ends.setdefault((worker, path), {}).setdefault(digest, set()).add((result.profile, seed))
    return ends


def _seeds(runs) -> set[str]:
    return {seed for group in runs for _, seed in group}


def alike(digests: dict[str, str]) -> list[list[str]]:
    """The groups of two workers or more with the same hash, from {worker: hash}."""
    by_digest: dict[str, list[str]] = {}
    for worker, digest in sorted(digests.items()):
        by_digest.setdefault(digest, []).append(worker)
    return [workers for workers in by_digest.values() if len(workers) > 1]


def _repeated(path: str, entry: dict) -> str:
    """Workers whose generator `path` ended their first batch in the same state: they drew the
    same numbers (results recorded before the end states: started alike and drew)."""
    if "ends" in entry:
        same, said = alike(entry["ends"]), "ended its first batch in the same state"
    else:
        same = [workers for workers in alike(entry["states"]) if set(workers) & set(entry["used"])]
        said = "started from the same state"
    if not same:
        return ""
    groups = " and ".join(", ".join(workers) for workers in same)
    return f"`{path}` {said} in workers {groups}, which drew from it"
