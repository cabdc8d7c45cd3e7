"""The paired test's statistics against scipy, statsmodels and simulation."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binomtest, norm
from tests.references import holm_adjusted

from respai.paired.stats import (
    holm,
    mcnemar_exact,
    mcnemar_one_sided,
    paired_difference_interval,
)

counts = st.integers(min_value=0, max_value=400)


@given(counts, counts)
@settings(max_examples=200, deadline=None)
def test_mcnemar_matches_scipy_binomtest(b: int, c: int) -> None:
    if b + c == 0:
        assert mcnemar_exact(b, c) == 1.0 and mcnemar_one_sided(b, c) == 1.0
        return
    assert mcnemar_exact(b, c) == pytest.approx(binomtest(b, b + c, 0.5).pvalue, rel=1e-9)
    greater = binomtest(b, b + c, 0.5, alternative="greater").pvalue
    assert mcnemar_one_sided(b, c) == pytest.approx(greater, rel=1e-9)


@given(st.lists(st.floats(min_value=0.0, max_value=1.0), min_size=1, max_size=30))
@settings(max_examples=200, deadline=None)
def test_holm_matches_statsmodels(p: list[float]) -> None:
    assert holm(p) == pytest.approx(holm_adjusted(p), abs=1e-12)


@given(counts, counts, st.integers(min_value=0, max_value=400))
@settings(max_examples=200, deadline=None)
def test_interval_formula_rederived(b: int, c: int, extra: int) -> None:
    n = b + c + extra
    iv = paired_difference_interval(b, c, n, 0.95)
    if n == 0:
        assert iv is None
        return
    assert iv is not None
    # Bonett and Price (2012), eq. 4, with two pseudo-pairs each way and the widening
    # 1 + (0.1 + 0.2 / sqrt(n)) (at 95%), written out independently
    z = norm.ppf(0.975)
    p12, p21 = (b + 2) / (n + 4), (c + 2) / (n + 4)
    se = (1 + 0.1 + 0.2 / math.sqrt(n)) * math.sqrt((p12 + p21 - (p12 - p21) ** 2) / (n + 4))
    assert iv.lo == pytest.approx(max(-1.0, (p21 - p12) - z * se), abs=1e-12)
    assert iv.hi == pytest.approx(min(1.0, (p21 - p12) + z * se), abs=1e-12)
    assert -1.0 <= iv.lo <= iv.hi <= 1.0
    assert iv.hi > iv.lo  # never a point, even at b = c = 0


def test_no_discordant_pair_still_has_width() -> None:
    iv = paired_difference_interval(0, 0, 20, 0.95)
    assert iv is not None and iv.lo < -0.05 and iv.hi > 0.05


@pytest.mark.parametrize("n", [30, 100])
@pytest.mark.parametrize(
    "cells",
    [
        (0.40, 0.10, 0.10, 0.40),  # no difference, half discordant
        (0.45, 0.05, 0.05, 0.45),
        (0.30, 0.20, 0.05, 0.45),  # the variant 15 points lower
        (0.85, 0.05, 0.00, 0.10),  # rare discordance, one direction only
    ],
)
def test_interval_covers_at_nominal_rate(n: int, cells: tuple[float, ...]) -> None:
    """Simulated coverage of the 95% interval is near nominal (fixed seed)."""
    rng = np.random.default_rng(20261202)
    reps = 4000
    draws = rng.multinomial(n, cells, size=reps)
    true = cells[2] - cells[1]  # variant minus reference: p(0,1) - p(1,0)
    hit = 0
    for _both, b, c, _neither in draws:
        iv = paired_difference_interval(int(b), int(c), n, 0.95)
        assert iv is not None
        hit += iv.lo <= true <= iv.hi
    assert hit / reps >= 0.93


def test_the_coverage_check_can_fail_the_plain_wald_interval() -> None:
    """The same simulation rejects the unadjusted Wald interval where it is known to fail."""
    rng = np.random.default_rng(20261202)
    n, cells, reps = 30, (0.85, 0.05, 0.00, 0.10), 4000
    z = norm.ppf(0.975)
    hit = 0
    for _both, b, c, _neither in rng.multinomial(n, cells, size=reps):
        d = (c - b) / n
        se = math.sqrt(max((b + c) / n - d * d, 0.0) / n)
        hit += d - z * se <= cells[2] - cells[1] <= d + z * se
    assert hit / reps < 0.93
