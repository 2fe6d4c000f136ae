"""Shared fixtures: the catalog, and the whole case matrix run once through the harness."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from harness import matrix
from harness.cases import START_METHODS, VARIANTS, discover

TESTS_DIR = Path(__file__).resolve().parent
SCRIPTS_DIR = TESTS_DIR / "scripts"
OUTPUTS_DIR = TESTS_DIR / "outputs"
JOBS = max(2, os.cpu_count() or 1)


@pytest.fixture(scope="session")
def catalog():
    return discover()


@pytest.fixture(scope="session")
def matrix_results(catalog):
    """Every case × variant × start method, observed once (in parallel) for the whole session."""
    jobs = matrix.plan(catalog, list(VARIANTS), list(START_METHODS), timeout_s=None)
    return {result.key: result for result in matrix.run_all(jobs, JOBS)}
