"""A bounded summary of every column of an opened file, for drafting a spec.

One DuckDB pass gives each column's non-empty count, approximate distinct count and, for
a number column, its range and how many values are not 0 or 1; then one ``GROUP BY``
per column with few distinct values brings back at most ``max_values + 1`` of them with
their counts. Nothing but those aggregates reaches Python, whatever the file's size.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import duckdb

from respai.engine.count_pass import scan_error
from respai.engine.source import NUMERIC, Source
from respai.engine.values import plain, quote
from respai.errors import InputError

__all__ = ["ColumnSummary", "FileSummary", "count_duplicates", "summarize"]

#: How far above ``max_values`` an approximate distinct count may be and the column still
#: get its exact values counted (the approximation errs by a few percent).
_SLACK = 8


@dataclass(frozen=True, slots=True)
class ColumnSummary:
    """What a draft needs to know about one column.

    Attributes
    ----------
    name
        The column name, as in the file.
    kind
        ``"numeric"``, ``"text"``, ``"boolean"`` or ``"other"``.
    non_null
        Cells that are not empty.
    distinct
        Approximate number of distinct non-empty values (DuckDB's HyperLogLog).
    values
        Every distinct non-empty value with its count, most frequent first, when there
        are at most ``max_values`` of them; ``None`` when there are more.
    minimum, maximum
        The range of a number column (``None`` for other kinds or an empty column).
    not_binary
        How many non-empty values of a number column are neither 0 nor 1.
    fractional
        How many non-empty values of a number column are not whole numbers.
    """

    name: str
    kind: str
    non_null: int
    distinct: int
    values: tuple[tuple[Any, int], ...] | None
    minimum: float | None = None
    maximum: float | None = None
    not_binary: int | None = None
    fractional: int | None = None


@dataclass(frozen=True, slots=True)
class FileSummary:
    """The row count and the column summaries of one file, in file order."""

    description: str
    rows: int
    columns: tuple[ColumnSummary, ...]


def summarize(source: Source, max_values: int = 20) -> FileSummary:
    """Summarize every column of ``source`` (opened by :func:`~respai.engine.open_file`).

    Parameters
    ----------
    source
        A file opened in DuckDB.
    max_values
        Columns with at most this many distinct values get them listed, with counts.

    Raises
    ------
    InputError
        When the source is not a DuckDB file, or DuckDB fails while scanning it.
    """
    con = source._con
    if con is None:
        raise InputError(
            f"{source.description} is not a file respai opened in DuckDB.",
            "Pass the path of a CSV, JSONL or Parquet file.",
        )
    names = source.columns
    aggs = ["COUNT(*)"]
    for name in names:
        q = quote(name)
        aggs += [f"COUNT({q})", f"approx_count_distinct({q})"]
        if source.kinds[name] == NUMERIC:
            v = f"CAST({q} AS DOUBLE)"
            aggs += [
                f"MIN({v})",
                f"MAX({v})",
                f"COUNT(*) FILTER (WHERE {v} NOT IN (0, 1))",
                f"COUNT(*) FILTER (WHERE {v} <> floor({v}))",
            ]
    try:
        row = con.execute("SELECT " + ", ".join(aggs) + " FROM cases").fetchone()
        assert row is not None
        at = 1
        out: list[ColumnSummary] = []
        for name in names:
            q = quote(name)
            non_null, distinct = int(row[at]), int(row[at + 1])
            at += 2
            extra: dict[str, Any] = {}
            if source.kinds[name] == NUMERIC:
                lo, hi, nb, fr = row[at : at + 4]
                at += 4
                extra = {
                    "minimum": None if lo is None else float(lo),
                    "maximum": None if hi is None else float(hi),
                    "not_binary": int(nb),
                    "fractional": int(fr),
                }
            values: tuple[tuple[Any, int], ...] | None = None
            if distinct <= max_values + _SLACK:
                found = con.execute(
                    f"SELECT {q}, COUNT(*) AS n FROM cases WHERE {q} IS NOT NULL "
                    f"GROUP BY {q} ORDER BY n DESC, CAST({q} AS VARCHAR) LIMIT {max_values + 1}"
                ).fetchall()
                if len(found) <= max_values:
                    values = tuple((plain(v), int(n)) for v, n in found)
            out.append(
                ColumnSummary(name, source.kinds[name], non_null, distinct, values, **extra)
            )
    except duckdb.Error as exc:
        raise scan_error(source, exc) from None
    return FileSummary(source.description, int(row[0]), tuple(out))


def count_duplicates(source: Source, column: str) -> int:
    """How many non-empty cells of ``column`` repeat a value seen before (exact).

    Raises
    ------
    InputError
        When DuckDB fails while scanning the file.
    """
    assert source._con is not None
    q = quote(column)
    try:
        row = source._con.execute(f"SELECT COUNT({q}) - COUNT(DISTINCT {q}) FROM cases").fetchone()
    except duckdb.Error as exc:
        raise scan_error(source, exc) from None
    assert row is not None
    return int(row[0])
