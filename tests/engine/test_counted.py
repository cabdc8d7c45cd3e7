"""A value the count pass does not count is refused first: column, type and row named.

A pandas object column holding a ``bytearray``, a ``list`` or any other object in a group,
label, prediction or score column once made ``respai.evaluate`` raise pandas' own
``TypeError: unhashable type``; now each is an :class:`~respai.errors.InputError` naming
the column, the value's type and its first row, and nothing is written. Nested column
types (a polars or Arrow list or struct, a Parquet list column) are refused the same way.
"""

from __future__ import annotations

import datetime
import decimal
import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import respai
from respai.cli import main
from respai.engine.counted import refuse_pandas_cells
from respai.errors import InputError

SPEC: dict[str, Any] = {
    "system": {"name": "uncounted"},
    "fairness": {
        "label": "y",
        "prediction": "p",
        "probability": "s",
        "attributes": {"g": ["male", "female"]},
        "rules": [{"id": "sel", "rate": "selection", "attribute": "g", "max_group_gap": 0.2}],
    },
}


class _Opaque:
    """An object whose text is a declared group: counted as 'male' before, if at all."""

    def __str__(self) -> str:
        return "male"


def _frame(n: int = 40) -> pd.DataFrame:
    rng = np.random.default_rng(7)
    return pd.DataFrame(
        {
            "y": rng.integers(0, 2, n),
            "p": rng.integers(0, 2, n),
            "s": rng.random(n).round(2),
            "g": rng.choice(["male", "female"], n),
        }
    )


def _with(column: str, value: Any, row: int = 3) -> pd.DataFrame:
    frame = _frame()
    frame[column] = frame[column].astype(object)
    frame.at[row, column] = value
    return frame


VALUES: dict[str, tuple[Any, str]] = {
    "bytearray": (bytearray(b"male"), "holds bytes (bytearray(b'male'), first at row 4)"),
    "memoryview": (memoryview(b"male"), "holds bytes (memoryview(b'male'), first at row 4)"),
    "bytes": (b"male", "holds bytes (b'male', first at row 4)"),
    "list": (["male"], "of type list (['male'], first at row 4)"),
    "tuple": (("male",), "of type tuple (('male',), first at row 4)"),
    "dict": ({"g": "male"}, "of type dict ({'g': 'male'}, first at row 4)"),
    "set": ({"male"}, "of type set ({'male'}, first at row 4)"),
    "frozenset": (frozenset({"male"}), "of type frozenset (frozenset({'male'}), first at row 4)"),
    "object": (_Opaque(), "of type _Opaque (<"),
    "complex": (1j, "of type complex (1j, first at row 4)"),
}


@pytest.mark.parametrize("column", ["g", "y", "p", "s"])
@pytest.mark.parametrize("kind", sorted(VALUES))
def test_a_value_the_count_pass_does_not_count_is_named_and_nothing_is_written(
    tmp_path: Path, kind: str, column: str
) -> None:
    value, expected = VALUES[kind]
    with pytest.raises(InputError) as refused:
        respai.evaluate(SPEC, _with(column, value), out=tmp_path / "o")
    message = str(refused.value)
    assert f"column '{column}' " in message and expected in message, message
    assert list(tmp_path.iterdir()) == []
    assert not Path(".respai").exists() and not Path("keys").exists()


def test_the_first_row_holding_it_is_named() -> None:
    frame = _with("g", ["male"], row=17)
    frame.at[30, "g"] = ["female"]
    with pytest.raises(InputError, match=r"\(\['male'\], first at row 18\)"):
        respai.evaluate(SPEC, frame)


def test_a_categorical_column_is_refused_at_the_row_that_uses_the_category() -> None:
    frame = _frame()
    values = [("male",) if i == 5 else v for i, v in enumerate(frame["g"])]
    with pytest.raises(InputError, match=r"tuple \(\('male',\), first at row 6\)"):
        respai.evaluate(SPEC, frame.assign(g=pd.Categorical(values)))


def test_a_column_the_run_does_not_read_may_hold_anything() -> None:
    frame = _frame().assign(notes=[["any", "thing"]] * 40)
    assert respai.evaluate(SPEC, frame).counts is not None


@pytest.mark.parametrize(
    "value",
    [
        np.str_("male"),
        np.int64(1),
        True,
        datetime.date(2024, 1, 1),
        decimal.Decimal("1"),
        datetime.timedelta(1),
        None,
        float("nan"),
        pd.NA,
        pd.NaT,
    ],
    ids=str,
)
def test_plain_values_in_an_object_column_pass_the_check(value: Any) -> None:
    refuse_pandas_cells(_with("g", value), ["g"])  # what follows reads them as before


@pytest.mark.parametrize("value", [np.str_("male"), None, float("nan"), pd.NA])
def test_text_and_missing_values_in_an_object_column_are_counted(value: Any) -> None:
    assert respai.evaluate(SPEC, _with("g", value)).counts is not None


@pytest.mark.parametrize(
    "make",
    [
        lambda f: pl.from_pandas(f).with_columns(pl.col("g").str.split(",")),
        lambda f: pl.from_pandas(f).with_columns(pl.struct(pl.col("g")).alias("g")),
        lambda f: pa.table({**{c: f[c] for c in "yps"}, "g": pa.array([[v] for v in f["g"]])}),
    ],
    ids=["polars-list", "polars-struct", "pyarrow-list"],
)
def test_a_nested_column_type_is_refused(make: Any) -> None:
    with pytest.raises(InputError, match=r"column 'g' holds values of type .*first at row 1"):
        respai.evaluate(SPEC, make(_frame()))


def test_a_parquet_list_column_is_refused_by_the_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    frame = _frame()
    table = pa.table({**{c: frame[c] for c in "yp"}, "g": pa.array([[v] for v in frame["g"]])})
    pq.write_table(table, tmp_path / "cases.parquet")
    spec = tmp_path / "spec.yaml"
    spec.write_text(
        "system: {name: uncounted}\nfairness:\n  cases: cases.parquet\n  label: y\n"
        "  prediction: p\n  attributes:\n    g: [male, female]\n  rules:\n"
        "    - {id: sel, rate: selection, attribute: g, max_group_gap: 0.2}\n"
    )
    assert main(["fairness", str(spec)]) == 2
    err = capsys.readouterr().err
    assert "column 'g' holds values of type List(String)" in err and "internal" not in err


def test_a_probability_contributes_the_floor_of_its_binary_product() -> None:
    # the methods page's example: 0.00397 * 10**6 is 3969.9999999999995 in doubles
    import duckdb

    from respai.counts import MICRO

    assert math.floor(0.00397 * MICRO) == 3969
    found = duckdb.sql(f"SELECT CAST(FLOOR(0.00397::DOUBLE * {MICRO}) AS BIGINT)").fetchall()
    assert found == [(3969,)]
