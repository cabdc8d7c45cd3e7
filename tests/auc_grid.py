"""The AUC coverage grid: score shapes with a known true AUC, and rank sums of samples.

Shared by ``tests/stats/test_auc_coverage.py`` and ``scripts/auc_interval_coverage.py``
(which prints the methods page's table). Every shape has negatives scored ``N(0, 1)``
unless said otherwise, and a parameter solved so that the true AUC (ties counted half)
is the one asked for, exactly:

- ``binormal 1/3``, ``binormal 1``, ``binormal 3`` (and ``binormal 5``, ``binormal 10``
  outside the grid): positives ``N(d, r)`` with the spread ratio ``r`` of positives to
  negatives; ``AUC = Phi(d / sqrt(1 + r**2))``.
- ``bimodal``: positives an even mixture of ``N(mu - 1.5, 0.5)`` and ``N(mu + 1.5, 0.5)``;
  ``AUC = (Phi((mu - 1.5) / s) + Phi((mu + 1.5) / s)) / 2`` with ``s = sqrt(1.25)``.
- ``tied 5``: binormal with equal spreads, each score replaced by which of five levels it
  falls in (cut at ``0, d/3, 2d/3, d``); the true AUC is summed from the exact level
  probabilities, ties counted half.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from scipy.optimize import brentq
from scipy.stats import norm, rankdata

Sampler = Callable[[np.random.Generator, int, int], np.ndarray]

SHAPES = ("binormal 1/3", "binormal 1", "binormal 3", "bimodal", "tied 5")
#: Spread ratios of the binormal shapes; 5 and 10 are outside the grid, for the cells
#: that test the rule for when the distribution-free bound joins.
SPREADS = {"binormal 1/3": 1.0 / 3.0, "binormal 1": 1.0, "binormal 3": 3.0, "binormal 5": 5.0}
SPREADS["binormal 10"] = 10.0
_SEEDS = (*SHAPES, "binormal 5", "binormal 10")
#: (cases labelled 1, cases labelled 0); spread ratio 1/3 at 10 + 500 is, by symmetry,
#: spread ratio 3 at 500 + 10 (swap the labels and negate the scores).
SIZES = ((10, 10), (10, 500), (30, 30), (30, 300), (100, 100), (100, 1000), (1000, 1000))
AUCS = (0.6, 0.8, 0.9, 0.95, 0.99)
REPS = 2000


def _tied_levels(d: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    cuts = np.array([0.0, 1.0 / 3.0, 2.0 / 3.0, 1.0]) * d
    edges = np.concatenate([[-np.inf], cuts, [np.inf]])
    return cuts, np.diff(norm.cdf(edges, loc=d)), np.diff(norm.cdf(edges))


def tied_auc(d: float) -> float:
    """The exact AUC, ties half, of the five-level scores at separation ``d``."""
    _, p_pos, p_neg = _tied_levels(d)
    below = np.cumsum(p_neg) - p_neg
    return float(np.sum(p_pos * (below + p_neg / 2.0)))


def bimodal_auc(mu: float) -> float:
    """The exact AUC of the bimodal positives centred at ``mu`` against ``N(0, 1)``."""
    s = math.sqrt(1.25)
    return float(0.5 * norm.cdf((mu - 1.5) / s) + 0.5 * norm.cdf((mu + 1.5) / s))


def shape(name: str, target: float) -> tuple[float, Sampler, Sampler]:
    """``(true AUC, positives sampler, negatives sampler)`` for a shape at an AUC."""

    def negatives(rng: np.random.Generator, reps: int, k: int) -> np.ndarray:
        return rng.normal(0.0, 1.0, (reps, k))

    if name.startswith("binormal"):
        r = SPREADS[name]
        d = float(norm.ppf(target)) * math.sqrt(1.0 + r * r)

        def positives(rng: np.random.Generator, reps: int, k: int) -> np.ndarray:
            return rng.normal(d, r, (reps, k))

        return float(norm.cdf(d / math.sqrt(1.0 + r * r))), positives, negatives
    if name == "bimodal":
        mu = brentq(lambda t: bimodal_auc(t) - target, -20.0, 20.0, xtol=1e-14)

        def bimodal(rng: np.random.Generator, reps: int, k: int) -> np.ndarray:
            side = np.where(rng.random((reps, k)) < 0.5, -1.5, 1.5)
            return rng.normal(mu, 0.5, (reps, k)) + side

        return bimodal_auc(mu), bimodal, negatives
    if name == "tied 5":
        d = brentq(lambda t: tied_auc(t) - target, 1e-4, 30.0, xtol=1e-14)
        cuts = _tied_levels(d)[0]

        def tied_pos(rng: np.random.Generator, reps: int, k: int) -> np.ndarray:
            return np.searchsorted(cuts, rng.normal(d, 1.0, (reps, k))).astype(float)

        def tied_neg(rng: np.random.Generator, reps: int, k: int) -> np.ndarray:
            return np.searchsorted(cuts, rng.normal(0.0, 1.0, (reps, k))).astype(float)

        return tied_auc(d), tied_pos, tied_neg
    raise ValueError(name)


def rank_sums(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``twice_u``, ``sum(x**2)``, ``sum(v**2)`` of each row (positives ``x``, negatives ``y``).

    From midranks: a positive's ``negatives lower + negatives equal / 2`` is its rank in
    the pooled row minus its rank among the positives; a negative's ``positives higher +
    positives equal / 2`` is ``m`` minus the same for it. Doubled, they are integers.
    """
    m = x.shape[1]
    pooled = rankdata(np.concatenate([x, y], axis=1), axis=1)
    px = np.rint(2.0 * (pooled[:, :m] - rankdata(x, axis=1))).astype(np.int64)
    nv = np.rint(2.0 * m - 2.0 * (pooled[:, m:] - rankdata(y, axis=1))).astype(np.int64)
    return px.sum(axis=1), (px * px).sum(axis=1), (nv * nv).sum(axis=1)


def samples(
    name: str, m: int, n: int, target: float, reps: int = REPS
) -> tuple[float, list[tuple[int, int, int]]]:
    """The true AUC and ``reps`` samples' rank sums, from a seed fixed by the cell."""
    true, positives, negatives = shape(name, target)
    rng = np.random.default_rng([_SEEDS.index(name), m, n, round(target * 1000)])
    out: list[tuple[int, int, int]] = []
    chunk = max(1, 2_000_000 // (m + n))
    for start in range(0, reps, chunk):
        k = min(chunk, reps - start)
        u, sx, sv = rank_sums(positives(rng, k, m), negatives(rng, k, n))
        out.extend(zip(u.tolist(), sx.tolist(), sv.tolist(), strict=True))
    return true, out


def mc_error(coverage: float, reps: int = REPS) -> float:
    """The Monte Carlo standard error of a simulated coverage."""
    return math.sqrt(coverage * (1.0 - coverage) / reps)
