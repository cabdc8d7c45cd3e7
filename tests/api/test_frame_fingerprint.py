"""The dataset fingerprint of a DataFrame: one canonical Arrow IPC stream, whatever library.

The reference recomputes it from the documented recipe alone (sorted columns, canonical
types, one record batch, ``pyarrow.ipc.new_stream``), from plain Python lists.
"""

from __future__ import annotations

import hashlib
from typing import Any

import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

from respai.engine.frame_fingerprint import FRAME_MEDIA_TYPE, frame_fingerprint
from respai.errors import InputError

DATA: dict[str, list[Any]] = {
    "y": [1, 0, 1, 0, 1],
    "p": [1, 1, 0, 0, None],
    "sex": ["f", "m", None, "m", "f"],
    "score": [0.1, 0.5, 0.9, 0.25, 0.75],
    "flag": [True, False, True, True, False],
    "unused": ["x", "y", "z", "w", "v"],
}
READ = ["y", "p", "sex", "score", "flag"]


def reference(data: dict[str, list[Any]], columns: list[str]) -> str:
    """SHA-256 of the stream the docs describe, built by hand from Python values."""
    types = {"y": pa.int64(), "p": pa.int64(), "sex": pa.large_string()}
    types |= {"score": pa.float64(), "flag": pa.bool_()}
    names = sorted(columns)
    schema = pa.schema([pa.field(n, types[n], nullable=True) for n in names])
    batch = pa.RecordBatch.from_arrays(
        [pa.array(data[n], type=types[n]) for n in names], schema=schema
    )
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, schema) as writer:
        writer.write_batch(batch)
    return hashlib.sha256(sink.getvalue().to_pybytes()).hexdigest()


def frames(data: dict[str, list[Any]]) -> dict[str, Any]:
    table = pa.table(data)
    return {
        "pandas": pd.DataFrame(data),
        "pandas-categorical": pd.DataFrame(data).astype({"sex": "category"}),
        "pandas-indexed": pd.DataFrame(data, index=[10, 11, 12, 13, 14]),
        "polars": pl.DataFrame(data),
        "polars-lazy": pl.DataFrame(data).lazy(),
        "polars-int8": pl.DataFrame(data).with_columns(pl.col("y").cast(pl.Int8)),
        "pyarrow": table,
        "pyarrow-chunked": pa.concat_tables([table.slice(0, 2), table.slice(2)]),
        "pyarrow-float32-free": table.cast(
            pa.schema([f.with_type(pa.string()) if f.name == "sex" else f for f in table.schema])
        ),
    }


@pytest.mark.parametrize("kind", list(frames(DATA)))
def test_the_same_data_has_the_same_fingerprint_in_every_library(kind: str) -> None:
    fp = frame_fingerprint(frames(DATA)[kind], READ)
    assert fp["sha256"] == reference(DATA, READ)
    assert fp["media_type"] == FRAME_MEDIA_TYPE == "application/vnd.apache.arrow.stream"
    assert fp["name"] == "dataframe"
    assert fp["columns"] == sorted(READ)
    assert fp["rows"] == 5
    assert fp["size_bytes"] > 0


@pytest.mark.parametrize(
    ("column", "row", "value"),
    [("y", 0, 0), ("sex", 1, "f"), ("score", 4, 0.7500001), ("p", 4, 1), ("flag", 2, False)],
)
def test_one_changed_value_changes_the_fingerprint(column: str, row: int, value: Any) -> None:
    changed = {k: list(v) for k, v in DATA.items()}
    changed[column][row] = value
    want = frame_fingerprint(pd.DataFrame(DATA), READ)["sha256"]
    for kind, native in frames(changed).items():
        assert frame_fingerprint(native, READ)["sha256"] != want, kind
        assert frame_fingerprint(native, READ)["sha256"] == reference(changed, READ), kind


def test_only_the_columns_read_count_and_their_order_does_not() -> None:
    base = frame_fingerprint(pd.DataFrame(DATA), READ)["sha256"]
    other = {**DATA, "unused": ["changed"] * 5}
    assert frame_fingerprint(pd.DataFrame(other), list(reversed(READ)))["sha256"] == base
    assert frame_fingerprint(pd.DataFrame(DATA), [*READ, "unused"])["sha256"] != base


def test_row_order_is_part_of_the_fingerprint() -> None:
    df = pd.DataFrame(DATA)
    shuffled = df.iloc[[1, 0, 2, 3, 4]].reset_index(drop=True)
    assert frame_fingerprint(shuffled, READ)["sha256"] != frame_fingerprint(df, READ)["sha256"]


def test_not_a_frame_is_an_input_error() -> None:
    with pytest.raises(InputError, match="cannot read a list"):
        frame_fingerprint([1, 2], ["y"])
