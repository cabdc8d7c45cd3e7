"""The ranking block's numbers equal an independent computation on the raw rows.

Rates, exposure ratios and their cluster-robust standard errors: against pandas/numpy on
the rows (hypothesis: random lists, ties, unequal lengths, tiny groups, one-item lists)
and against statsmodels' cluster-robust OLS/WLS; the record's counts give every number
again (:func:`respai.ranking.audit.recompute`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import pytest
import statsmodels.api as sm
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.ranking.helpers import block, lists_frame, reference

from respai.engine.opening import open_frame
from respai.errors import InputError
from respai.ranking.audit import recompute, run_ranking
from respai.ranking.seal import ranking_counts
from respai.types import Verdict

K = (1, 5)


def _run(frame: pd.DataFrame, *, score: bool, weighted: bool) -> Any:
    return run_ranking(
        block(score=score, top_k=K),
        open_frame(frame),
        alpha=0.05,
        alpha_source="test",
        weight="w" if weighted else None,
    )


def _check(frame: pd.DataFrame, score: bool, weighted: bool) -> None:
    res = _run(frame, score=score, weighted=weighted)
    want = reference(frame, score=score, k_list=K, weighted=weighted)
    for rr in res.rules:
        for row in rr.groups:
            ref = want.get(row.group)
            if ref is None:
                assert row.items == 0 and row.estimate.value is None
                continue
            assert row.items == ref["items"] and row.lists == ref["lists"]
            value, se = ref[rr.rule.id]
            assert row.estimate.value == pytest.approx(value, rel=1e-9, abs=1e-12)
            if row.estimate.se is not None and not math.isnan(se):
                assert row.estimate.se == pytest.approx(se, rel=1e-6, abs=1e-12)
    again = recompute(ranking_counts(res), res.block, 0.05)
    assert [r.groups for r in again] == [r.groups for r in res.rules]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10**6),
    n_lists=st.integers(1, 12),
    score=st.booleans(),
    weighted=st.booleans(),
    ties=st.booleans(),
    short=st.booleans(),
)
def test_numbers_equal_a_direct_computation(
    seed: int, n_lists: int, score: bool, weighted: bool, ties: bool, short: bool
) -> None:
    """Random lists (one-item lists, ties, tiny groups) give the rows' own numbers."""
    rng = np.random.default_rng(seed)
    frame = lists_frame(
        rng,
        n_lists,
        shares=(0.7, 0.25, 0.05),
        lengths=(1, 4) if short else (2, 25),
        weights=weighted,
        ties=ties and score,
    )
    _check(frame, score, weighted)


@pytest.mark.parametrize("weighted", [False, True])
def test_rate_se_equals_statsmodels_cluster_robust(weighted: bool) -> None:
    """The top-k rate's SE is statsmodels' cluster-robust SE of an intercept-only fit."""
    frame = lists_frame(np.random.default_rng(5), 40, weights=weighted, bias=0.5)
    res = _run(frame, score=False, weighted=weighted)
    for rr in res.rules:
        if rr.rule.metric != "top_k_rate":
            continue
        for row in rr.groups:
            part = frame[frame.grp == row.group]
            y = (part.pos <= rr.rule.k).astype(float).to_numpy()
            x = np.ones((len(part), 1))
            w = np.floor(part.w.to_numpy() * 1e6 + 0.5) / 1e6 if weighted else np.ones(len(y))
            codes = pd.factorize(part["query"])[0]
            fit = sm.WLS(y, x, weights=w).fit(cov_type="cluster", cov_kwds={"groups": codes})
            assert row.estimate.value == pytest.approx(fit.params[0], rel=1e-9)
            assert row.estimate.se == pytest.approx(fit.bse[0], rel=1e-6)
            assert row.estimate.df == len(set(codes)) - 1


def test_unweighted_counts_shown_beside_weighted() -> None:
    """With weights the value is weighted; the unweighted value and counts stand beside it."""
    frame = lists_frame(np.random.default_rng(8), 30, weights=True)
    res = _run(frame, score=False, weighted=True)
    plain = _run(frame, score=False, weighted=False)
    for rr, pr in zip(res.rules, plain.rules, strict=True):
        for row, prow in zip(rr.groups, pr.groups, strict=True):
            assert row.unweighted == prow.estimate.value
            assert row.items == prow.items
    fp = res.weights
    assert fp is not None and fp["column"] == "w" and fp["n"] == len(frame)
    units = np.floor(frame.w.to_numpy() * 1e6 + 0.5).astype(np.int64)
    assert int(fp["sum"]) == int(units.sum())
    assert int(fp["sum_squares"]) == sum(int(u) * int(u) for u in units)
    assert fp["n_eff"] == pytest.approx(units.sum() ** 2 / (units.astype(float) ** 2).sum())


def _frame(rows: list[tuple[Any, ...]]) -> pd.DataFrame:
    return pd.DataFrame(rows, columns=["query", "grp", "pos", "score", "w"])


@pytest.mark.parametrize(
    ("rows", "words"),
    [
        ([("q1", "a", 1, 0.0, 1.0), ("q1", "b", 1, 0.0, 1.0)], "more than one item at position"),
        ([("q1", "a", 0, 0.0, 1.0)], "positions are whole numbers"),
        ([("q1", "a", 1.5, 0.0, 1.0)], "positions are whole numbers"),
    ],
)
def test_bad_positions_are_refused(rows: list[tuple[Any, ...]], words: str) -> None:
    """Repeated, below 1, or not whole positions: exit 2 naming the list and the value."""
    with pytest.raises(InputError, match=words) as info:
        _run(_frame(rows), score=False, weighted=False)
    assert "q1" in str(info.value) and info.value.exit_code == 2


def test_bad_weights_are_refused() -> None:
    """A negative weight is refused, naming the column and the value."""
    rows = [("q1", "a", 1, 0.0, -2.0), ("q1", "b", 2, 0.0, 1.0)]
    with pytest.raises(InputError, match=r"'w'.*-2"):
        _run(_frame(rows), score=False, weighted=True)


def test_score_ties_take_their_average_position() -> None:
    """Tied scores share the average of their positions (2 and 3 -> 2.5 each)."""
    rows = [
        ("q1", "a", 0, 3.0, 1.0),
        ("q1", "b", 0, 2.0, 1.0),
        ("q1", "a", 0, 2.0, 1.0),
        ("q1", "b", 0, 1.0, 1.0),
    ]
    res = run_ranking(
        block(score=True, top_k=(2, 3), groups=("a", "b")),
        open_frame(_frame(rows)),
        alpha=0.05,
        alpha_source="test",
    )
    sums = res.sums["grp"].groups["count"]
    assert sums["a"].t == {2: 1, 3: 2} and sums["b"].t == {2: 0, 3: 1}
    e = round(1e6 / math.log2(3.5))
    assert sums["a"].e == 1_000_000 + e and sums["b"].e == e + round(1e6 / math.log2(5))


def test_missing_positions_keep_a_group_from_passing() -> None:
    """A group over max_missing (items without a position) cannot PASS."""
    frame = lists_frame(np.random.default_rng(2), 60, shares=(0.5, 0.5), bias=0.0)
    frame["pos"] = frame["pos"].astype(float)
    frame.loc[frame.index[frame.grp == "b"][:40], "pos"] = np.nan
    spec = block(top_k=(5,), groups=("a", "b"))
    res = run_ranking(spec, open_frame(frame), alpha=0.05, alpha_source="test")
    for rr in res.rules:
        b = next(g for g in rr.groups if g.group == "b")
        assert b.missing == 40 and b.over_missing
        assert rr.verdict is not Verdict.PASS


def test_left_out_rows_are_counted_by_reason() -> None:
    """Rows without a list, with an empty or an undeclared group are counted, not used."""
    rows = [
        ("q1", "a", 1, 0.0, 1.0),
        (None, "a", 2, 0.0, 1.0),
        ("q1", None, 2, 0.0, 1.0),
        ("q1", "zz", 3, 0.0, 1.0),
        ("q1", "b", 4, 0.0, 1.0),
    ]
    res = _run(_frame(rows), score=False, weighted=False)
    assert res.sums["grp"].left_out == {
        "missing_list": 1,
        "missing_group": 1,
        "undeclared_group": 1,
    }
    b = res.sums["grp"].groups["count"]["b"]
    assert b.t == {1: 0, 5: 1}  # the undeclared items keep their slots: b stays at 4
