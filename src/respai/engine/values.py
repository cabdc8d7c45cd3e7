"""Bringing a small result back from the engine as plain Python values.

Whatever ran the query (DuckDB, Spark, pandas, polars, pyarrow), the caller gets tuples
of ``int``, ``float``, ``str``, ``bool`` and ``None``: nothing above the engine sees a
numpy scalar, a pandas ``NA`` or a Spark ``Row``.
"""

from __future__ import annotations

from typing import Any

import duckdb
import narwhals as nw

__all__ = ["fetch", "is_null", "is_spark", "plain", "py", "quote"]


def is_null(value: Any) -> bool:
    """Whether ``value`` is missing: ``None`` or a float NaN."""
    return value is None or (isinstance(value, float) and value != value)


def fetch(frame: Any) -> list[tuple[Any, ...]]:
    """Bring a small result back as Python tuples, engine-natively."""
    native = frame.to_native()
    if isinstance(native, duckdb.DuckDBPyRelation):
        return [tuple(r) for r in native.fetchall()]
    if is_spark(native):
        # Spark Rows hold plain Python values; collecting them natively skips the
        # pandas/pyarrow conversion narwhals' collect() would make
        return [tuple(r) for r in native.collect()]
    if isinstance(frame, nw.LazyFrame):
        frame = frame.collect()
    return [tuple(py(v) for v in r) for r in frame.rows()]


def is_spark(native: Any) -> bool:
    """Whether ``native`` is a PySpark DataFrame (classic or Spark Connect)."""
    return type(native).__module__.startswith("pyspark.")


def py(value: Any) -> Any:
    """Plain Python scalars from numpy / pandas scalars."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    item = getattr(value, "item", None)
    if callable(item):
        return item()
    if type(value).__name__ in {"NAType", "NaTType"}:
        return None
    return value


def plain(value: Any) -> Any:
    """A plain Python value, ``None`` for any kind of missing."""
    return None if is_null(value) else py(value)


def quote(name: str) -> str:
    """A column name as a SQL identifier."""
    return '"' + name.replace('"', '""') + '"'
