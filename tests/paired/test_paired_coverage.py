"""Exact coverage of the paired interval, by enumerating every outcome.

For ``n`` pairs the counts ``(b, c, n - b - c)`` are multinomial with cell probabilities
``(p10, p01, p00)``; the coverage at a true ``(p10, p01)`` is the total probability of the
outcomes whose interval holds ``p01 - p10``. It is summed here over every outcome, not
simulated, with the multinomial probabilities written out from log-gamma (checked against
``scipy.stats.multinomial``), on a grid of true values that reaches into the sparse
corners (a few discordant pairs, all one way) where Wald-type intervals fail.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from numpy.typing import NDArray
from scipy.special import gammaln, ndtri
from scipy.stats import multinomial, poisson

from respai.paired.stats import PSEUDO, paired_difference_interval, widening

FloatArray = NDArray[np.float64]


def outcomes(n: int) -> tuple[FloatArray, FloatArray]:
    b, c = np.meshgrid(np.arange(n + 1), np.arange(n + 1), indexing="ij")
    keep = b + c <= n
    return b[keep].astype(float), c[keep].astype(float)


def true_grid(step: float) -> tuple[FloatArray, FloatArray]:
    """(p10, p01) with p10 + p01 <= 1: a regular grid plus points near 0 and 1."""
    g = np.r_[np.arange(0.0, 1.0 + 1e-9, step), 0.0005, 0.003, 0.007, 0.012, 0.017, 0.035]
    g = np.unique(np.r_[g, 1.0 - g])
    p10, p01 = np.meshgrid(g, g, indexing="ij")
    keep = p10 + p01 <= 1.0 + 1e-12
    return p10[keep], np.minimum(p01[keep], 1.0 - p10[keep])


def probabilities(
    n: int, b: FloatArray, c: FloatArray, p10: FloatArray, p01: FloatArray
) -> FloatArray:
    """Multinomial probabilities, outcomes by true values."""
    rest = n - b - c
    log_coef = gammaln(n + 1) - gammaln(b + 1) - gammaln(c + 1) - gammaln(rest + 1)

    def term(k: FloatArray, p: FloatArray) -> FloatArray:
        with np.errstate(divide="ignore", invalid="ignore"):
            out: FloatArray = np.where(k[:, None] > 0, k[:, None] * np.log(p[None, :]), 0.0)
        return out

    lp = log_coef[:, None] + term(b, p10) + term(c, p01) + term(rest, 1.0 - p10 - p01)
    return np.exp(lp)


def intervals(b: FloatArray, c: FloatArray, n: int, level: float) -> tuple[FloatArray, FloatArray]:
    """The library's interval for every outcome (vectorised, checked against the scalar)."""
    z = max(float(ndtri(1.0 - (1.0 - level) / 2.0)), float(ndtri(0.975)))
    p12, p21 = (b + PSEUDO) / (n + 2 * PSEUDO), (c + PSEUDO) / (n + 2 * PSEUDO)
    d = p21 - p12
    half = widening(n, z) * z * np.sqrt(np.maximum(p12 + p21 - d * d, 0.0) / (n + 2 * PSEUDO))
    return np.maximum(-1.0, d - half), np.minimum(1.0, d + half)


def min_coverage(n: int, level: float, p10: FloatArray, p01: FloatArray) -> tuple[float, int]:
    b, c = outcomes(n)
    lo, hi = intervals(b, c, n, level)
    prob = probabilities(n, b, c, p10, p01)
    delta = p01 - p10
    held = (lo[:, None] <= delta[None, :] + 1e-12) & (delta[None, :] - 1e-12 <= hi[:, None])
    cover = (held * prob).sum(axis=0)
    return float(cover.min()), int(cover.argmin())


def test_vectorised_interval_is_the_librarys() -> None:
    rng = np.random.default_rng(7)
    for _ in range(200):
        n = int(rng.integers(1, 300))
        b = int(rng.integers(0, n + 1))
        c = int(rng.integers(0, n - b + 1))
        level = float(rng.choice([0.9, 0.95, 0.975, 0.99, 0.999]))
        iv = paired_difference_interval(b, c, n, level)
        lo, hi = intervals(np.array([float(b)]), np.array([float(c)]), n, level)
        assert iv is not None
        assert iv.lo == pytest.approx(lo[0], abs=1e-12) and iv.hi == pytest.approx(
            hi[0], abs=1e-12
        )


def test_probabilities_are_multinomial() -> None:
    b, c = outcomes(12)
    p10, p01 = np.array([0.1, 0.0, 0.3]), np.array([0.25, 0.6, 0.7])
    prob = probabilities(12, b, c, p10, p01)
    assert prob.sum(axis=0) == pytest.approx([1.0, 1.0, 1.0], abs=1e-12)
    for j in range(3):
        cells = [p10[j], p01[j], 1.0 - p10[j] - p01[j]]
        for i in (0, 5, 40, len(b) - 1):
            want = multinomial.pmf([b[i], c[i], 12 - b[i] - c[i]], 12, cells)
            assert prob[i, j] == pytest.approx(want, rel=1e-9, abs=1e-300)


def test_bonett_price_falls_short_where_the_issue_says() -> None:
    """The old interval: 0.936 at 20 pairs with 10 one-way discordant pairs expected."""
    n = 20
    b, c = outcomes(n)
    z = float(ndtri(0.975))
    p12, p21 = (b + 1) / (n + 2), (c + 1) / (n + 2)
    d = p21 - p12
    half = z * np.sqrt((p12 + p21 - d * d) / (n + 2))
    prob = probabilities(n, b, c, np.array([0.5]), np.array([0.0]))[:, 0]
    held = (np.maximum(-1.0, d - half) <= -0.5) & (np.minimum(1.0, d + half) >= -0.5)
    assert round(float(prob[held].sum()), 3) == 0.936
    # and the new one holds 95% there
    lo, hi = intervals(b, c, n, 0.95)
    assert float(prob[(lo <= -0.5) & (hi >= -0.5)].sum()) >= 0.95


@pytest.mark.parametrize("level", [0.95, 0.99])
def test_exact_coverage_at_least_nominal_small_n(level: float) -> None:
    p10, p01 = true_grid(0.05)
    for n in range(1, 31):
        worst, _ = min_coverage(n, level, p10, p01)
        assert worst >= level, (n, level, worst)


@pytest.mark.slow
@pytest.mark.parametrize("level", [0.90, 0.95, 0.975, 0.99, 0.995, 0.999])
def test_exact_coverage_at_least_nominal_up_to_200(level: float) -> None:
    """Every n from 1 to 200, on a grid of step 0.025 plus sparse points (about 95 s a level)."""
    p10, p01 = true_grid(0.025)
    for n in range(1, 201):
        worst, at = min_coverage(n, level, p10, p01)
        assert worst >= level, (n, level, worst, p10[at], p01[at])


@pytest.mark.parametrize("level", [0.95, 0.99, 0.999])
def test_sparse_limit_for_large_n(level: float) -> None:
    """Beyond enumeration: many pairs, few discordant (b, c independent Poisson).

    As ``n`` grows with ``n * p10 -> l1`` and ``n * p01 -> l2`` the interval in units of
    ``1 / n`` tends to ``(c - b) +- w * z * sqrt(b + c + 4)`` with ``w`` the widening's limit;
    its coverage of ``l2 - l1`` is summed over all ``(b, c)``.
    """
    z = float(ndtri(1.0 - (1.0 - level) / 2.0))
    w = 1.0 + 0.1 * max(1.0, z / 1.959963984540054)
    assert widening(10**12, z) == pytest.approx(w, abs=1e-6)
    k = np.arange(150)
    bb, cc = np.meshgrid(k, k, indexing="ij")
    half = w * z * np.sqrt(bb + cc + 2 * PSEUDO)
    lams = np.r_[np.arange(0.0, 4.0, 0.25), np.arange(4.0, 50.0, 1.5)]
    pmf = poisson.pmf(k[None, :], lams[:, None])
    worst = 1.0
    for i, l1 in enumerate(lams):
        for j, l2 in enumerate(lams):
            t = l2 - l1
            held = (cc - bb - half <= t + 1e-9) & (t - 1e-9 <= cc - bb + half)
            worst = min(worst, float((pmf[i][:, None] * pmf[j][None, :])[held].sum()))
    assert worst >= level, worst


def test_width_against_bonett_price() -> None:
    """The price of the guarantee: about 12% wider at 100 pairs and 95%."""
    iv = paired_difference_interval(5, 5, 100, 0.95)
    assert iv is not None
    z = float(ndtri(0.975))
    bp = 2 * z * math.sqrt((6 / 102 + 6 / 102) / 102)
    assert 1.0 < (iv.hi - iv.lo) / bp < 1.25


def test_a_level_below_95_percent_gets_the_95_percent_interval() -> None:
    low = paired_difference_interval(3, 9, 40, 0.90)
    high = paired_difference_interval(3, 9, 40, 0.95)
    assert low is not None and high is not None
    assert (low.lo, low.hi, low.confidence) == (high.lo, high.hi, 0.90)
