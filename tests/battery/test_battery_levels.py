"""The battery's intervals at a level other than 95% (``familywise: bonferroni``).

Under family-wise control each test is decided at ``alpha / m``, so every interval the
battery decides on takes its level from the run instead of a fixed 95%. Each one is
checked against an independent reference at random levels: statsmodels' Wilson interval
(``proportion_confint(method="wilson")``) for the shares, statsmodels' Clopper-Pearson
(``method="beta"``) for the spread tests' simultaneous intervals and the bounds built
from them, and Newcombe's score interval found by root finding for the AUC.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction
from statistics import NormalDist

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import brentq
from statsmodels.stats.proportion import proportion_confint

from respai import stats
from respai.battery import (
    DEFAULT_THRESHOLDS,
    accuracy,
    auc,
    class_balance,
    completeness,
    missing_decisions,
    run_battery,
)
from respai.counts import Cell, RankSums, Row, build_counts

LEVELS = st.sampled_from([0.9, 0.99, 0.995, 1 - 0.05 / 7, 1 - 0.05 / 23, 0.9999])


def _wilson(k: int, n: int, confidence: float) -> tuple[float, float]:
    lo, hi = proportion_confint(k, n, alpha=1 - confidence, method="wilson")
    return float(lo), float(hi)


def _beta(k: int, n: int, alpha: float) -> tuple[float, float]:
    lo, hi = proportion_confint(k, n, alpha=alpha, method="beta")
    return (0.0 if k == 0 else float(lo)), (1.0 if k == n else float(hi))


@settings(max_examples=150, deadline=None)
@given(
    n=st.integers(1, 400),
    data=st.data(),
    confidence=LEVELS,
)
def test_share_tests_are_statsmodels_wilson_at_the_level(
    n: int, data: st.DataObject, confidence: float
) -> None:
    k = data.draw(st.integers(0, n))
    missing = data.draw(st.integers(0, 20))
    # accuracy: k right of n with a prediction, the missing ones at their worst each side
    cell = Cell(tp=k, fp=n - k, missing_neg=missing)
    t = accuracy(cell, DEFAULT_THRESHOLDS["accuracy"], confidence)
    assert t.interval is not None and t.interval.confidence == confidence
    total = n + missing
    assert t.interval.lo == pytest.approx(_wilson(k, total, confidence)[0], abs=1e-12)
    assert t.interval.hi == pytest.approx(_wilson(k + missing, total, confidence)[1], abs=1e-12)
    # missing decisions and class balance: k of n cases
    t = missing_decisions(
        Cell(tn=n, missing_neg=k), DEFAULT_THRESHOLDS["missing_decisions"], confidence
    )
    assert t.interval is not None
    assert (t.interval.lo, t.interval.hi) == pytest.approx(
        _wilson(k, n + k, confidence), abs=1e-12
    )
    t = class_balance(Cell(tp=k, tn=n - k), DEFAULT_THRESHOLDS["class_balance"], confidence)
    assert t.interval is not None
    minority = min(k, n - k)
    assert (t.interval.lo, t.interval.hi) == pytest.approx(
        _wilson(minority, n, confidence), abs=1e-12
    )
    # the method sentence names the level
    assert f"{confidence * 100:.4g}% Wilson" in t.method


@settings(max_examples=40, deadline=None)
@given(cases=st.integers(1, 300), empty=st.data(), confidence=LEVELS)
def test_completeness_is_statsmodels_wilson_over_cells(
    cases: int, empty: st.DataObject, confidence: float
) -> None:
    rows = [Row(("a",), (None,), 1, 1, None, cases)]
    counts = build_counts(rows, {"g": ["a"]}, [("g",)], None)
    nulls = empty.draw(st.integers(0, cases))
    counts = replace(counts, null_cells={"y": nulls, "p": 0, "g": 0})
    t = completeness(counts, DEFAULT_THRESHOLDS["completeness"], confidence)
    assert t.interval is not None
    cells = 3 * cases
    assert (t.interval.lo, t.interval.hi) == pytest.approx(
        _wilson(cells - nulls, cells, confidence), abs=1e-12
    )


@settings(max_examples=60, deadline=None)
@given(
    groups=st.lists(st.tuples(st.integers(1, 200), st.floats(0, 1)), min_size=2, max_size=4),
    share=st.sampled_from([Fraction(1, 20), Fraction(1, 140), Fraction(1, 200)]),
)
def test_spread_bounds_are_statsmodels_clopper_pearson_at_alpha_over_m(
    groups: list[tuple[int, float]], share: Fraction
) -> None:
    names = [f"g{i}" for i in range(len(groups))]
    rows = []
    picks = []
    for name, (n, p) in zip(names, groups, strict=True):
        k = round(n * p)
        picks.append((k, n))
        rows += [Row((name,), (None,), 1, 1, None, k)] if k else []
        rows += [Row((name,), (None,), 0, 0, None, n - k)] if n - k else []
    counts = build_counts(rows, {"g": names}, [("g",)], None)
    found = {
        t.test_id: t
        for t in run_battery(
            counts, ["impact_ratio", "selection_rate_diff"], DEFAULT_THRESHOLDS, share
        )
    }
    alpha_g = float(share / len(groups))
    ends = [_beta(k, n, alpha_g) for k, n in picks]
    rows_out = found["selection_rate_diff"].details["groups"]
    for row, (lo, hi) in zip(rows_out, ends, strict=True):
        assert row["interval_simultaneous"]["lo"] == pytest.approx(lo, abs=1e-9)
        assert row["interval_simultaneous"]["hi"] == pytest.approx(hi, abs=1e-9)
    diff = found["selection_rate_diff"].interval
    assert diff is not None and diff.confidence == pytest.approx(1 - float(share))
    los, his = [e[0] for e in ends], [e[1] for e in ends]
    assert diff.hi == pytest.approx(max(his) - min(los), abs=1e-9)
    assert diff.lo == pytest.approx(max(0.0, max(los) - min(his)), abs=1e-9)
    ratio = found["impact_ratio"].interval
    if ratio is not None and max(his) > 0:
        assert ratio.lo == pytest.approx(min(los) / max(his), abs=1e-9)


def _newcombe(m: int, n: int, twice_u: int, z: float) -> tuple[float, float]:
    """Newcombe's score interval by root finding (Hanley-McNeil variance, his N*)."""
    est = twice_u / (2 * m * n)
    star = (m + n) / 2 - 1

    def g(t: float) -> float:
        q1, q2 = t / (2 - t), 2 * t * t / (1 + t)
        v = (t * (1 - t) + star * (q1 - t * t) + star * (q2 - t * t)) / (m * n)
        return (est - t) ** 2 - z * z * v

    lo = 0.0 if est == 0 else brentq(g, 0.0, min(est, 1 - 1e-12), xtol=1e-15)
    hi = 1.0 if est == 1 else brentq(g, max(est, 1e-12), 1.0, xtol=1e-15)
    return lo, hi


@settings(max_examples=60, deadline=None)
@given(
    pos=st.lists(st.integers(0, 6), min_size=10, max_size=40),
    neg=st.lists(st.integers(0, 6), min_size=10, max_size=40),
    confidence=LEVELS,
)
def test_auc_interval_takes_the_level(pos: list[int], neg: list[int], confidence: float) -> None:
    x, y = np.array(pos)[:, None], np.array(neg)[None, :]
    px = (2 * (x > y) + (x == y)).sum(axis=1)
    nv = (2 * (x > y) + (x == y)).sum(axis=0)
    ranks = RankSums(len(pos), len(neg), int(px.sum()), int((px**2).sum()), int((nv**2).sum()))
    rows = [Row(("a",), (None,), 1, 1, None, len(pos)), Row(("a",), (None,), 0, 0, None, len(neg))]
    counts = build_counts(rows, {"g": ["a"]}, [("g",)], None)
    counts = replace(counts, overall_ranks=ranks, ranks={("g",): {("a",): ranks}})
    t = auc(counts, DEFAULT_THRESHOLDS["auc"], confidence)
    assert t.interval is not None and t.interval.confidence == confidence
    sums = (ranks.positives, ranks.negatives, ranks.twice_u)
    wired = stats.auc_interval(*sums, ranks.positive_squares, ranks.negative_squares, confidence)
    assert wired is not None and (t.interval.lo, t.interval.hi) == (wired.lo, wired.hi)
    # the widest of three contains Newcombe's score interval at the same level
    z = NormalDist().inv_cdf((1 + confidence) / 2)
    lo, hi = _newcombe(*sums, z)
    assert t.interval.lo <= lo + 1e-9 and t.interval.hi >= hi - 1e-9
    assert t.details["overall"]["interval"]["confidence"] == confidence
    assert f"{confidence * 100:.4g}% interval" in t.method
