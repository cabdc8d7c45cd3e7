"""Where a value is: the lookups that word an error message (error paths only).

The count pass says *that* a value is wrong; these find *where*: the line of a file (the
header being line 1) or the row of a DataFrame holding it, the first value of a column
that is not a number, a unit value shared by several cases. Each is an extra scan, run
only when a message needs it, and answers ``None`` (or nothing) when the engine cannot say.
"""

from __future__ import annotations

from typing import Any

import duckdb
import narwhals as nw

from respai.engine.diagnosis import read_error
from respai.engine.source import Source
from respai.engine.values import fetch, is_null, quote

__all__ = [
    "all_null",
    "duplicate_unit",
    "first_non_number",
    "first_outside",
    "lines_of",
    "locate",
    "locate_where",
]


def all_null(source: Source, column: str) -> bool:
    """Whether every value of ``column`` is missing (an extra scan; error paths only)."""
    rows = fetch(source._frame.select(nw.col(column).count().alias("__c")))
    return int(rows[0][0]) == 0


def first_non_number(source: Source, column: str) -> tuple[str, int | None] | None:
    """The first value of ``column`` that is not a number, and its line (error paths only).

    Only files opened in DuckDB are searched; for a DataFrame, or when the engine cannot
    say, this returns ``None``.
    """
    if source._con is None:
        return None
    sql = (
        f"SELECT rn, v FROM (SELECT row_number() OVER () AS rn, CAST({quote(column)} "
        "AS VARCHAR) AS v FROM cases) WHERE v IS NOT NULL AND trim(v) <> '' "
        "AND TRY_CAST(v AS DOUBLE) IS NULL ORDER BY rn LIMIT 1"
    )
    try:
        found = source._con.execute(sql).fetchone()
    except duckdb.Error:
        return None
    if found is None:
        return None
    return str(found[1]), int(found[0]) + source._header_lines


def first_outside(source: Source, column: str, lo: float, hi: float) -> tuple[float, int] | None:
    """The first number of ``column`` outside ``[lo, hi]``, and its line (error paths only).

    "First" is in file order (the header being line 1), or row order for a DataFrame,
    so a message names the first line to fix, not the line of the largest value. NaN
    and infinities count as outside. ``None`` when the engine cannot say.
    """
    try:
        if source._con is not None:
            sql = (
                f"SELECT rn, v FROM (SELECT row_number() OVER () AS rn, TRY_CAST({quote(column)} "
                "AS DOUBLE) AS v FROM cases) WHERE v IS NOT NULL AND (isnan(v) OR v < ? OR v > ?) "
                "ORDER BY rn LIMIT 1"
            )
            found = source._con.execute(sql, [lo, hi]).fetchone()
            if found is None:
                return None
            return float(found[1]), int(found[0]) + source._header_lines
        frame = source._frame
        if isinstance(frame, nw.LazyFrame):
            return None
        col = nw.col(column).cast(nw.Float64)
        outside = col.is_nan() | (col < lo) | (col > hi)
        hits = frame.with_row_index("__rn").filter(~col.is_null() & outside).head(1)
        rows = hits.rows(named=True)
        return (float(rows[0][column]), int(rows[0]["__rn"]) + 1) if rows else None
    except Exception:
        return None


def duplicate_unit(source: Source, unit: str) -> tuple[Any, int] | None:
    """Return one unit value that appears on more than one case, with its count.

    Raises
    ------
    InputError
        When the engine fails while scanning the file.
    """
    grouped = (
        source._frame.group_by(unit, drop_null_keys=True)
        .agg(nw.len().alias("__n"))
        .filter(nw.col("__n") > 1)
        .head(1)
    )
    try:
        rows = fetch(grouped)
    except duckdb.Error as exc:
        if source.file is None:
            raise
        raise read_error(source.file, exc) from None
    if not rows:
        return None
    value, n = rows[0]
    return value, int(n)


def locate(source: Source, column: str, value: Any) -> int | None:
    """The 1-based position of the first case whose ``column`` equals ``value``.

    For text files this is the file's line number (the header is line 1). Only used to
    word an error message, so it may return ``None`` when the engine cannot say.
    """
    try:
        if source._con is not None:
            sql = (
                f"SELECT rn FROM (SELECT row_number() OVER () AS rn, {quote(column)} AS v "
                "FROM cases) WHERE v IS NOT DISTINCT FROM ? ORDER BY rn LIMIT 1"
            )
            found = source._con.execute(sql, [value]).fetchone()
            if found is None:
                return None
            return int(found[0]) + source._header_lines
        frame = source._frame
        if isinstance(frame, nw.LazyFrame):
            return None
        expr = nw.col(column).is_null() if is_null(value) else nw.col(column) == value
        hits = frame.with_row_index("__rn").filter(expr).head(1)
        rows = hits.rows(named=True)
        return int(rows[0]["__rn"]) + 1 if rows else None
    except Exception:
        return None


def lines_of(source: Source, column: str, value: Any, limit: int = 2) -> list[int]:
    """The 1-based positions of the first ``limit`` cases whose ``column`` is ``value``.

    Like :func:`locate` (file lines for text files, the header being line 1), for
    messages that name several lines, such as a duplicated id. Empty when the engine
    cannot say.
    """
    if source._con is None:
        first = locate(source, column, value)
        return [] if first is None else [first]
    sql = (
        "SELECT rn FROM (SELECT row_number() OVER () AS rn, "
        + quote(column)
        + " AS v FROM cases) WHERE v IS NOT DISTINCT FROM ? ORDER BY rn LIMIT "
        + str(int(limit))
    )
    try:
        found = source._con.execute(sql, [value]).fetchall()
    except duckdb.Error:
        return []
    offset = source._header_lines
    return [int(r[0]) + offset for r in found]


def locate_where(source: Source, values: dict[str, Any]) -> int | None:
    """The 1-based position of the first case whose columns hold all of ``values``.

    ``None`` when a column is not in ``source``, for a DataFrame, or when the engine
    cannot say; only used to word an error message.
    """
    if source._con is None or not values or any(c not in source.kinds for c in values):
        return None
    columns = list(values)
    select = ", ".join(f"{quote(c)} AS v{i}" for i, c in enumerate(columns))
    where = " AND ".join(f"v{i} IS NOT DISTINCT FROM ?" for i in range(len(columns)))
    sql = (
        f"SELECT rn FROM (SELECT row_number() OVER () AS rn, {select} FROM cases) "
        f"WHERE {where} ORDER BY rn LIMIT 1"
    )
    try:
        found = source._con.execute(sql, [values[c] for c in columns]).fetchone()
    except duckdb.Error:
        return None
    if found is None:
        return None
    return int(found[0]) + source._header_lines
