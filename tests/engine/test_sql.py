"""Portable SQL with exact fixed-point sums: the same integers on every engine."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import pandas as pd
import polars as pl
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from respai.engine.opening import open_file, open_frame
from respai.engine.sql import Dialect, fixed, query

DECIMALS = 6


def _sums(d: Dialect) -> str:
    y = fixed(d.ident("y v"), DECIMALS)
    return (
        f"SELECT {d.ident('g')}, COUNT(*), COUNT({y}), SUM({y}), SUM({y} * {y}) "
        f"FROM {d.table} GROUP BY {d.ident('g')} ORDER BY {d.ident('g')}"
    )


def _expected(frame: pd.DataFrame) -> list[tuple[Any, ...]]:
    out = []
    for g, part in sorted(frame.groupby("g"), key=lambda kv: kv[0]):
        units = [math.floor(v * 10**DECIMALS + 0.5) for v in part["y v"] if not math.isnan(v)]
        out.append(
            (
                g,
                len(part),
                len(units),
                sum(units) if units else None,
                sum(u * u for u in units) if units else None,
            )
        )
    return out


values = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, allow_infinity=False)


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(["a", "b", "c"]), values | st.just(math.nan)),
        min_size=1,
        max_size=60,
    )
)
def test_exact_sums_on_every_frame_kind(rows: list[tuple[str, float]]) -> None:
    """pandas, polars (eager and lazy) and pyarrow give Python's exact integer sums."""
    frame = pd.DataFrame(rows, columns=["g", "y v"])
    want = _expected(frame)
    for native in (frame, pl.from_pandas(frame, nan_to_null=True), pa.Table.from_pandas(frame)):
        assert query(open_frame(native), _sums, ["g", "y v"]) == want
    assert (
        query(open_frame(pl.from_pandas(frame, nan_to_null=True).lazy()), _sums, ["g", "y v"])
        == want
    )


def test_file_matches_frame(tmp_path: Path) -> None:
    """A CSV file opened in DuckDB gives the frame's sums (values written with repr)."""
    frame = pd.DataFrame({"g": ["a", "b", "a", "b"], "y v": [0.1, 2.5e5, -3.75, 1e-7]})
    path = tmp_path / "cases.csv"
    frame.to_csv(path, index=False)
    assert query(open_file(path), _sums, ["g", "y v"]) == _expected(frame)


def test_half_units_round_up() -> None:
    """Exactly half a unit rounds up, negative ones towards +infinity, on every engine."""
    frame = pd.DataFrame({"g": ["a", "a"], "y v": [0.5, -0.5]})

    def units(d: Dialect) -> str:
        return f"SELECT {fixed(d.ident('y v'), 0)} FROM {d.table} ORDER BY 1"

    assert query(open_frame(frame), units, ["y v"]) == [(0,), (1,)]


def test_decimals_out_of_range() -> None:
    """More than 12 decimals is a programming error, not a silent loss."""
    with pytest.raises(ValueError, match="decimals"):
        fixed("x", 13)


def test_spark_gives_the_same_sums(spark: Any) -> None:
    """Spark SQL's DECIMAL(38, 0) sums equal DuckDB's on the same frame."""
    frame = pd.DataFrame({"g": ["a", "b"] * 50, "y v": [i * 1.37e3 - 7.1 for i in range(100)]})
    rows = list(zip(frame["g"], frame["y v"], strict=True))
    on_spark = spark.createDataFrame(rows, "g string, `y v` double")
    assert query(open_frame(on_spark), _sums, ["g", "y v"]) == _expected(frame)
