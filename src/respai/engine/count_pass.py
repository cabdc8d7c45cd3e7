"""The count passes: one ``GROUP BY`` where the data lives, integer counts back.

:func:`count_cube` is the one pass behind the fairness counts and the battery: cases per
cell of the declared attributes, label and prediction (and probability bin), with the
integer sums the calibration needs. :func:`group_counts` is the LL144 pass: cases per
distinct combination of columns (a score as the last key). Both run the same narwhals
expressions on DuckDB, Spark or an in-memory DataFrame; a failure while scanning a file
becomes one message naming the file and line (:func:`scan_error`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import duckdb
import narwhals as nw

from respai.engine.counted import refuse_uncounted
from respai.engine.diagnosis import read_error, shorten
from respai.engine.files import arrow_pays
from respai.engine.finite import check_finite_frame, check_not_a_number
from respai.engine.source import IN_LEFT, MICRO, NUMERIC, Cube, CubeRow, JoinedSource, Source
from respai.engine.values import fetch, is_null, plain, quote
from respai.errors import InputError

__all__ = [
    "count_cube",
    "count_cube_and_groups",
    "group_counts",
    "release_memory",
    "scan_error",
]

_VALUE = "__respai_value"


def count_cube(
    source: Source,
    keys: Sequence[str],
    probability: str | None,
    bins: int,
    count_non_null: Sequence[str] = (),
) -> Cube:
    """Run the one count pass: ``GROUP BY keys [, probability bin]`` with counts.

    Every aggregate is an integer except the probability minimum and maximum, which the
    gate uses to check the range.

    Parameters
    ----------
    source
        The opened cases.
    keys
        The grouped columns (attributes, label, prediction).
    probability
        The probability column, binned into ``bins`` bins and summed in millionths.
    bins
        How many probability bins.
    count_non_null
        Further columns whose non-empty cells are counted per cell (for completeness).

    Returns
    -------
    Cube
        One :class:`CubeRow` per non-empty cell, kept as columns (DuckDB's result stays
        an Arrow table until a cell is read as an object).

    Raises
    ------
    InputError
        When a column holds values the pass does not count
        (:func:`~respai.engine.counted.refuse_uncounted`), or the engine fails while
        scanning (a bad value deep in a file).
    """
    read = [*keys, *([probability] if probability is not None else []), *count_non_null]
    refuse_uncounted(source, read)
    frame = source._frame
    group_exprs: list[Any] = [nw.col(k) for k in keys]
    aggs: list[Any] = [nw.len().alias("__n")]
    extra = [nw.col(c).count().alias(f"__nn{i}") for i, c in enumerate(count_non_null)]
    if probability is not None:
        p = nw.col(probability)
        if source.kinds[probability] != NUMERIC:
            p = p.cast(nw.Float64)  # an all-empty column reads as text; load checks that
        # bin keys stay floats (whole numbers): an integer cast fails on pandas' NaN
        scaled = (p * bins).floor().clip(upper_bound=bins - 1)
        micro = (p * MICRO).floor().fill_null(0).cast(nw.Int64)
        # derived columns first, so every aggregation is a simple one on every engine
        try:
            frame = frame.with_columns(
                scaled.alias("__bin"), micro.alias("__micro"), p.alias("__p")
            )
        except Exception:
            if source._con is not None:
                raise
            check_finite_frame(source, probability)  # eager frames fail here on NaN
            raise
        group_exprs.append(nw.col("__bin"))
        aggs += [
            nw.col("__p").count().alias("__pn"),
            nw.col("__micro").sum().alias("__ps"),
            nw.col("__p").min().alias("__pmin"),
            nw.col("__p").max().alias("__pmax"),
        ]
    aggs += extra
    width = len(keys)
    n_extra = len(extra)
    try:
        grouped = frame.group_by(*group_exprs, drop_null_keys=False).agg(*aggs)
        native = grouped.to_native()
        if (
            isinstance(native, duckdb.DuckDBPyRelation)
            and arrow_pays(source.file)
            and all(str(t) in _PLAIN_KEY_TYPES for t in native.types[:width])
        ):
            # DuckDB 2 names it to_arrow_table; 1.x, which pyproject allows, fetch_arrow_table
            fetch_arrow = getattr(native, "to_arrow_table", None) or native.fetch_arrow_table
            return _arrow_cube(fetch_arrow(), width, probability is not None, n_extra)
        rows = fetch(grouped)
    except duckdb.Error as exc:
        if source.file is None:
            raise
        if probability is not None:
            check_not_a_number(source, probability, exc)
        raise read_error(source.file, exc) from None
    except Exception:
        # a DataFrame engine refused the integer sums: name a NaN or infinite probability
        if probability is not None:
            check_finite_frame(source, probability)
        raise
    return Cube.of_rows(_cube_rows(rows, width, probability is not None, n_extra))


# DuckDB key types whose Arrow values read back as the same Python values as fetchall's
_PLAIN_KEY_TYPES = frozenset(
    {
        "VARCHAR",
        "BOOLEAN",
        "TINYINT",
        "SMALLINT",
        "INTEGER",
        "BIGINT",
        "UTINYINT",
        "USMALLINT",
        "UINTEGER",
        "UBIGINT",
        "FLOAT",
        "DOUBLE",
        '"NULL"',
        "NULL",
    }
)


#: Arrow's memory pool, once a cube came as Arrow in this process (:func:`_arrow_cube`).
_ARROW_POOLS: list[Any] = []


def release_memory() -> None:
    """Give back the memory Arrow's pool and the C heap keep once a large cube is let go.

    Arrow's allocator holds freed memory for reuse; the rank pass that follows sorts in
    DuckDB, not in Arrow, so the run's peak would carry it. Nothing is done when no cube
    came as Arrow (a small file's cells come as rows): pyarrow is then not touched, not
    even when another thread is importing it (the start-up preload).
    """
    for pool in _ARROW_POOLS:
        pool.release_unused()
    if _ARROW_POOLS:  # a large cube: the C heap's freed pages too (respai.heap)
        from respai.heap import trim_heap

        trim_heap()


def _cube_rows(
    rows: list[tuple[Any, ...]], width: int, probability: bool, n_extra: int
) -> list[CubeRow]:
    """The cells of a count pass's result rows (keys, [bin,] n, [probability sums,] extras)."""
    if not probability:
        return [
            CubeRow(
                tuple(row[:width]),
                None,
                int(row[width]),
                0,
                0,
                None,
                None,
                tuple(int(v) for v in row[width + 1 :]) if n_extra else (),
            )
            for row in rows
        ]
    # _cube_row's reading, inline: one call per cell is most of this loop's time
    return [
        CubeRow(
            tuple(row[:width]),
            None if is_null(pbin) else int(pbin),
            int(n),
            int(pn),
            0 if is_null(ps) else int(ps),
            None if is_null(pmin) else float(pmin),
            None if is_null(pmax) else float(pmax),
            tuple(int(v) for v in row[width + 6 :]) if n_extra else (),
        )
        for row in rows
        for pbin, n, pn, ps, pmin, pmax in (row[width : width + 6],)
    ]


def _arrow_cube(table: Any, width: int, probability: bool, n_extra: int) -> Cube:
    """A :class:`Cube` over DuckDB's result as an Arrow table: no object per cell.

    The columns are, in order: the keys, with a probability the bin, the cases, with a
    probability its count, sum of millionths, minimum and maximum, then the further
    columns' counts (as :func:`count_cube` asks for them).
    """
    import numpy as np
    import pyarrow as pa  # type: ignore[import-untyped]
    import pyarrow.compute as pc  # type: ignore[import-untyped]

    if not _ARROW_POOLS:
        _ARROW_POOLS.append(pa.default_memory_pool())
    base = width + (1 if probability else 0)
    at = {"n": base}
    if probability:
        at |= {
            "prob_bin": width,
            "prob_n": base + 1,
            "prob_sum": base + 2,
            "prob_min": base + 3,
            "prob_max": base + 4,
        }
    first_extra = base + (5 if probability else 1)

    def keys() -> list[list[Any]]:
        return [table.column(i).to_pylist() for i in range(width)]

    def numbers(name: str) -> tuple[Any, Any]:
        if name.startswith("non_null:"):
            pos = first_extra + int(name.partition(":")[2])
        elif name in at:
            pos = at[name]
        else:  # no probability: what the cells hold without one (0 cases, 0 sum, no bin)
            size = table.num_rows
            kind = np.float64 if name in ("prob_min", "prob_max") else np.int64
            has = name in ("prob_n", "prob_sum")
            return np.zeros(size, dtype=kind), np.full(size, has, dtype=bool)
        column = table.column(pos)
        if pa.types.is_floating(column.type):
            values = column.fill_null(0.0).to_numpy().astype(np.float64)
            valid = column.is_valid().to_numpy(zero_copy_only=False) & ~np.isnan(values)
            values[~valid] = 0.0
            if name in ("prob_min", "prob_max"):
                return values, valid
            # a bin: a whole number, read as an integer as int() reads it
            if not np.all(np.abs(values) < 2.0**62):
                raise OverflowError(f"the count pass's {name} is beyond int64")
            return values.astype(np.int64), valid
        valid = column.is_valid().to_numpy(zero_copy_only=False)
        try:
            ints = pc.cast(column.fill_null(0), pa.int64())
        except pa.ArrowInvalid as exc:  # a sum beyond int64
            raise OverflowError(f"the count pass's {name} is beyond int64") from exc
        return ints.to_numpy().astype(np.int64), valid

    def rows() -> list[CubeRow]:
        columns = [c.to_pylist() for c in table.columns]
        return _cube_rows(list(zip(*columns, strict=True)), width, probability, n_extra)

    def codes(i: int) -> tuple[Any, list[Any]] | None:
        # an Arrow column holds one type, so its values are told apart by value alone;
        # the dictionary is in the order of first appearance, and an empty cell (null)
        # takes its place in that order as the value None. None: read the values instead
        column = table.column(i)
        if pa.types.is_null(column.type):  # every cell empty: nothing to encode
            return None
        try:
            encoded = column.combine_chunks().dictionary_encode()
        except (pa.ArrowNotImplementedError, pa.ArrowInvalid, pa.ArrowTypeError):
            return None
        distinct = encoded.dictionary.to_pylist()
        index = encoded.indices.fill_null(-1).to_numpy().astype(np.int64)
        empty = np.flatnonzero(index < 0)
        if len(empty):
            first = int(empty[0])
            at = len(np.unique(index[:first]))  # distinct values seen before the first null
            index = np.where(index >= at, index + 1, index)
            index[empty] = at
            distinct.insert(at, None)
        return index, distinct

    return Cube(table.num_rows, keys, numbers, rows, codes)


def _cube_row(
    keys: tuple[Any, ...], pbin: Any, sums: Sequence[Any], non_null: tuple[int, ...]
) -> CubeRow:
    """One cube cell from a row of a count pass.

    ``sums`` is ``(n,)`` without a probability column, else
    ``(n, prob_n, prob_sum, prob_min, prob_max)``.
    """
    if len(sums) == 1:
        return CubeRow(keys, None, int(sums[0]), 0, 0, None, None, non_null)
    n, pn, ps, pmin, pmax = sums[:5]
    return CubeRow(
        keys=keys,
        prob_bin=None if is_null(pbin) else int(pbin),
        n=int(n),
        prob_n=int(pn),
        prob_sum=0 if is_null(ps) else int(ps),
        prob_min=None if is_null(pmin) else float(pmin),
        prob_max=None if is_null(pmax) else float(pmax),
        non_null=non_null,
    )


def group_counts(
    source: Source, keys: Sequence[str], *, value: str | None = None
) -> list[tuple[tuple[Any, ...], int]]:
    """Count cases per distinct combination of ``keys`` (and of ``value``, as a number).

    One ``GROUP BY`` pass where the data lives. With ``value`` (a score column), its
    value cast to a float is the last key, so each group is one cell of a histogram.
    Keys come back as raw Python values (``None`` for an empty cell).

    Raises
    ------
    InputError
        When a column holds values the pass does not count
        (:func:`~respai.engine.counted.refuse_uncounted`), or the engine fails while
        scanning (a bad value deep in a file).
    """
    refuse_uncounted(source, [*keys, *([value] if value is not None else [])])
    frame = source._frame
    group_exprs: list[Any] = [nw.col(k) for k in keys]
    try:
        if value is not None:
            v = nw.col(value)
            if source.kinds[value] != NUMERIC:
                v = v.cast(nw.Float64)  # an all-empty column reads as text
            frame = frame.with_columns(v.alias(_VALUE))
            group_exprs.append(nw.col(_VALUE))
        grouped = frame.group_by(*group_exprs, drop_null_keys=False).agg(
            nw.len().alias("__respai_n")
        )
        rows = fetch(grouped)
    except duckdb.Error as exc:
        raise scan_error(source, exc) from None
    width = len(group_exprs)
    return [(tuple(plain(v) for v in row[:width]), int(row[width])) for row in rows]


def scan_error(source: Source, exc: Exception) -> InputError:
    """Name the file and line behind a failed scan (each side of a join on its own)."""
    if source.file is not None:
        return read_error(source.file, exc)
    if isinstance(source, JoinedSource):
        for side in (source.left, source.right):
            try:
                count_cube(side, side.columns, None, 1)
            except InputError as named:
                return named
            except duckdb.Error as side_exc:  # pragma: no cover - count_cube names it
                if side.file is not None:
                    return read_error(side.file, side_exc)
    return InputError(
        f"cannot scan {source.description}: {shorten(str(exc))}.",
        "Check that the files are well formed.",
    )


def count_cube_and_groups(
    source: Source,
    keys: Sequence[str],
    probability: str | None,
    bins: int,
    count_non_null: Sequence[str],
    group_keys: Sequence[str],
    *,
    value: str | None = None,
    cube_left_only: bool = False,
) -> tuple[Cube, list[tuple[tuple[Any, ...], int]]]:
    """:func:`count_cube` and :func:`group_counts` from one scan of the data.

    When a run evaluates the group rules and the LL144 tables of one spec, both tallies
    come from the same open file(s) in one pass: on DuckDB, one ``GROUP BY GROUPING
    SETS`` query, whose two sets are exactly the two passes' ``GROUP BY`` (the results
    are the same integers). Elsewhere (an in-memory DataFrame, Spark) the two passes run
    one after the other over the same source.

    Parameters
    ----------
    source
        The opened cases; with ``cube_left_only``, a :class:`JoinedSource` whose rows
        without a decision (left side) are left out of the cube but not of the groups.
    keys, probability, bins, count_non_null
        As for :func:`count_cube`.
    group_keys, value
        As ``keys`` and ``value`` of :func:`group_counts`.
    cube_left_only
        Count only the rows of the left (decisions) file in the cube.

    Raises
    ------
    InputError
        When a column holds values the passes do not count
        (:func:`~respai.engine.counted.refuse_uncounted`), or the engine fails while
        scanning (a bad value deep in a file).
    """
    if source._con is None or (cube_left_only and not isinstance(source, JoinedSource)):
        from respai.engine.opening import decided_rows

        cube_source = (
            decided_rows(source) if cube_left_only and isinstance(source, JoinedSource) else source
        )
        return (
            count_cube(cube_source, keys, probability, bins, count_non_null),
            group_counts(source, group_keys, value=value),
        )
    extra = [c for c in (probability, value) if c is not None]
    refuse_uncounted(source, [*keys, *group_keys, *extra, *count_non_null])
    q = quote
    derived = ["1 AS __respai_a"]
    if probability is not None:
        p = q(probability)
        if source.kinds[probability] != NUMERIC:
            p = f"CAST({p} AS DOUBLE)"
        scaled, top = f"FLOOR({p} * {bins})", float(bins - 1)
        derived += [
            f"{p} AS __respai_p",
            f"CASE WHEN {scaled} > {top} THEN {top} ELSE {scaled} END AS __respai_bin",
            f"CAST(COALESCE(FLOOR({p} * {MICRO}), 0) AS BIGINT) AS __respai_micro",
        ]
    if value is not None:
        v = q(value) if source.kinds[value] == NUMERIC else f"CAST({q(value)} AS DOUBLE)"
        derived.append(f"{v} AS __respai_v")
    cube_cols = [*((IN_LEFT,) if cube_left_only else ()), *keys]
    binned = ["__respai_bin"] if probability is not None else []
    cube_set = [*cube_cols, *binned, "__respai_a"]
    group_set = [*group_keys, *(["__respai_v"] if value is not None else [])]
    columns = list(dict.fromkeys([*cube_set, *group_set]))
    aggs = ["COUNT(*) AS __respai_n"]
    if probability is not None:
        aggs += [
            "COUNT(__respai_p)",
            "SUM(__respai_micro)",
            "MIN(__respai_p)",
            "MAX(__respai_p)",
        ]
    aggs += [f"COUNT({q(c)})" for c in count_non_null]
    sql = (
        f"SELECT {', '.join(q(c) for c in columns)}, GROUPING(__respai_a) AS __respai_set, "
        + ", ".join(aggs)
        + f" FROM (SELECT *, {', '.join(derived)} FROM cases) "
        + "GROUP BY GROUPING SETS (("
        + ", ".join(q(c) for c in cube_set)
        + "), ("
        + ", ".join(q(c) for c in group_set)
        + "))"
    )
    try:
        rows = source._con.execute(sql).fetchall()
    except duckdb.Error as exc:
        if probability is not None:
            check_not_a_number(source, probability, exc)
        raise scan_error(source, exc) from None
    at = {c: i for i, c in enumerate(columns)}
    first = len(columns) + 1
    cube: list[CubeRow] = []
    groups: list[tuple[tuple[Any, ...], int]] = []
    n_extra = len(count_non_null)
    for row in rows:
        if row[len(columns)] == 1:  # the LL144 set
            groups.append((tuple(plain(row[at[c]]) for c in group_set), int(row[first])))
            continue
        if cube_left_only and not row[at[IN_LEFT]]:
            continue
        body = row[first:]
        non_null = tuple(int(x) for x in body[len(body) - n_extra :]) if n_extra else ()
        key = tuple(row[at[c]] for c in keys)
        if probability is None:
            cube.append(_cube_row(key, None, body[:1], non_null))
        else:
            cube.append(_cube_row(key, row[at["__respai_bin"]], body[:5], non_null))
    return Cube.of_rows(cube), groups
