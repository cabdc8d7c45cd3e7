"""Exact operating characteristics of a ``max_group_gap`` rule (docs/methods/group-rules.md).

Shared by ``tests/rules/test_gap_oc.py`` and ``scripts/gap_operating_characteristics.py``.
With ``G`` groups of ``n`` cases each (every case with a prediction, no small cell), both
methods decide from Clopper-Pearson ends that rise with a group's count ``k``, so the
largest ``hi_i - lo_j`` over distinct groups is ``hi(k_max) - lo(k_min)`` and the
smallest possible largest gap ``lo(k_max) - hi(k_min)``: a rule's verdict depends on the
counts only through the smallest and the largest. The probability of each
``(k_min, k_max)`` is exact (inclusion-exclusion over ``prod_i P(a <= k_i <= b)``), so
``P(PASS)`` and ``P(FAIL)`` are sums, not simulations. Only the far tails are cut: each
group's counts are taken where its binomial mass lies, which leaves out less than
``1e-12`` of it.

* ``simultaneous`` (the default): PASS when ``hi(k_max) - lo(k_min) <= limit`` with the
  intervals at ``alpha / G``; FAIL when ``lo(k_max) - hi(k_min) > limit``, same intervals.
* ``pairwise``: PASS with the intervals at ``alpha`` (each pair's one-sided test at
  ``alpha``); FAIL as the default.

The tests check these sums against the engine's own verdicts at small ``n``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy import stats as sps

#: FNR everywhere, the limit and alpha of the published table.
RATE = 0.2
LIMIT = 0.05
ALPHA = 0.05
POWER = 0.8
GROUPS = (2, 6, 12)
METHODS = ("simultaneous", "pairwise")


def _ends(ks: np.ndarray, n: int, share: float) -> tuple[np.ndarray, np.ndarray]:
    """Clopper-Pearson ``(lo, hi)`` of ``k`` of ``n`` at two-sided level ``share``."""
    lo = np.where(ks > 0, sps.beta.ppf(share / 2, np.maximum(ks, 1), n - ks + 1), 0.0)
    hi = np.where(ks < n, sps.beta.ppf(1 - share / 2, ks + 1, np.maximum(n - ks, 1)), 1.0)
    return lo, hi


def _min_max(n: int, rates: Sequence[float]) -> tuple[np.ndarray, np.ndarray]:
    """The counts considered and ``P(k_min = a, k_max = b)`` over them."""
    lows = [int(sps.binom.ppf(1e-13, n, p)) for p in rates]
    highs = [int(sps.binom.isf(1e-13, n, p)) for p in rates]
    ks = np.arange(max(min(lows) - 1, 0), min(max(highs) + 1, n) + 1)
    # box[a, b] = prod_i P(a <= k_i <= b)
    box = np.ones((len(ks), len(ks)))
    for p in rates:
        cdf = sps.binom.cdf(ks, n, p)
        below = sps.binom.cdf(ks - 1, n, p)
        box *= np.clip(cdf[None, :] - below[:, None], 0.0, None)
    box = np.triu(box)
    pad = np.zeros((len(ks) + 1, len(ks) + 1))
    pad[:-1, :-1] = box
    # P(min = a, max = b) = B(a, b) - B(a+1, b) - B(a, b-1) + B(a+1, b-1)
    shifted_a = pad[1:, :-1]
    shifted_b = np.zeros_like(box)
    shifted_b[:, 1:] = box[:, :-1]
    shifted_ab = np.zeros_like(box)
    shifted_ab[:, 1:] = shifted_a[:, :-1]
    mass = box - shifted_a - shifted_b + shifted_ab
    return ks, np.triu(np.clip(mass, 0.0, None))


def verdict_probabilities(
    n: int, rates: Sequence[float], method: str, *, limit: float = LIMIT, alpha: float = ALPHA
) -> tuple[float, float]:
    """``(P(PASS), P(FAIL))`` of a gap rule over ``len(rates)`` groups of ``n`` cases."""
    g = len(rates)
    ks, mass = _min_max(n, rates)
    pass_share = alpha if method == "pairwise" else alpha / g
    lo_p, hi_p = _ends(ks, n, pass_share)
    lo_f, hi_f = _ends(ks, n, alpha / g)
    passes = hi_p[None, :] - lo_p[:, None] <= limit  # [a = k_min, b = k_max]
    fails = lo_f[None, :] - hi_f[:, None] > limit
    return float((mass * passes).sum()), float((mass * fails).sum())


def cases_for_power(
    g: int, method: str, *, power: float = POWER, rate: float = RATE, step: int = 25
) -> int:
    """The fewest cases per group (to 1) for ``P(PASS) >= power`` with every rate equal.

    Scanned on a grid of ``step`` and then case by case below the first grid point that
    reaches it (``P(PASS)`` rises with ``n`` but not strictly at every step: discrete).
    """
    n = step
    while verdict_probabilities(n, [rate] * g, method)[0] < power:
        n += step
    for m in range(max(n - step + 1, 2), n + 1):
        if verdict_probabilities(m, [rate] * g, method)[0] >= power:
            return m
    return n


def at_threshold(n: int, g: int, method: str) -> tuple[float, float]:
    """``(P(PASS), P(FAIL))`` with the largest gap exactly at the limit.

    One group at ``RATE + LIMIT``, the others at ``RATE``: a PASS here is the limit of a
    wrong PASS (any larger gap), a FAIL a wrong FAIL.
    """
    return verdict_probabilities(n, [RATE + LIMIT] + [RATE] * (g - 1), method)


def table() -> list[tuple[int, str, int, float, float]]:
    """``(G, method, n, wrong PASS, wrong FAIL)`` for every ``G`` and method."""
    rows = []
    for g in GROUPS:
        for method in METHODS:
            n = cases_for_power(g, method)
            wrong_pass, wrong_fail = at_threshold(n, g, method)
            rows.append((g, method, n, wrong_pass, wrong_fail))
    return rows
