"""Memory of a run's processes, sampled from outside at a steady interval.

Each process's unique set size (USS: the pages only it holds, what a forked worker gains by
copy-on-write) is sampled where the platform gives it, else its RSS. A DataLoader worker's
baseline is the median of its first three samples after it started serving (the boot module
marks that moment; a worker that forks a helper shares every page with it for an instant), so
a spawned worker's import of torch and its unpickled copy of the Dataset count as baseline, not
as growth.
"""

from __future__ import annotations

import contextlib
import itertools
import statistics
from dataclasses import dataclass, field

import psutil

from .processes import role

MB = 1024 * 1024
OTHER_CHILD = "other"  # a child of the script that is no DataLoader worker
CONFIRM_INTERVAL_S = 0.5  # how often a cheap sum over the limit is confirmed (MemoryMonitor.over)


def _uss_mb(process: psutil.Process) -> tuple[float, str]:
    """(MB, metric): the USS, where it can be read, else the RSS.

    psutil reads Linux's smaps_rollup, one consistent sum. (Summing /proc/PID/smaps per mapping,
    to leave out /dev/shm files, read a worker at 0.2 MB once in twelve runs while it changed.)
    """
    try:
        return process.memory_full_info().uss / MB, "uss"
    except (psutil.AccessDenied, AttributeError):
        return process.memory_info().rss / MB, "rss"


@dataclass
class ProcessSeries:
    role: str
    metric: str = "uss"  # what its samples measure: uss, or rss where USS cannot be read
    samples: list[tuple[float, float]] = field(default_factory=list)  # (seconds since start, MB)
    ready_s: float | None = None  # when a worker started serving
    warm_s: float | None = None  # when its warm-up was over (its WARM_BATCHES-th batch made)

    def since(self, start_s: float | None) -> list[float]:
        """Its samples (MB) from `start_s` on (all of them where None)."""
        return [mb for at, mb in self.samples if start_s is None or at >= start_s]


@dataclass
class MemoryMonitor:
    """Samples the workers of the run launched as `root_pid` each `interval_s`; reports the run's
    total memory (`resident`)."""

    root_pid: int
    started: float  # time.monotonic() at launch
    interval_s: float | None  # None: no series kept, only the total for the limit
    series: dict[int, ProcessSeries] = field(default_factory=dict)
    metric: str = "uss"
    peak_total_mb: float = 0.0
    roles: dict[int, str] = field(default_factory=dict)
    main_pid: int | None = None  # the script's interpreter, once the boot module named it
    warm: dict[int, float] = field(default_factory=dict)  # {pid: warm_s}, as the probes marked them
    confirmed_mb: float | None = None  # the proportional sum (`proportional`) that confirmed a limit
    _next_sample: float = 0.0
    _next_confirm: float = 0.0

    def over(self, tree: list[psutil.Process], now: float, limit_mb: float) -> bool:
        """Whether the run holds more than `limit_mb`: the cheap sum (`poll`) over it, confirmed by
        each process's proportional share of its own memory (`proportional`). The cheap sum counts
        every page a forked worker still shares with its parent once per process: a main process
        with torch imported and 64 forked workers (8 loaders of 8) summed 9,532 MB that way and
        834 MB proportionally, here (/tmp experiment of 7 Dec 2026, issue 69's closing note)."""
        if self.poll(tree, now) <= limit_mb:
            return False
        if self.confirmed_mb is not None and now < self._next_confirm:
            return self.confirmed_mb > limit_mb
        self._next_confirm = now + CONFIRM_INTERVAL_S  # a walk of every page table: not each tick
        total = 0.0
        for process in tree:
            with contextlib.suppress(psutil.Error, OSError):
                total += proportional(process)
        self.confirmed_mb = round(total, 1)
        return total > limit_mb

    def poll(self, tree: list[psutil.Process], now: float) -> float:
        """The run's memory in MB, summed over the processes in `tree` (`resident`); samples the
        workers' series when an interval has passed."""
        total = 0.0
        for process in tree:
            with contextlib.suppress(psutil.Error):
                total += resident(process.memory_info()) / MB
        self.peak_total_mb = max(self.peak_total_mb, total)
        if self.interval_s is not None and now >= self._next_sample:
            self._next_sample = now + self.interval_s
            self._sample(tree, now - self.started)
        return total

    def _sample(self, tree: list[psutil.Process], at_s: float) -> None:
        """Samples the workers only: USS is costly to read for a large process (the kernel walks
        its page tables), and the main process and helpers are not what a leak is judged on."""
        for process in tree:
            if self.main_pid is None and process.pid != self.root_pid:
                continue  # which process is the script's is not known yet
            if self.roles.get(process.pid) != "helper":  # a fork that execs becomes a helper later
                self.roles[process.pid] = role(process, (self.root_pid, self.main_pid or self.root_pid))
            if self.roles[process.pid] != "worker":
                self.series.pop(process.pid, None)  # sampled while it was still a copy of a worker
                continue
            try:
                megabytes, metric = _uss_mb(process)
            except psutil.Error:
                continue
            entry = self.series.setdefault(process.pid, ProcessSeries(role="worker"))
            if metric == "rss":  # one sample read as RSS makes the series RSS: not comparable with USS
                entry.metric = self.metric = "rss"
            entry.samples.append((round(at_s, 2), round(megabytes, 1)))

    def fewest_worker_samples(self) -> float:
        """The fewest memory samples any worker has so far past its warm-up: of the workers whose
        warm-up is over, where any is (a slower one is left out of the figures); else of every
        worker. Infinite where none is sampled (no worker yet, or no series kept): nothing to
        wait for."""
        workers = {pid: s for pid, s in self.series.items() if s.role == "worker"}
        warm = [len(s.since(self.warm[pid])) for pid, s in workers.items() if pid in self.warm]
        counts = warm or [len(s.samples) for s in workers.values()]
        return min(counts) if counts and self.interval_s is not None else float("inf")

    def mark_warm(self, warm: dict[int, float]) -> None:
        """Each worker's end of warm-up, {pid: seconds since the run started}, as marked so far."""
        self.warm.update(warm)

    def mark_ready(self, ready: dict[int, float], probes_ran: bool = False) -> None:
        """Sets each worker's start of service, {pid: seconds since the run started}. Where the
        probes ran (a DataLoader was iterated, or a worker marked), a process they did not mark is
        no DataLoader worker (a training process started with torch.multiprocessing, a Pool's):
        it is kept out of the workers' figures."""
        for pid, entry in self.series.items():
            if pid in ready:
                entry.ready_s = round(ready[pid], 2)
            elif ready or probes_ran:
                entry.role = OTHER_CHILD
            if pid in self.warm:
                entry.warm_s = round(self.warm[pid], 2)

    def to_json(self) -> dict:
        processes = {
            str(pid): {
                "role": s.role,
                "metric": s.metric,
                "ready_s": s.ready_s,
                "warm_s": s.warm_s,
                "samples": [list(x) for x in s.samples],
            }
            for pid, s in sorted(self.series.items())
        }
        return {
            "metric": self.metric,
            "interval_s": self.interval_s,
            "peak_total_mb": round(self.peak_total_mb, 1),
            "confirmed_mb": self.confirmed_mb,
            "processes": processes,
            "workers": worker_summary(processes),
        }


BASELINE_SAMPLES = 3


def resident(info) -> int:
    """What a process holds that the others do not map from the same file: its RSS less the pages
    it maps from files and shared memory (Linux's `shared`). Summing plain RSS counts every library
    once per process: case 19 (2 ranks, 4 workers) with PyPI's CUDA torch peaked at 4.3-4.7 GB of
    summed RSS, 2.0 GB without the shared pages (Debian sid chroot, two runs), and the limit of
    4 GB stopped it. Where psutil has no `shared`, RSS."""
    return info.rss - getattr(info, "shared", 0)


def proportional(process: psutil.Process) -> float:
    """A process's anonymous memory in MB, each page shared with other processes (after a fork)
    divided among them: Linux's Pss_Anon (/proc/PID/smaps_rollup, kernel 5.9+), so that the
    run's processes sum to what they hold together. Where it cannot be read, `resident`."""
    try:
        with open(f"/proc/{process.pid}/smaps_rollup", encoding="ascii") as rollup:
            for line in rollup:
                if line.startswith("Pss_Anon:"):
                    return int(line.split()[1]) / 1024
    except FileNotFoundError:
        pass
    return resident(process.memory_info()) / MB


def worker_summary(processes: dict) -> dict:
    """Per worker: baseline, peak, and growth, in MB, from the end of its warm-up on (its
    WARM_BATCHES-th batch: what it imports and allocates as it starts serving is no growth; on a
    busy machine that took more than the first samples), else from its start of service. Where
    any worker's warm-up was marked, a worker whose warm-up was not over is left out. The baseline
    is the median of the first BASELINE_SAMPLES samples: a worker that forks a helper
    (torch_shm_manager under the file_system strategy) shares every page with it for an instant,
    and its USS reads near 0 then. The rise across another worker's exit is not a worker's own
    (`_own_samples`)."""
    summary = {}
    marked = any(entry.get("warm_s") is not None for entry in processes.values())
    for pid, entry in processes.items():
        if entry["role"] != "worker" or not entry["samples"]:
            continue
        entry = {**entry, "samples": _own_samples(entry, processes)}
        if marked and entry.get("warm_s") is None:
            continue
        start = entry.get("warm_s") if marked else entry["ready_s"]
        serving = [mb for at, mb in entry["samples"] if start is None or at >= start]
        if not serving:
            continue
        baseline, peak = statistics.median(serving[:BASELINE_SAMPLES]), max(serving)
        summary[pid] = {
            "baseline_mb": baseline,
            "peak_mb": peak,
            "growth_mb": round(peak - baseline, 1),
            "late_growth_mb": _late_growth(serving),
            "served_growth_mb": _served_growth(entry),
            "metric": entry.get("metric", "uss"),
        }
    return summary


def _own_samples(entry: dict, processes: dict) -> list:
    """A worker's samples less what another worker's exit gave it: where a worker that lived beside
    it exited (last sampled before it), the rise over that exit (from the other's last sample that
    held its memory, to the first of this worker's samples after the other's last) is taken off
    every later sample. USS counts the pages no other process maps: a page the main process has
    since copied (writing it) and two workers still share becomes the survivor's own when the other
    exits, though the survivor wrote nothing. Here a forked worker read 13.4 MB after the main
    process's first training step and 59.9 MB once its sibling had exited (14.3 MB without that
    step: /tmp experiment of 7 Dec 2026, issue 69's closing note); a short epoch's shutdown,
    sampled between two workers' exits, was called a 37 MB leak. Only the rise across the exit is
    taken off: what the worker grew before and after it stays."""
    samples = entry["samples"]
    first, last = samples[0][0], samples[-1][0]
    windows = [
        _exit_window(other["samples"])
        for other in processes.values()
        if other is not entry
        and other["role"] == "worker"
        and other["samples"]
        and first <= other["samples"][-1][0] < last
    ]
    own, offset = [samples[0]], 0.0
    for (before_at, before_mb), (at, mb) in itertools.pairwise(samples):
        if any(at > start and before_at <= end for start, end in windows):  # it spans an exit
            offset += max(0.0, mb - before_mb)
        own.append([at, round(mb - offset, 1)])
    return own


def _exit_window(samples: list) -> tuple[float, float]:
    """(from, to): the seconds over which a worker exited: from its last sample that still held
    its memory (an exiting process's USS reads near 0 once the kernel released its pages) to its
    last sample."""
    held = statistics.median(mb for _, mb in samples) / 2
    kept = [at for at, mb in samples if mb >= held]
    return (kept[-1] if kept else samples[0][0]), samples[-1][0]


def _served_growth(entry: dict) -> float | None:
    """The growth from a worker's first sample once it started serving to its peak: with the
    warm-up in it, but also what a fast loader copied before its warm-up was over (shuffled reads
    copy a Dataset's pages within its first batches). None where its start of service is unknown."""
    ready = entry.get("ready_s")
    served = [mb for at, mb in entry["samples"] if ready is not None and at >= ready]
    return round(max(served) - served[0], 1) if served else None


def _late_growth(serving: list[float]) -> float | None:
    """The growth over the second half of a worker's samples once serving (from the median of the
    first BASELINE_SAMPLES of that half to its peak): a worker that grows as it reads grows there
    too; one that settled after its first batches (allocator pools, torch's first shared-memory
    batches) does not. None with too few samples for two halves."""
    half = serving[len(serving) // 2 :]
    if len(half) < BASELINE_SAMPLES + 1:
        return None
    return round(max(half) - statistics.median(half[:BASELINE_SAMPLES]), 1)


def largest_growth(memory: dict) -> tuple[float, float, str] | None:
    """(growth, baseline, metric) in MB of the worker that grew most; None without worker samples.
    The metric is "rss" when any worker's memory could only be read as RSS."""
    workers = memory.get("workers") or {}
    if not workers:
        return None
    worst = max(workers.values(), key=lambda w: w["growth_mb"])
    metric = "rss" if any(w.get("metric") == "rss" for w in workers.values()) else "uss"
    return worst["growth_mb"], worst["baseline_mb"], metric


def machine_oom_kills() -> int | None:
    """How many processes the kernel's OOM killer has ended on this machine since it booted, or
    in the cgroup the harness runs in (Linux's /proc/vmstat `oom_kill`); None where unreadable."""
    try:
        with open("/proc/vmstat", encoding="ascii") as vmstat:
            for line in vmstat:
                if line.startswith("oom_kill "):
                    return int(line.split()[1])
    except (OSError, ValueError):
        return None
    return None
