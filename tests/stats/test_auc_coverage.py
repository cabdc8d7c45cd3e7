"""The battery's AUC interval holds 93% coverage over a grid of score shapes and sizes.

The outside review (issue 25, point 3) found Newcombe's score interval covering 0.82 at
10 + 200 cases when the positives' scores spread three times as wide as the negatives'.
:func:`respai.stats.auc_interval` is the widest of Newcombe's, DeLong's on the logit
scale with a t quantile and, for small unbalanced samples, the distribution-free
Birnbaum-Klose bound when the smaller label expects fewer than 5 cases on the
wrong side. These tests simulate it (fixed seeds, true AUCs known exactly, see
``tests/auc_grid.py``) and cross-check every part against independent references.

Monte Carlo error: with 2,000 samples a cell, a true coverage of 0.95 is measured with a
standard error of 0.0049 (0.0057 at 0.93). Every cell of the full grid measured at least
0.94, so the 0.93 floor the tests assert sits about two standard errors under the lowest
cell.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import t as student_t
from sklearn.metrics import roc_auc_score
from statsmodels.stats.proportion import proportion_confint
from tests import auc_grid

from respai import stats

FLOOR = 0.93


def coverage(m: int, n: int, true: float, sums: list[tuple[int, int, int]]) -> float:
    """Share of samples whose :func:`stats.auc_interval` holds the true AUC."""
    hits = 0
    for u, sx, sv in sums:
        iv = stats.auc_interval(m, n, u, sx, sv)
        assert iv is not None and iv.method == stats.AUC_INTERVAL_METHOD
        hits += iv.lo <= true <= iv.hi
    return hits / len(sums)


def newcombe_coverage(m: int, n: int, true: float, sums: list[tuple[int, int, int]]) -> float:
    """The same for Newcombe's score interval alone (the interval of engine 0.3.0)."""
    inside: dict[int, bool] = {}
    for u, _, _ in sums:
        if u not in inside:
            iv = stats.auc_score_interval(m, n, u)
            assert iv is not None
            inside[u] = iv.lo <= true <= iv.hi
    return sum(inside[u] for u, _, _ in sums) / len(sums)


# -- the grid -------------------------------------------------------------------------------

#: The review's cells, and the smallest and most unbalanced corners: run on every commit.
FAST_CELLS = [
    ("binormal 3", 10, 200, 0.8),
    ("binormal 3", 10, 200, 0.6),
    ("binormal 3", 100, 100, 0.8),
    ("binormal 3", 10, 500, 0.8),
    ("binormal 1/3", 10, 10, 0.99),
    ("tied 5", 10, 10, 0.9),
]


@pytest.mark.parametrize(("name", "m", "n", "target"), FAST_CELLS)
def test_the_reviews_cells_cover(name: str, m: int, n: int, target: float) -> None:
    true, sums = auc_grid.samples(name, m, n, target)
    assert true == pytest.approx(target, abs=1e-9)
    assert coverage(m, n, true, sums) >= FLOOR, (name, m, n, target)


def test_newcombe_alone_undercovers_where_the_review_said() -> None:
    # the defect this interval mends: 0.82 in the review, and here
    true, sums = auc_grid.samples("binormal 3", 10, 200, 0.8)
    old = newcombe_coverage(10, 200, true, sums)
    new = coverage(10, 200, true, sums)
    assert old < 0.85 < FLOOR <= new, (old, new)


@pytest.mark.slow
@pytest.mark.parametrize("name", auc_grid.SHAPES)
def test_coverage_over_the_grid(name: str) -> None:
    # every size (10 + 10, 10 + 500 ... 1,000 + 1,000) and AUC 0.6 to 0.99 of one shape
    low: list[tuple[int, int, float, float]] = []
    for m, n in auc_grid.SIZES:
        for target in auc_grid.AUCS:
            true, sums = auc_grid.samples(name, m, n, target)
            found = coverage(m, n, true, sums)
            if found < FLOOR:
                low.append((m, n, target, found))
    assert not low, low


#: Beyond the grid: where Newcombe's and DeLong's logit interval together still fell to
#: 88-92% (a wide-spread smaller label expecting few cases on the wrong side, at larger
#: sizes and wider spreads than the grid's), the cells that set the bound's rule.
BEYOND = [
    ("binormal 3", 200, 2000, 0.99),
    ("binormal 3", 300, 3000, 0.99),
    ("binormal 3", 50, 2500, 0.95),
    ("binormal 5", 200, 2000, 0.99),
    ("binormal 10", 200, 350, 0.99),
    ("binormal 10", 30, 30, 0.9),
]


@pytest.mark.slow
@pytest.mark.parametrize(("name", "m", "n", "target"), BEYOND)
def test_coverage_beyond_the_grid(name: str, m: int, n: int, target: float) -> None:
    true, sums = auc_grid.samples(name, m, n, target)
    assert coverage(m, n, true, sums) >= FLOOR, (name, m, n, target)


def test_the_true_aucs_are_exact() -> None:
    # each shape's true AUC, against a large sample scored by scikit-learn (ties half)
    rng = np.random.default_rng(25)
    for name in auc_grid.SHAPES:
        for target in (0.6, 0.9):
            true, positives, negatives = auc_grid.shape(name, target)
            assert true == pytest.approx(target, abs=1e-9)
            x, y = positives(rng, 1, 200_000)[0], negatives(rng, 1, 200_000)[0]
            labels = np.r_[np.ones(x.size), np.zeros(y.size)]
            big = roc_auc_score(labels, np.r_[x, y])
            assert big == pytest.approx(true, abs=0.004), (name, target)


def test_grid_rank_sums_equal_every_pair() -> None:
    rng = np.random.default_rng(3)
    x = rng.integers(0, 4, (5, 7)).astype(float)
    y = rng.integers(0, 4, (5, 9)).astype(float)
    u, sx, sv = auc_grid.rank_sums(x, y)
    for i in range(5):
        px = [int(2 * (y[i] < a).sum() + (y[i] == a).sum()) for a in x[i]]
        nv = [int(2 * (x[i] > b).sum() + (x[i] == b).sum()) for b in y[i]]
        assert (u[i], sx[i], sv[i]) == (sum(px), sum(p * p for p in px), sum(v * v for v in nv))


# -- the parts, against independent references ----------------------------------------------


def direct(scores: list[int], labels: list[int]) -> tuple[int, int, float, float, float]:
    """``m``, ``n``, AUC and DeLong's two variance terms, from placement values directly."""
    s, y = np.array(scores, dtype=float), np.array(labels)
    pos, neg = s[y == 1], s[y == 0]
    m, n = pos.size, neg.size
    v10 = np.array([((neg < a).sum() + (neg == a).sum() / 2) / n for a in pos])
    v01 = np.array([((pos > b).sum() + (pos == b).sum() / 2) / m for b in neg])
    return m, n, float(v10.mean()), float(v10.var(ddof=1) / m), float(v01.var(ddof=1) / n)


def sums_of(scores: list[int], labels: list[int]) -> tuple[int, int, int, int, int]:
    """The five rank sums of the record, by comparing every pair."""
    pos = [a for a, k in zip(scores, labels, strict=True) if k == 1]
    neg = [b for b, k in zip(scores, labels, strict=True) if k == 0]
    px = [2 * sum(b < a for b in neg) + sum(b == a for b in neg) for a in pos]
    nv = [2 * sum(a > b for a in pos) + sum(a == b for a in pos) for b in neg]
    return len(pos), len(neg), sum(px), sum(p * p for p in px), sum(v * v for v in nv)


labelled = st.integers(4, 60).flatmap(
    lambda k: st.tuples(
        st.lists(st.integers(0, 12), min_size=k, max_size=k),
        st.lists(st.integers(0, 1), min_size=k, max_size=k),
    )
)


@settings(max_examples=200, deadline=None)
@given(labelled, st.sampled_from([0.8, 0.95, 0.99]))
def test_parts_equal_independent_references(
    case: tuple[list[int], list[int]], level: float
) -> None:
    scores, labels = case
    m, n, u2, sx, sv = sums_of(scores, labels)
    if m < 2 or n < 2:
        return
    _, _, auc, a, b = direct(scores, labels)
    # the point AUC: scikit-learn
    assert u2 / (2 * m * n) == pytest.approx(roc_auc_score(labels, scores), abs=1e-12)
    assert u2 / (2 * m * n) == pytest.approx(auc, abs=1e-12)
    # DeLong's standard error: the placement values' own variances
    found = stats.auc_from_rank_sums(m, n, u2, sx, sv)
    assert found is not None and found[2] is not None
    assert found[2] == pytest.approx(math.sqrt(a + b), rel=1e-9, abs=1e-12)
    # the logit part: the formula with scipy's t quantile at Welch-Satterthwaite df
    logit = stats.auc_logit_interval(m, n, u2, sx, sv, level)
    if 0 < auc < 1 and a + b > 1e-15:
        assert logit is not None
        df = max(1.0, (a + b) ** 2 / (a * a / (m - 1) + b * b / (n - 1)))
        q = student_t.ppf((1 + level) / 2, df)
        half = q * math.sqrt(a + b) / (auc * (1 - auc))
        centre = math.log(auc / (1 - auc))
        assert logit.lo == pytest.approx(1 / (1 + math.exp(half - centre)), abs=1e-9)
        assert logit.hi == pytest.approx(1 / (1 + math.exp(-half - centre)), abs=1e-9)
    elif auc in (0.0, 1.0) or a + b == 0:
        assert logit is None
    # the bound: statsmodels' Wilson interval for the AUC as a share of min(m, n)
    k = min(m, n)
    bound = stats.auc_bound_interval(m, n, u2, level)
    assert bound is not None
    wlo, whi = proportion_confint(auc * k, k, alpha=1 - level, method="wilson")
    assert bound.lo == pytest.approx(wlo, abs=1e-12) and bound.hi == pytest.approx(whi, abs=1e-12)
    # the interval the battery reads: the widest of its parts, the bound only when due
    iv = stats.auc_interval(m, n, u2, sx, sv, level)
    score = stats.auc_score_interval(m, n, u2, level)
    assert iv is not None and score is not None
    parts = [score] + ([logit] if logit else [])
    if k * min(auc, 1 - auc) < stats.AUC_BOUND_COUNT - 1e-9:
        parts.append(bound)
    elif k * min(auc, 1 - auc) > stats.AUC_BOUND_COUNT + 1e-9:
        assert not stats.auc_bound_joins(m, n, u2)
    assert iv.lo == min(p.lo for p in parts) and iv.hi == max(p.hi for p in parts)
    assert 0.0 <= iv.lo <= auc <= iv.hi <= 1.0
    assert iv.confidence == level and iv.method == stats.AUC_INTERVAL_METHOD


def even_squares(total: int, k: int) -> int:
    """``sum(x**2)`` of ``k`` integer placements summing to ``total``, as even as can be."""
    q, r = divmod(total, k)
    return r * (q + 1) ** 2 + (k - r) * q * q


@pytest.mark.parametrize(
    ("m", "n", "auc", "joins"),
    [
        (10, 500, 0.6, True),  # 10 x 0.4 = 4
        (10, 10, 0.55, True),  # every 10 + 10 sample but AUC 0.5 exactly
        (10, 10, 0.5, False),  # 10 x 0.5 = 5
        (100, 1000, 0.96, True),  # 100 x 0.04 = 4
        (100, 1000, 0.95, False),  # 100 x 0.05 = 5: not below
        (1000, 1000, 0.996, True),
        (1000, 1000, 0.99, False),
        (500, 10, 0.2, True),  # by the smaller label, and symmetric in the AUC
    ],
)
def test_the_bound_joins_below_five_cases_on_the_wrong_side(
    m: int, n: int, auc: float, joins: bool
) -> None:
    u2 = round(auc * 2 * m * n)
    assert stats.auc_bound_joins(m, n, u2) is joins
    # squares with that twice_u: the placements as even as integers allow
    sx, sv = even_squares(u2, m), even_squares(u2, n)
    iv = stats.auc_interval(m, n, u2, sx, sv)
    bound = stats.auc_bound_interval(m, n, u2)
    score = stats.auc_score_interval(m, n, u2)
    logit = stats.auc_logit_interval(m, n, u2, sx, sv)
    assert iv is not None and bound is not None and score is not None
    parts = [score, *([logit] if logit else []), *([bound] if joins else [])]
    assert (iv.lo, iv.hi) == (min(p.lo for p in parts), max(p.hi for p in parts))


def test_undefined_and_bad_arguments() -> None:
    assert stats.auc_interval(0, 5, 0, 0, 0) is None
    assert stats.auc_bound_interval(5, 0, 0) is None
    assert stats.auc_logit_interval(1, 5, 5, 25, 5) is None  # one positive: no variance
    assert stats.auc_logit_interval(3, 3, 0, 0, 3 * 36) is None  # AUC 0
    assert stats.auc_logit_interval(3, 3, 9, 27, 27) is None  # every score tied
    with pytest.raises(ValueError, match="outside"):
        stats.auc_interval(2, 2, 9, 0, 0)
    with pytest.raises(ValueError, match="outside"):
        stats.auc_bound_interval(2, 2, 9)
    with pytest.raises(ValueError, match=">= 0"):
        stats.auc_logit_interval(-1, 2, 0, 0, 0)
    with pytest.raises(ValueError, match="confidence"):
        stats.auc_interval(2, 2, 4, 8, 8, 1.0)
