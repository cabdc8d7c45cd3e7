"""The regression block's record parts are identical on a CSV file, a pandas frame, Spark."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
from tests.regression.test_regression_evaluate import frame, write

from respai.api import evaluate
from respai.blocks import block_named


def _parts(spec: Path, data: Any = None) -> tuple[Any, Any, Any]:
    result = evaluate(spec, data).blocks["regression"]
    parts = block_named("regression").record(result)
    return parts.tests, parts.run_start, parts.counts


def test_file_and_pandas_give_the_same_record_parts(tmp_path: Path) -> None:
    """DuckDB over the CSV and a pandas frame of the same rows: the same parts."""
    data = frame(900, seed=3)
    spec = write(tmp_path, data)
    on_file = _parts(spec)
    on_frame = _parts(
        spec, pd.read_csv(tmp_path / "cases.csv", keep_default_na=False, na_values=[""])
    )
    assert on_file == on_frame


def test_spark_gives_the_same_record_parts(tmp_path: Path, spark: Any) -> None:
    """A Spark DataFrame of the same rows gives the same parts (slow: starts Spark)."""
    data = frame(600, seed=4)
    spec = write(tmp_path, data)
    on_file = _parts(spec)
    read = pd.read_csv(tmp_path / "cases.csv", keep_default_na=False, na_values=[""])
    read["age"] = read["age"].fillna("")
    rows = [
        tuple(None if isinstance(v, float) and v != v else v for v in r)
        for r in read.itertuples(index=False)
    ]
    schema = "sex string, age string, y double, p double, label int, decision int, w double"
    on_spark = _parts(spec, spark.createDataFrame(rows, schema))
    assert on_file == on_spark
