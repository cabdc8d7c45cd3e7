"""The weighted rules on Spark: the same exact sums, rates and verdicts as DuckDB and pandas."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from tests.weights.helpers import frame, spec

from respai.results import rule_dict
from respai.run.group_rules import evaluate_fairness


@pytest.mark.slow
def test_spark_csv_and_frame_are_identical(spark: Any, tmp_path: Path) -> None:
    """A CSV in DuckDB, the pandas frame and a Spark DataFrame give the same record parts."""
    df = frame(9, n=300, missing=0.0)
    df["p"] = df["p"].astype(int)
    path = tmp_path / "cases.csv"
    df.to_csv(path, index=False)
    body = spec()
    on_file = evaluate_fairness({**body, "fairness": {**body["fairness"], "cases": str(path)}})
    on_frame = evaluate_fairness(body, df)
    rows = list(zip(*(df[c].tolist() for c in ("g", "y", "p", "w")), strict=True))
    sdf = spark.createDataFrame(rows, schema="g string, y long, p long, w double")
    on_spark = evaluate_fairness(body, sdf)
    for other in (on_frame, on_spark):
        assert other.weighted is not None and on_file.weighted is not None
        assert other.weighted.counts_dict() == on_file.weighted.counts_dict()
        assert other.weighted.fingerprint() == on_file.weighted.fingerprint()
        assert [rule_dict(r) for r in other.rules] == [rule_dict(r) for r in on_file.rules]
