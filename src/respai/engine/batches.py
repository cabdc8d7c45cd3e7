"""Streaming the cases in batches of numpy arrays, for the passes that must see every case.

The count passes bring back only counts; perturbation stability re-runs the model on
every case, so it reads the columns it needs one batch at a time, in file order.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import duckdb
import narwhals as nw

from respai.engine.source import Source

__all__ = ["iter_batches"]


def iter_batches(
    source: Source, columns: Sequence[str], batch_rows: int = 65_536
) -> Iterator[dict[str, Any]]:
    """Yield the ``columns`` in batches of numpy arrays, in file order, one batch at a time.

    Files stream through DuckDB's Arrow reader (out of core); DataFrames are sliced.
    Used by perturbation stability, which must re-run the model on every case.
    """
    frame = source._frame.select([nw.col(c) for c in columns])
    native = frame.to_native()
    if isinstance(native, duckdb.DuckDBPyRelation):
        reader = getattr(native, "to_arrow_reader", None) or native.fetch_arrow_reader
        batches: Iterator[Any] = iter(reader(batch_rows))
    else:
        if isinstance(frame, nw.LazyFrame):
            frame = frame.collect()
        batches = (frame[s : s + batch_rows].to_arrow() for s in range(0, len(frame), batch_rows))
    for batch in batches:
        yield {c: batch.column(i).to_numpy(zero_copy_only=False) for i, c in enumerate(columns)}
