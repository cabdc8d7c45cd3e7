"""Every number of the regression block equals an independent computation on the rows.

The block's numbers are pure functions of the exact integer sums; here they are checked
against numpy, scipy and statsmodels on the raw rows (random inputs with ties, unbalanced
and tiny groups, a group with one case), and recomputed from the record's counts.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps
from statsmodels.stats.weightstats import DescrStatsW
from tests.regression.helpers import block, run_frame

from respai.regression.audit import cells_from_counts, counts_of, evaluate_counts
from respai.regression.stats import Moments, bernstein_interval

METRIC_OF = {
    "mean_error": lambda y, p: p - y,
    "mean_absolute_error": lambda y, p: np.abs(p - y),
    "mean_prediction": lambda y, p: p,
    "mean_target": lambda y, p: y,
}

# values on a grid of 1/8 (exact in binary), with ties from the small integer range
grid = st.integers(min_value=-800, max_value=800).map(lambda k: k / 8)
rows = st.lists(
    st.tuples(
        st.sampled_from(["a", "b", "c"]), grid, grid, st.integers(1, 40).map(lambda k: k / 4)
    ),
    min_size=1,
    max_size=80,
)


def _frame(data: list[tuple[str, float, float, float]]) -> pd.DataFrame:
    return pd.DataFrame(data, columns=["g", "y", "p", "w"])


def _close(a: float | None, b: float) -> bool:
    return a is not None and math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)


@settings(max_examples=15, deadline=None)
@given(rows)
def test_means_and_t_intervals_match_statsmodels(
    data: list[tuple[str, float, float, float]],
) -> None:
    """Each group's means equal numpy's; its t-interval equals DescrStatsW.tconfint_mean."""
    frame = _frame(data)
    res = run_frame(block(), frame)
    per = res.alpha / 3
    for g in res.rules[0].groups:
        part = frame[frame["g"] == g.key[0]]
        y, p = part["y"].to_numpy(), part["p"].to_numpy()
        assert g.n == len(part)
        for name, f in METRIC_OF.items():
            x = f(y, p)
            if len(x) == 0:
                assert g.values[name] is None and g.intervals[name] is None
                continue
            assert _close(g.values[name], float(np.mean(x)))
            iv = g.intervals[name]
            if len(x) < 2:
                assert iv is None
                continue
            lo, hi = DescrStatsW(x).tconfint_mean(alpha=per)
            assert iv is not None and iv.method == "student-t"
            if np.ptp(x) == 0:
                assert _close(iv.lo, x[0]) and _close(iv.hi, x[0])
            else:
                assert math.isclose(iv.lo, lo, rel_tol=1e-7, abs_tol=1e-9)
                assert math.isclose(iv.hi, hi, rel_tol=1e-7, abs_tol=1e-9)


@settings(max_examples=15, deadline=None)
@given(rows)
def test_weighted_means_and_linearized_intervals(
    data: list[tuple[str, float, float, float]],
) -> None:
    """Hajek means equal DescrStatsW's weighted mean; the interval the direct formula."""
    frame = _frame(data)
    res = run_frame(block(), frame, weight="w")
    per = res.alpha / 3
    for g in res.rules[0].groups:
        part = frame[frame["g"] == g.key[0]]
        y, p, w = part["y"].to_numpy(), part["p"].to_numpy(), part["w"].to_numpy()
        for name, f in METRIC_OF.items():
            x = f(y, p)
            if len(x) == 0:
                assert g.values[name] is None
                continue
            d = DescrStatsW(x, weights=w)
            assert _close(g.values[name], float(d.mean))
            n_eff = w.sum() ** 2 / (w**2).sum()
            iv = g.intervals[name]
            if n_eff <= 1 + 1e-12:
                assert iv is None
                continue
            var = (w**2 * (x - d.mean) ** 2).sum() / w.sum() ** 2 * n_eff / (n_eff - 1)
            half = sps.t.ppf(1 - per / 2, n_eff - 1) * math.sqrt(var)
            assert iv is not None
            assert math.isclose(iv.lo, d.mean - half, rel_tol=1e-7, abs_tol=1e-8)
            assert math.isclose(iv.hi, d.mean + half, rel_tol=1e-7, abs_tol=1e-8)


@settings(max_examples=15, deadline=None)
@given(rows)
def test_bernstein_interval_matches_the_formula(
    data: list[tuple[str, float, float, float]],
) -> None:
    """With bounds, each interval is Maurer and Pontil's bound computed on the rows."""
    frame = _frame(data)
    spec = block(bounds={"target": [-100, 100], "prediction": [-100, 100]})
    res = run_frame(spec, frame)
    per = res.alpha / 3
    ranges = {
        "mean_error": (-200, 200),
        "mean_absolute_error": (0, 200),
        "mean_prediction": (-100, 100),
        "mean_target": (-100, 100),
    }
    for g in res.rules[0].groups:
        part = frame[frame["g"] == g.key[0]]
        for name, f in METRIC_OF.items():
            x = f(part["y"].to_numpy(), part["p"].to_numpy())
            iv = g.intervals[name]
            lo_r, hi_r = ranges[name]
            if len(x) == 0:
                assert iv is None
            elif len(x) == 1:
                assert iv is not None and (iv.lo, iv.hi) == (lo_r, hi_r)
            else:
                log = math.log(4 / per)
                half = math.sqrt(2 * np.var(x, ddof=1) * log / len(x)) + 7 * (
                    hi_r - lo_r
                ) * log / (3 * (len(x) - 1))
                assert iv is not None
                assert math.isclose(iv.lo, max(lo_r, x.mean() - half), rel_tol=1e-9, abs_tol=1e-9)
                assert math.isclose(iv.hi, min(hi_r, x.mean() + half), rel_tol=1e-9, abs_tol=1e-9)


@settings(max_examples=15, deadline=None)
@given(rows, st.booleans())
def test_the_record_counts_recompute_every_number(
    data: list[tuple[str, float, float, float]], weighted: bool
) -> None:
    """evaluate_counts on the record's counts gives the run's numbers and verdicts."""
    frame = _frame(data)
    spec = block(
        [
            {"id": "gap", "metric": "mean_absolute_error", "attribute": "g", "max_group_gap": 5},
            {"id": "worst", "metric": "mean_error", "attribute": "g", "worst_group": {"max": 2}},
        ]
    )
    weight = "w" if weighted else None
    res = run_frame(spec, frame, weight=weight)
    again = evaluate_counts(
        spec, cells_from_counts(counts_of(res)), alpha=res.alpha, weight=weight
    )
    for a, b in zip(res.rules, again.rules, strict=True):
        assert (a.value, a.bounds, a.verdict, a.reason) == (b.value, b.bounds, b.verdict, b.reason)
        for ga, gb in zip(a.groups, b.groups, strict=True):
            assert ga.values == gb.values and ga.intervals == gb.intervals


def test_gap_and_worst_group_values_match_numpy() -> None:
    """The rule's value is the largest difference of group means / the worst group mean."""
    rng = np.random.default_rng(4)
    frame = pd.DataFrame(
        {
            "g": ["a"] * 10 + ["b"] * 1000 + ["c"] * 50,
            "y": np.round(rng.lognormal(2, 1, 1060), 3),
        }
    )
    frame["p"] = np.round(frame["y"] * rng.uniform(0.8, 1.3, 1060), 3)
    spec = block(
        [
            {"id": "gap", "metric": "mean_absolute_error", "attribute": "g", "max_group_gap": 5},
            {"id": "hi", "metric": "mean_prediction", "attribute": "g", "worst_group": {"max": 9}},
            {"id": "lo", "metric": "mean_error", "attribute": "g", "worst_group": {"min": -1}},
        ]
    )
    res = run_frame(spec, frame)
    by = frame.assign(e=frame["p"] - frame["y"], a=(frame["p"] - frame["y"]).abs()).groupby("g")
    mae = by["a"].mean()
    assert res.rules[0].value == pytest.approx(mae.max() - mae.min(), rel=1e-12)
    assert res.rules[1].value == pytest.approx(by["p"].mean().max(), rel=1e-12)
    assert res.rules[2].value == pytest.approx(by["e"].mean().min(), rel=1e-12)


def test_completion_puts_missing_cases_on_the_grid() -> None:
    """Completing at a bound adds exact units; off-grid values are refused."""
    from fractions import Fraction

    m = Moments(
        2, 2, 2, 3_000_000, 5_000_000_000_000, 3_000_000, 3_000_000, 5_000_000_000_000, 10**6
    )
    done = m.completed(1, 1, 1, Fraction(10))
    assert (done.n, done.sx, done.sx2) == (3, 13_000_000, 105_000_000_000_000)
    with pytest.raises(ValueError, match="grid"):
        Moments(1, 1, 1, 0, 0, 0, 0, 0, 10).completed(1, 1, 1, Fraction(1, 100))
    assert bernstein_interval(Moments(0, 0, 0, 0, 0, 0, 0, 0, 10), 0.05, 0, 1) is None
