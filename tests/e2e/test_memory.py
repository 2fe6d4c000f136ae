"""Memory sampling and the leak verdict: measured worker growth against the case's threshold."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.linux


@pytest.mark.parametrize(("variant", "outcome"), [("broken", "leak"), ("fixed", "ok")])
def test_copy_on_read_growth_is_measured_under_fork(matrix_results, variant, outcome):
    result = matrix_results[("06_memory_growth", variant, "linux")]
    assert result.outcome == outcome, result.signature
    workers = result.memory["workers"]
    assert len(workers) == 2, "two workers"
    growth = max(w["growth_mb"] for w in workers.values())
    assert (growth > 40) if variant == "broken" else (growth < 20), workers
    assert all(p["samples"] for p in result.memory["processes"].values())
    serving = [p for p in result.memory["processes"].values() if p["role"] == "worker"]
    assert all(p["warm_s"] > p["ready_s"] for p in serving), "growth is judged past each worker's warm-up"


def test_spawn_workers_start_with_their_own_copy(matrix_results):
    broken = matrix_results[("06_memory_growth", "broken", "windows-emulated")].memory["workers"]
    fixed = matrix_results[("06_memory_growth", "fixed", "windows-emulated")].memory["workers"]
    broken_baseline = min(w["baseline_mb"] for w in broken.values())
    fixed_baseline = max(w["baseline_mb"] for w in fixed.values())
    assert broken_baseline > fixed_baseline + 80, (broken, fixed)
    assert all(w["growth_mb"] < 40 for w in broken.values())
