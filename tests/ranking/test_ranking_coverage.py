"""The ranking intervals cover at or above their level where the block claims it.

The claim's conditions: a group with at least ``min_cell`` (100) items in at least
``min_lists`` (20) lists. Coverage is estimated by simulation with fixed seeds
(:mod:`tests.ranking.coverage`); a test passes when the data are consistent with
coverage at or above nominal (the one-sided 99% Clopper-Pearson upper bound of the
measured coverage reaches it), so Monte Carlo noise alone cannot fail it, while a real
shortfall of a point or two over thousands of intervals does.
"""

from __future__ import annotations

import pytest
from scipy import stats as sps
from tests.ranking.coverage import SHAPES, coverage


def _consistent(covered: float, n: int, nominal: float) -> bool:
    x = round(covered * n)
    upper = 1.0 if x == n else float(sps.beta.ppf(0.99, x + 1, n - x))
    return upper >= nominal


def test_coverage_small() -> None:
    """A fast version: 100 data sets of 40 lists of the rare-group shape, at 95%."""
    found = coverage(SHAPES[2], 40, 100, seed=7, min_items=0, truth_lists=40_000)
    for key, (value, n) in found.items():
        if key.endswith("ok") and n:
            assert _consistent(value, n, 0.95), (key, value, n)


@pytest.mark.slow
@pytest.mark.parametrize("n_lists", [20, 50, 150, 500])
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: s.name)
@pytest.mark.parametrize("confidence", [0.95, 0.99])
def test_coverage_full(shape, n_lists: int, confidence: float) -> None:
    """Every shape, few to many lists, at 95% and 99% (the Bonferroni levels' range)."""
    found = coverage(shape, n_lists, 600, seed=n_lists + 1, confidence=confidence)
    for key, (value, n) in found.items():
        if key.endswith("ok") and n:
            assert _consistent(value, n, confidence), (key, value, n)
