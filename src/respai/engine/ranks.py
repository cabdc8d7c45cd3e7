"""The rank AUC's exact integer sums per group, in one sorted pass.

For every grouping at once, :func:`rank_sums` gathers the sums behind each group's rank
AUC and its DeLong variance (:class:`RankParts`). A DuckDB source streams the scored cases
sorted by score (DuckDB sorts out of core) through the numpy fold of
:mod:`respai.engine.fold`, one batch at a time (numpy is loaded only then); an in-memory
DataFrame is sorted where it is and folded the same way; a lazy engine (Spark) runs the
same sums as window functions where the data lives (:func:`_rank_windows`), except Spark,
which sorts once and folds each partition (:mod:`respai.engine.spark_ranks`). All give
the same integers.
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import duckdb
import narwhals as nw

from respai.engine.count_pass import scan_error
from respai.engine.files import arrow_pays
from respai.engine.finite import first_not_finite, not_finite
from respai.engine.rank_parts import LOW, RankParts, square
from respai.engine.source import NUMERIC, Source
from respai.engine.values import fetch, is_null, is_spark

__all__ = ["RankParts", "rank_sums"]


_STREAM_ROWS = 1_000_000


def rank_sums(
    source: Source,
    score: str,
    label: str,
    label_codes: Mapping[Any, int],
    attributes: Sequence[str],
    attribute_codes: Sequence[Mapping[Any, int]],
    sizes: Sequence[int],
    groupings: Sequence[tuple[int, ...]],
) -> dict[tuple[int, ...], dict[tuple[int, ...], RankParts]]:
    """The rank-AUC sums per group of every grouping, in one sorted pass.

    ``label_codes`` maps each raw label value to 1 or 0 and ``attribute_codes[i]`` maps
    each raw value of ``attributes[i]`` to the index of its declared group, ``0`` to
    ``sizes[i] - 1``. A value not in its map leaves the case out of the groupings that
    use that column (a label not in its map leaves it out everywhere). ``groupings``
    lists attribute indices (``()`` is the whole file). The result maps grouping to
    group-index tuple to :class:`RankParts`; groups without a scored case are absent.

    A DuckDB source streams the scored cases sorted by score (DuckDB sorts out of core)
    through numpy, one batch at a time; an in-memory DataFrame is sorted where it is and
    folded the same way; a lazy engine (Spark) runs the same sums as window functions
    where the data lives. All give the same integers.

    Raises
    ------
    InputError
        When the score column holds NaN or infinity, or the engine fails while scanning.
    """
    frame = _coded(source, score, label, label_codes, attributes, attribute_codes)
    native = frame.to_native()
    try:
        # the stream sorts one packed code per case (label and groups) with its score
        packed = frame.select(_packed(sizes), nw.col("__s"))
        if isinstance(native, duckdb.DuckDBPyRelation):
            ordered = packed.to_native().order("__s")
            batches: Iterator[Any]
            if arrow_pays(source.file):
                reader = getattr(ordered, "to_arrow_reader", None) or ordered.fetch_arrow_reader
                batches = iter(reader(_STREAM_ROWS))
            else:  # a small file: one fetch as numpy arrays, without importing pyarrow
                from respai.engine.fold import Arrays

                batches = iter([Arrays(list(ordered.fetchnumpy().values()))])
        elif isinstance(frame, nw.DataFrame):  # in memory already: sort it there
            table = packed.sort("__s").to_arrow()
            batches = iter(table.to_batches(max_chunksize=_STREAM_ROWS))
        elif is_spark(native):  # one sort, folded per partition where it lives
            from respai.engine.spark_ranks import spark_rank_sums

            try:
                return spark_rank_sums(packed.to_native(), sizes, groupings)
            except Exception as exc:  # the fold refuses NaN and infinity; say where
                _check_finite_score(source, frame, score)
                raise scan_error(source, exc) from None
        else:  # other lazy engines: window functions where the data lives
            _check_finite_score(source, frame, score)
            return _rank_windows(frame, groupings)
        from respai.engine.fold import BadScore, fold_stream

        try:
            return fold_stream(batches, sizes, groupings)
        except BadScore as bad:
            value = bad.value
        del batches  # close the stream: the connection answers one query at a time
        not_finite(source, score, value)
    except duckdb.Error as exc:
        raise scan_error(source, exc) from None


#: Up to this many raw values, a column is coded by an equality chain (about twice as
#: fast as an ``is_in()`` list in DuckDB); past it, by a join on a table of the values
#: (DuckDB) or a lookup (other engines), so that many declared values cost one hash
#: lookup per case, not one comparison per value (and no deeply nested expression).
_CHAIN_MAX = 32


def _code_dtype(codes: Mapping[Any, int]) -> Any:
    """The narrowest signed integer type holding every code and ``-1``."""
    return nw.Int16 if max(codes.values(), default=0) < 2**15 else nw.Int32


def _by_code(codes: Mapping[Any, int]) -> dict[int, list[Any]]:
    by_code: dict[int, list[Any]] = {}
    for raw, code in codes.items():
        if not is_null(raw):
            by_code.setdefault(code, []).append(raw)
    return by_code


def _code_expr(column: str, codes: Mapping[Any, int]) -> Any:
    """``codes[value]`` for each raw value of ``column``, ``-1`` for any other (or empty)."""
    by_code = _by_code(codes)
    dtype = _code_dtype(codes)
    if sum(len(raws) for raws in by_code.values()) > _CHAIN_MAX:
        raws = [raw for rs in by_code.values() for raw in rs]
        new = [code for code, rs in by_code.items() for _ in rs]
        return nw.col(column).replace_strict(raws, new, default=-1, return_dtype=dtype)
    expr: Any = None
    for code, raws in sorted(by_code.items()):
        cond = functools.reduce(operator.or_, (nw.col(column) == raw for raw in raws))
        expr = (nw.when(cond) if expr is None else expr.when(cond)).then(nw.lit(code))
    if expr is None:
        return nw.lit(-1).cast(dtype)
    return expr.otherwise(nw.lit(-1)).cast(dtype)


def _joined_codes(
    source: Source, frame: Any, column: str, codes: Mapping[Any, int], name: str
) -> Any:
    """``frame`` with ``name`` = the code of ``column`` (``-1`` for any other), by a join.

    DuckDB hashes the small table of raw values once and looks each case up in it.
    """
    by_code = _by_code(codes)
    data = {
        f"{name}_raw": [raw for rs in by_code.values() for raw in rs],
        f"{name}_code": [code for code, rs in by_code.items() for _ in rs],
    }
    table = nw.from_dict(data, backend="pyarrow").to_native()
    assert source._con is not None
    lookup = nw.from_native(source._con.from_arrow(table))
    joined = frame.join(lookup, left_on=column, right_on=f"{name}_raw", how="left")
    code = nw.col(f"{name}_code").fill_null(-1).cast(_code_dtype(codes))
    return joined.with_columns(code.alias(name))


def _coded(
    source: Source,
    score: str,
    label: str,
    label_codes: Mapping[Any, int],
    attributes: Sequence[str],
    attribute_codes: Sequence[Mapping[Any, int]],
) -> Any:
    """``__a0 .. __ak`` group codes, ``__y`` (1/0) and ``__s``, for cases with a score."""
    s = nw.col(score)
    if source.kinds[score] != NUMERIC:
        s = s.cast(nw.Float64)  # an all-empty column reads as text
    frame = source._frame
    on_duckdb = isinstance(frame.to_native(), duckdb.DuckDBPyRelation) and source._con is not None
    exprs = []
    for i, (a, codes) in enumerate(zip(attributes, attribute_codes, strict=True)):
        if on_duckdb and len(codes) > _CHAIN_MAX:
            frame = _joined_codes(source, frame, a, codes, f"__a{i}")
            exprs.append(nw.col(f"__a{i}"))
        else:
            exprs.append(_code_expr(a, codes).alias(f"__a{i}"))
    score_expr = s.cast(nw.Float64) + 0.0  # adding 0.0 turns -0.0 into 0.0
    exprs += [_code_expr(label, label_codes).alias("__y"), score_expr.alias("__s")]
    return frame.select(*exprs).filter(~nw.col("__s").is_null() & (nw.col("__y") >= 0))


def _packed(sizes: Sequence[int]) -> Any:
    """``__cell = y + 2 * (a0 + 1) + 2 * (k0 + 1) * (a1 + 1) + ...``, one integer per case."""
    expr: Any = nw.col("__y").cast(nw.Int64)
    step = 2
    for i, size in enumerate(sizes):
        expr = expr + (nw.col(f"__a{i}").cast(nw.Int64) + 1) * step
        step *= size + 1
    return expr.cast(nw.Int32 if step < 2**31 else nw.Int64).alias("__cell")


def _rank_windows(
    frame: Any, groupings: Sequence[tuple[int, ...]]
) -> dict[tuple[int, ...], dict[tuple[int, ...], RankParts]]:
    """The sums as window functions (Spark, DataFrames): one query per grouping."""
    y = nw.col("__y").cast(nw.Int64)  # 64-bit sums on every engine
    base = frame.with_columns(y.alias("__y"), (1 - y).alias("__q"))
    out: dict[tuple[int, ...], dict[tuple[int, ...], RankParts]] = {}
    for grouping in groupings:
        keys = [f"__a{i}" for i in grouping]
        part = base
        for k in keys:
            part = part.filter(nw.col(k) >= 0)
        # one row per group and distinct score, so a running sum is exact under ties
        h = part.group_by(*keys, "__s").agg(
            nw.col("__y").sum().alias("p"), nw.col("__q").sum().alias("q")
        )
        h = h.with_columns(
            nw.col("q").cum_sum().over(*keys, order_by="__s").alias("cq"),
            nw.col("p").cum_sum().over(*keys, order_by="__s").alias("cp"),
        )
        h = h.with_columns(
            (2 * nw.col("cq") - nw.col("q")).alias("x"),
            (2 * nw.col("cp") - nw.col("p")).alias("w"),
        )
        terms: list[Any] = []
        for weight, v in (("p", "x"), ("q", "w")):
            hi, lo = nw.col(v) // (LOW + 1), nw.col(v) % (LOW + 1)
            c = nw.col(weight)
            terms += [
                c.alias(f"n_{v}"),
                (c * nw.col(v)).alias(f"s_{v}"),
                (c * hi * hi).alias(f"hh_{v}"),
                (c * hi * lo).alias(f"hl_{v}"),
                (c * lo * lo).alias(f"ll_{v}"),
            ]
        h = h.select(*keys, *terms)
        names = [f"{t}_{v}" for v in ("x", "w") for t in ("n", "s", "hh", "hl", "ll")]
        sums = [nw.col(n).sum().alias(n) for n in names]
        agg = h.group_by(*keys).agg(*sums) if keys else h.select(*sums)
        found: dict[tuple[int, ...], RankParts] = {}
        for row in fetch(agg):
            key = tuple(int(v) for v in row[: len(keys)])
            vals = [0 if is_null(v) else int(v) for v in row[len(keys) :]]
            n_x, s_x, hh_x, hl_x, ll_x, n_w, s_w, hh_w, hl_w, ll_w = vals
            if n_x + n_w == 0:
                continue
            found[key] = RankParts(
                n_x, n_w, s_x, square(hh_x, hl_x, ll_x), s_w, square(hh_w, hl_w, ll_w)
            )
        out[grouping] = found
    return out


def _check_finite_score(source: Source, frame: Any, score: str) -> None:
    value = first_not_finite(frame, "__s")
    if value is not None:
        not_finite(source, score, value)
