"""Figures from the raw records: medians and spreads, the best setting, the autotune's ratios."""

from __future__ import annotations

import statistics


def spread(values: list[float]) -> dict:
    """Median, min, max and count of some measurements."""
    return {
        "median": round(statistics.median(values), 4),
        "min": round(min(values), 4),
        "max": round(max(values), 4),
        "n": len(values),
    }


def config_key(config: dict) -> str:
    """e.g. "4 workers, persistent, prefetch 2"; "0 workers" for in-process loading."""
    workers = config["num_workers"]
    if workers == 0:
        return "0 workers"
    persistent = "persistent" if config["persistent_workers"] else "not persistent"
    return f"{workers} workers, {persistent}, prefetch {config['prefetch_factor']}"


def throughput(config: dict, epochs: list[dict]) -> dict:
    """Samples/s per epoch, each from its iter() to its end: for workers that are not persistent,
    every epoch (each starts them again, as in training); otherwise the epochs after the first."""
    restarts = config["num_workers"] and not config["persistent_workers"]
    counted = epochs if restarts else epochs[1:] or epochs
    return spread([e["samples"] / e["epoch_s"] for e in counted])


def first_batches(records: list[dict]) -> dict[int, dict]:
    """Time to the first batch per worker count, over every epoch that started its workers: the
    first epoch of each setting, and every epoch of the non-persistent ones."""
    by_workers: dict[int, list[float]] = {}
    for record in records:
        config, epochs = record["config"], record["epochs"]
        starts = epochs if not config["persistent_workers"] and config["num_workers"] else epochs[:1]
        by_workers.setdefault(config["num_workers"], []).extend(e["first_batch_s"] for e in starts)
    return {workers: spread(values) for workers, values in sorted(by_workers.items())}


def summarise_sweep(records: list[dict]) -> dict:
    """One workload under one start method: throughput per setting, first batch per worker count,
    the best setting, and the sweep's total time."""
    settings = [r for r in records if "config" in r]
    rows = [
        {
            "config": r["config"],
            "key": config_key(r["config"]),
            "throughput": throughput(r["config"], r["epochs"]),
        }
        for r in settings
    ]
    best = config_key(best_config(settings))
    total = next((r["sweep_s"] for r in records if "sweep_s" in r), None)
    return {"settings": rows, "first_batch": first_batches(settings), "best": best, "sweep_s": total}


def best_config(records: list[dict]) -> dict:
    """The config of the setting with the highest median throughput."""
    settings = [r for r in records if "config" in r]
    best = max(settings, key=lambda r: throughput(r["config"], r["epochs"])["median"])
    return best["config"]


def recommended_config(workers: int) -> dict:
    """The setting the autotune recommends for a worker count: persistent workers, prefetch 2."""
    if workers == 0:
        return {"num_workers": 0, "persistent_workers": False, "prefetch_factor": None}
    return {"num_workers": workers, "persistent_workers": True, "prefetch_factor": 2}


def rate_of(sweep: dict, workers: int) -> float | None:
    """The sweep's median throughput at the setting the autotune recommends for that worker
    count (persistent workers, prefetch 2; for 0 workers the in-process figure)."""
    wanted = recommended_config(workers)
    return next((row["throughput"]["median"] for row in sweep["settings"] if row["config"] == wanted), None)


def judge_choice(sweep: dict, workers: int) -> dict:
    """How a choice of worker count compares with the best the sweep found (same other settings)."""
    best = max(row["throughput"]["median"] for row in sweep["settings"])
    rate = rate_of(sweep, workers)
    return {
        "num_workers": workers,
        "samples_per_s": rate,
        "share_of_best": round(rate / best, 3) if rate is not None else None,
    }


def summarise_autotune(
    sweep: dict, record: dict, heuristic_workers: int, side_by_side: dict | None = None
) -> dict:
    """The autotune's choice and time against the sweep's best and time; the heuristic beside it.

    Where the choice and the sweep's best setting were measured again in alternation
    (`side_by_side`: the best first), the choice's share of the best is that pair's ratio of
    medians, which a slow spell of the machine during the sweep does not skew; the sweep's own
    ratio is kept beside it.
    """
    chosen = judge_choice(sweep, record["num_workers"])
    if side_by_side is not None:
        best, mine = (statistics.median(entry["samples_per_s"]) for entry in side_by_side["side_by_side"])
        chosen["share_of_best_in_sweep"] = chosen["share_of_best"]
        chosen["share_of_best"] = round(mine / best, 3)
        chosen["side_by_side"] = side_by_side["side_by_side"]
    return {
        "chosen": chosen,
        "tried": record["tried"],
        "seconds": record["seconds"],
        "share_of_sweep_time": round(record["seconds"] / sweep["sweep_s"], 3) if sweep["sweep_s"] else None,
        "heuristic": judge_choice(sweep, heuristic_workers),
    }


def summarise_startup(records: list[dict]) -> dict[str, dict]:
    """Time to one worker's first batch per Dataset size, {megabytes: spread}."""
    by_size: dict[int, list[float]] = {}
    for record in records:
        by_size.setdefault(record["megabytes"], []).append(record["first_batch_s"])
    return {str(size): spread(values) for size, values in sorted(by_size.items())}
