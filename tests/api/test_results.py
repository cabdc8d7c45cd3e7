"""Results in Python: ``by_group()`` in the caller's library, tuple keys, repr, notebook HTML.

``by_group()`` is checked against fairlearn's ``MetricFrame.by_group`` (the rates) and
statsmodels' Wilson interval (the bounds), group by group.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest
from fairlearn.metrics import (
    MetricFrame,
    false_negative_rate,
    false_positive_rate,
    selection_rate,
    true_positive_rate,
)
from statsmodels.stats.proportion import proportion_confint

import respai
from respai import evaluate_fairness
from respai.tables import METRICS

SPEC: dict[str, Any] = {
    "label": "y",
    "prediction": "p",
    "attributes": {"sex": ["f", "m"], "race": ["a", "b", "c"]},
    "intersections": [["sex", "race"]],
    "rules": [
        {"id": "fnr-by-sex", "rate": "false_negative", "attribute": "sex", "max_group_gap": 0.3}
    ],
}


def frame(n: int = 400, seed: int = 3) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "y": rng.integers(0, 2, n),
            "p": rng.integers(0, 2, n),
            "sex": rng.choice(["f", "m"], n),
            "race": rng.choice(["a", "b"], n),  # c is declared and has no case
        }
    )


@pytest.mark.parametrize(
    ("kind", "native_type"),
    [("pandas", pd.DataFrame), ("polars", pl.DataFrame), ("pyarrow", pa.Table)],
)
def test_by_group_answers_in_the_callers_library(kind: str, native_type: type) -> None:
    df = frame()
    native = {"pandas": df, "polars": pl.from_pandas(df), "pyarrow": pa.Table.from_pandas(df)}
    result = evaluate_fairness(SPEC, native[kind])
    assert isinstance(result.by_group(), native_type)
    assert isinstance(result.by_group("sex"), native_type)


def test_by_group_after_a_file_is_pandas(tmp_path: Any) -> None:
    frame().to_csv(tmp_path / "cases.csv", index=False)
    result = evaluate_fairness({**SPEC, "cases": str(tmp_path / "cases.csv")})
    assert isinstance(result.by_group(), pd.DataFrame)


def test_by_group_equals_fairlearn_and_statsmodels() -> None:
    df = frame()
    result = evaluate_fairness(SPEC, df)
    got = result.by_group("race")
    assert list(got["group"]) == ["a", "b", "c"]
    assert list(got["race"]) == ["a", "b", "c"]
    mf = MetricFrame(
        metrics={
            "selection": selection_rate,
            "true_positive": true_positive_rate,
            "false_positive": false_positive_rate,
            "false_negative": false_negative_rate,
        },
        y_true=df["y"],
        y_pred=df["p"],
        sensitive_features=df["race"],
    )
    for _, row in got.iterrows():
        if row["group"] == "c":  # declared, no case: every rate null with a reason
            assert row["count"] == 0
            for rate in METRICS:
                assert pd.isna(row[rate]) and row[f"{rate}_undefined_reason"]
            continue
        assert row["count"] == (df["race"] == row["group"]).sum()
        for rate in mf.by_group.columns:
            assert row[rate] == pytest.approx(mf.by_group.loc[row["group"], rate], abs=1e-12)
            lo, hi = proportion_confint(
                row[f"{rate}_numerator"], row[f"{rate}_denominator"], method="wilson"
            )
            assert (row[f"{rate}_lo"], row[f"{rate}_hi"]) == pytest.approx((lo, hi), abs=1e-9)
            assert row[f"{rate}_undefined_reason"] is None or pd.isna(
                row[f"{rate}_undefined_reason"]
            )


def test_every_grouping_is_stacked_without_a_grouping() -> None:
    result = evaluate_fairness(SPEC, pl.from_pandas(frame()))
    got = result.by_group()
    assert got.height == 2 + 3 + 6
    assert got["grouping"].unique(maintain_order=True).to_list() == [
        "sex",
        "race",
        "sex × race",
    ]
    with pytest.raises(KeyError, match="no grouping"):
        result.by_group("age")


def test_intersection_keys_accept_a_tuple() -> None:
    result = evaluate_fairness(SPEC, frame())
    assert result.tables[("sex", "race")] is result.tables["sex × race"]
    assert result.tables[("sex",)] is result.tables["sex"]
    assert ("sex", "race") in result.tables and "sex × race" in result.tables
    assert ("age",) not in result.tables
    assert list(result.tables) == ["sex", "race", "sex × race"]
    one = result.by_group(("sex", "race"))
    assert list(one.columns[:4]) == ["grouping", "group", "sex", "race"]


def test_rates_have_one_name_in_tables_rules_and_json() -> None:
    result = evaluate_fairness(SPEC, frame())
    payload = result.to_dict()
    names = set(payload["tables"]["sex"]["rows"][0]["metrics"])
    assert names == set(METRICS)
    assert payload["rules"][0]["rate"] == "false_negative" in names
    for old in ("selection_rate", "tpr", "fpr", "fnr", "error_rate"):
        assert old not in names
    from respai.metrics import Rate

    for rate in Rate:
        assert rate.metric.key == rate.value


def test_repr_is_one_short_line() -> None:
    result = evaluate_fairness(SPEC, frame())
    text = repr(result)
    assert "\n" not in text and len(text) < 300
    assert text.startswith(f"<FairnessResult {result.verdict.value} (exit {result.exit_code})")
    assert "fnr-by-sex=" in text


def test_notebook_html_escapes_what_the_data_and_spec_hold() -> None:
    hostile = "<script>alert(1)</script>"
    df = frame()
    df["sex"] = df["sex"].map({"f": hostile, "m": "m"})
    spec = {
        **SPEC,
        "attributes": {"sex": [hostile, "m"], "race": ["a", "b"]},
        "intersections": [],
        "rules": [{"id": "r&<b>", "rate": "selection", "attribute": "sex", "max_group_gap": 1}],
    }
    html = evaluate_fairness(spec, df)._repr_html_()
    assert "<script>" not in html and "<b>" not in html
    assert "r&amp;&lt;b&gt;" in html


def test_an_evaluation_has_repr_html_and_by_group(tmp_path: Any) -> None:
    frame().to_csv(tmp_path / "cases.csv", index=False)
    spec = tmp_path / "spec.yaml"
    spec.write_text(
        "fairness:\n  cases: cases.csv\n  label: y\n  prediction: p\n"
        "  attributes: {sex: [f, m]}\n",
        encoding="utf-8",
    )
    result = respai.evaluate(spec, pa.Table.from_pandas(frame()))
    assert isinstance(result.by_group("sex"), pa.Table)
    assert repr(result).startswith(f"<Evaluation {result.verdict.value}")
    html = result._repr_html_()
    assert "<table>" in html and "impact_ratio:sex" in html
