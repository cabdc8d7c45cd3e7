"""Battery numbers against scikit-learn, fairlearn and a brute-force DeLong on random data."""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from typing import Any

import numpy as np
import pytest
from fairlearn.metrics import (
    MetricFrame,
    demographic_parity_difference,
    demographic_parity_ratio,
    equal_opportunity_difference,
    selection_rate,
    true_positive_rate,
)
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import accuracy_score, roc_auc_score

from respai import battery
from respai.battery import DEFAULT_THRESHOLDS, Decision, Threshold, decide, run_battery
from respai.counts import Cell, Grouping, RankSums, Row, build_counts
from respai.stats import auc_delong
from respai.types import Interval, Verdict

ATTRS = {"g": ["a", "b", "c"]}


def counts_from_arrays(y: np.ndarray, p: np.ndarray, s: np.ndarray, g: np.ndarray) -> Any:
    cube = Counter(zip(g.tolist(), y.tolist(), p.tolist(), strict=True))
    rows = [Row((gg,), (None,), yy, pp, None, n) for (gg, yy, pp), n in cube.items()]
    counts = build_counts(rows, ATTRS, [("g",)], None)
    overall = brute_rank_sums(y, s)
    per = {("g",): {(k,): brute_rank_sums(y[g == k], s[g == k]) for k in ATTRS["g"]}}
    cells = {"label": 0, "prediction": 0, "g": 0, "score": 0}
    return replace(counts, overall_ranks=overall, ranks=per, null_cells=cells)


def brute_rank_sums(y: np.ndarray, s: np.ndarray) -> RankSums:
    """The rank sums by comparing every positive with every negative (no sorting)."""
    pos, neg = s[y == 1].tolist(), s[y == 0].tolist()
    x = [sum(2 * (a > b) + (a == b) for b in neg) for a in pos]
    v = [sum(2 * (a > b) + (a == b) for a in pos) for b in neg]
    assert sum(x) == sum(v)
    return RankSums(len(pos), len(neg), sum(x), sum(i * i for i in x), sum(i * i for i in v))


def brute_delong(y: np.ndarray, s: np.ndarray) -> tuple[float, float]:
    pos, neg = s[y == 1], s[y == 0]
    psi = (pos[:, None] > neg[None, :]) + 0.5 * (pos[:, None] == neg[None, :])
    auc = psi.mean()
    v10, v01 = psi.mean(axis=1), psi.mean(axis=0)
    var = v10.var(ddof=1) / len(pos) + v01.var(ddof=1) / len(neg)
    return float(auc), float(np.sqrt(var))


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(30, 500), ties=st.booleans())
def test_battery_matches_references(seed: int, n: int, ties: bool) -> None:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    p = rng.integers(0, 2, n)
    s = rng.random(n) + 0.4 * y
    if ties:
        s = np.round(s, 1)
    g = rng.choice(["a", "b", "c"], n)
    counts = counts_from_arrays(y, p, s, g)
    results = {r.key: r for r in run_battery(counts, list(DEFAULT_THRESHOLDS), DEFAULT_THRESHOLDS)}
    assert results["accuracy"].value == pytest.approx(accuracy_score(y, p), abs=1e-12)
    if 0 < y.sum() < n:
        assert results["auc"].value == pytest.approx(roc_auc_score(y, s), abs=1e-12)
        _, se = brute_delong(y, s)
        assert results["auc"].details["overall"]["standard_error"] == pytest.approx(se, rel=1e-9)
    frame = MetricFrame(
        metrics={"sr": selection_rate, "tpr": true_positive_rate},
        y_true=y,
        y_pred=p,
        sensitive_features=g,
    )
    if len(frame.by_group) == 3 and (frame.by_group["sr"] > 0).any():
        assert results["impact_ratio:g"].value == pytest.approx(
            demographic_parity_ratio(y, p, sensitive_features=g), abs=1e-12
        )
        assert results["selection_rate_diff:g"].value == pytest.approx(
            demographic_parity_difference(y, p, sensitive_features=g), abs=1e-12
        )
    tpr_defined = all(((g == k) & (y == 1)).any() for k in "abc")
    if tpr_defined:
        assert results["equal_opportunity_diff:g"].value == pytest.approx(
            equal_opportunity_difference(y, p, sensitive_features=g), abs=1e-12
        )
    for key in ("impact_ratio:g", "selection_rate_diff:g"):
        r = results[key]
        if r.value is not None:
            assert r.interval is not None
            assert r.interval.lo <= r.value <= r.interval.hi
    balance = min(y.sum(), n - y.sum()) / n
    assert results["class_balance"].value == pytest.approx(balance)
    assert results["perturbation_stability"].verdict is Verdict.MANUAL_REVIEW


def test_per_group_auc_matches_sklearn() -> None:
    rng = np.random.default_rng(7)
    n = 600
    y, p, g = rng.integers(0, 2, n), rng.integers(0, 2, n), rng.choice(["a", "b", "c"], n)
    s = np.round(rng.random(n) + 0.3 * y, 2)
    counts = counts_from_arrays(y, p, s, g)
    (auc_result,) = run_battery(counts, ["auc"], DEFAULT_THRESHOLDS)
    per = {e["group"]: e["value"] for e in auc_result.details["per_group"]["g"]}
    for k in "abc":
        assert per[k] == pytest.approx(roc_auc_score(y[g == k], s[g == k]), abs=1e-12)


def test_undefined_values_are_insufficient_evidence() -> None:
    y = np.array([1, 1, 1, 1])
    p = np.array([1, 0, 1, 1])
    s = np.array([0.1, 0.2, 0.3, 0.4])
    g = np.array(["a", "a", "b", "b"])
    counts = counts_from_arrays(y, p, s, g)
    res = {r.key: r for r in run_battery(counts, list(DEFAULT_THRESHOLDS), DEFAULT_THRESHOLDS)}
    assert res["auc"].value is None and res["auc"].verdict is Verdict.INSUFFICIENT_EVIDENCE
    assert res["auc"].undefined is not None
    # group c is declared but has no cases
    ir = res["impact_ratio:g"]
    assert ir.value is None and "c" in ir.reason
    assert ir.verdict is Verdict.INSUFFICIENT_EVIDENCE


def test_auc_delong_toy_example() -> None:
    # positives at 0.4, 0.8, 0.8; negatives at 0.1, 0.1, 0.4: pairs 9, wins 8, tie 1
    auc, _, _ = auc_delong([(0.1, 0, 2), (0.4, 1, 1), (0.8, 2, 0)]) or (None, None, None)
    assert auc == pytest.approx(8.5 / 9)


@pytest.mark.parametrize(
    ("value", "iv", "decision", "want"),
    [
        (0.85, (0.82, 0.88), Decision.ESTIMATE, (Verdict.PASS, False)),
        (0.85, (0.75, 0.90), Decision.ESTIMATE, (Verdict.PASS, True)),
        (0.75, (0.70, 0.85), Decision.ESTIMATE, (Verdict.FAIL, True)),
        (0.85, (0.75, 0.90), Decision.INTERVAL, (Verdict.INSUFFICIENT_EVIDENCE, True)),
        (0.85, (0.81, 0.90), Decision.INTERVAL, (Verdict.PASS, False)),
        (0.70, (0.60, 0.79), Decision.INTERVAL, (Verdict.FAIL, False)),
        (None, None, Decision.ESTIMATE, (Verdict.INSUFFICIENT_EVIDENCE, False)),
    ],
)
def test_decision_table(
    value: float | None,
    iv: tuple[float, float] | None,
    decision: Decision,
    want: tuple[Verdict, bool],
) -> None:
    t = Threshold(">=", 0.80, "test", decision)
    interval = None if iv is None else Interval(iv[0], iv[1], "x", 0.95)
    assert decide(value, interval, t)[:2] == want


# -- the registry -----------------------------------------------------------------------


def test_run_battery_runs_each_registry_entry_in_order() -> None:
    rows = [
        Row((k, k), (None, None), y, p, None, 5) for k in "abc" for y in (0, 1) for p in (0, 1)
    ]
    counts = build_counts(
        rows, {"g": ["a", "b", "c"], "h": ["a", "b", "c"]}, [("g",), ("h",)], None
    )
    counts = replace(counts, null_cells={"label": 0})
    results = run_battery(counts, list(reversed(battery.BATTERY)), DEFAULT_THRESHOLDS)
    want = [
        (entry.id, g)
        for entry in battery.REGISTRY.values()
        for g in ([("g",), ("h",)] if entry.per_grouping else [None])
    ]
    assert [(r.test_id, r.grouping) for r in results] == want
    assert all(type(r.test_id) is str for r in results)  # plain ids in the record
    only = run_battery(counts, ["equal_opportunity_diff"], DEFAULT_THRESHOLDS)
    assert [r.key for r in only] == ["equal_opportunity_diff:g", "equal_opportunity_diff:h"]


def test_group_rates_are_the_registry_rate() -> None:
    cells = {
        ("a",): Cell(tp=3, fp=2, tn=4, fn=1, missing_pos=2, missing_neg=1),
        ("b",): Cell(tp=1, fp=5, tn=2, fn=6, missing_neg=3),
    }
    counts = replace(
        build_counts([], {"g": ["a", "b"]}, [("g",)], None),
        groupings={("g",): Grouping(("g",), cells, None, {})},
    )
    for entry in battery.REGISTRY.values():
        if not entry.per_grouping:
            continue
        assert entry.metric is not None
        (result,) = run_battery(counts, [entry.id], DEFAULT_THRESHOLDS)
        assert result.details["rate"] == entry.metric.name
        for row, cell in zip(result.details["groups"], cells.values(), strict=True):
            assert (row["numerator"], row["denominator"]) == entry.metric.fraction(cell)


def test_a_group_without_predictions_is_named_with_what_it_lacks() -> None:
    # group b has cases, but none with a prediction: its selection rate is over 0 cases
    rows = [
        Row(("a",), (None,), 1, 1, None, 4),
        Row(("a",), (None,), 0, 0, None, 4),
        Row(("b",), (None,), 1, None, None, 3),
    ]
    counts = build_counts(rows, {"g": ["a", "b"]}, [("g",)], None)
    (ratio,) = run_battery(counts, ["impact_ratio"], DEFAULT_THRESHOLDS)
    assert ratio.undefined is not None and ratio.undefined.code == "empty_group"
    assert ratio.undefined.reason == "no cases with a prediction in group(s) b"
    # the worst case is still decided: the group's one case counted against the test
    assert ratio.reason.startswith("no cases with a prediction in group(s) b")
    assert ratio.verdict is not Verdict.PASS


def test_a_reason_names_five_groups_and_counts_the_rest() -> None:
    # eight groups without a decided case and one with: the reason stays one short line
    names = [f"g{i}" for i in range(9)]
    rows = [Row((n,), (None,), 1, None, None, 4) for n in names[:8]]
    rows += [Row(("g8",), (None,), 1, 1, None, 4), Row(("g8",), (None,), 0, 0, None, 4)]
    counts = build_counts(rows, {"g": names}, [("g",)], None)
    (ratio,) = run_battery(counts, ["impact_ratio"], DEFAULT_THRESHOLDS)
    assert ratio.undefined is not None
    assert ratio.undefined.reason == (
        "no cases with a prediction in group(s) g0, g1, g2, g3, g4, ... (8 in all)"
    )
    empty = build_counts([rows[-1]], {"g": names}, [("g",)], None)
    (ratio,) = run_battery(empty, ["impact_ratio"], DEFAULT_THRESHOLDS)
    assert ratio.undefined is not None
    assert ratio.undefined.reason == (
        "no cases with a prediction in group(s) g0, g1, g2, g3, g4, ... (8 in all), "
        "nor any without one"
    )
