"""The per-group table against fairlearn's MetricFrame and scikit-learn, on random data."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from fairlearn.metrics import (
    MetricFrame,
    false_negative_rate,
    false_positive_rate,
    selection_rate,
    true_positive_rate,
)
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import precision_score
from statsmodels.stats.proportion import proportion_confint

from respai import evaluate_fairness, tables
from respai.counts import Cell, Grouping


def _error(y: np.ndarray, p: np.ndarray) -> float:
    return float(np.mean(y != p))


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(40, 400))
def test_group_table_equals_fairlearn(seed: int, n: int) -> None:
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(
        {
            "y": rng.integers(0, 2, n),
            "p": rng.integers(0, 2, n),
            "g": rng.choice(["a", "b", "c"], n),
        }
    )
    result = evaluate_fairness(
        {"label": "y", "prediction": "p", "attributes": {"g": ["a", "b", "c"]}}, df
    )
    frame = MetricFrame(
        metrics={
            "selection_rate": selection_rate,
            "tpr": true_positive_rate,
            "fpr": false_positive_rate,
            "fnr": false_negative_rate,
            "error_rate": _error,
        },
        y_true=df["y"],
        y_pred=df["p"],
        sensitive_features=df["g"],
    )
    for row in result.tables["g"]:
        (group,) = row.key
        if group not in frame.by_group.index:
            assert row.count == 0
            continue
        sub = df[df["g"] == group]
        assert row.count == len(sub)
        for name, ours in (
            ("selection_rate", "selection"),
            ("tpr", "true_positive"),
            ("fpr", "false_positive"),
            ("fnr", "false_negative"),
            ("error_rate", "error"),
        ):
            m = row.metrics[ours]
            want = frame.by_group.loc[group, name]
            if m.value is None:
                assert m.denominator == 0
            else:
                assert m.value == pytest.approx(float(want), abs=1e-12)
                lo, hi = proportion_confint(m.numerator, m.denominator, method="wilson")
                assert m.interval is not None
                assert (m.interval.lo, m.interval.hi) == pytest.approx((lo, hi), abs=1e-9)
        prec = row.metrics["precision"]
        if prec.denominator:
            assert prec.value == pytest.approx(
                precision_score(sub["y"], sub["p"], zero_division=0.0), abs=1e-12
            )
    # gaps as fairlearn computes them: max - min of the per-group selection rates
    rates = [
        r.metrics["selection"].value
        for r in result.tables["g"]
        if r.metrics["selection"].value is not None
    ]
    assert max(rates) - min(rates) == pytest.approx(
        frame.difference(method="between_groups")["selection_rate"], abs=1e-12
    )


def test_undefined_rate_is_null_with_reason() -> None:
    df = pd.DataFrame({"y": [0, 0, 1], "p": [0, 1, 1], "g": ["a", "a", "b"]})
    result = evaluate_fairness(
        {"label": "y", "prediction": "p", "attributes": {"g": ["a", "b", "c"]}}, df
    )
    a = result.tables["g"][0]
    assert a.metrics["true_positive"].value is None
    assert a.metrics["true_positive"].undefined is not None
    payload = result.to_dict()
    row_a = payload["tables"]["g"]["rows"][0]
    assert row_a["metrics"]["true_positive"]["value"] is None
    assert row_a["metrics"]["true_positive"]["undefined_reason"]
    c = payload["tables"]["g"]["rows"][2]
    assert c["count"] == 0 and c["metrics"]["selection"]["value"] is None


def test_table_columns_are_the_registry_rates_the_record_has_always_had() -> None:
    # the per-group table's six rates, named as the group rules name them (one vocabulary)
    assert list(tables.METRICS) == [
        "selection",
        "true_positive",
        "false_positive",
        "false_negative",
        "error",
        "precision",
    ]
    cell = Cell(tp=3, fp=2, tn=4, fn=1, missing_pos=2, missing_neg=1)
    (row,) = tables.group_table(Grouping(("g",), {("a",): cell}, None, {}))
    for key, rate in tables.METRICS.items():
        m = row.metrics[key]
        assert (
            (m.numerator, m.denominator)
            == rate.fraction(cell)
            == (
                {
                    "selection": (5, 10),
                    "true_positive": (3, 4),
                    "false_positive": (2, 6),
                    "false_negative": (1, 4),
                    "error": (3, 10),
                    "precision": (3, 5),
                }[key]
            )
        )
