"""The rank AUC's exact integer sums per group, in one sorted pass.

For every grouping at once, :func:`rank_sums` gathers the sums behind each group's rank
AUC and its DeLong variance (:class:`RankParts`). A DuckDB source streams the scored cases
sorted by score (DuckDB sorts out of core) through numpy, one batch at a time
(:class:`_RankStream`); an in-memory DataFrame is sorted where it is and folded the same
way; a lazy engine (Spark) runs the same sums as window functions where the data lives
(:func:`_rank_windows`). All give the same integers.
"""

from __future__ import annotations

import functools
import math
import operator
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import duckdb
import narwhals as nw
import numpy as np

from respai.engine.counts import scan_error
from respai.engine.finite import first_not_finite, not_finite
from respai.engine.source import NUMERIC, Source
from respai.engine.values import fetch, is_null

__all__ = ["RankParts", "rank_sums"]


@dataclass(frozen=True, slots=True)
class RankParts:
    """Exact integer sums behind one group's rank AUC and its DeLong variance.

    For a case labelled 1 at score ``s``, ``x = negatives below s + negatives at or below
    s`` (twice its DeLong placement numerator, so an integer); for a case labelled 0,
    ``w = positives below s + positives at or below s``. Only cases with a score are
    counted; "below" and "at" are within the same group.
    """

    positives: int
    negatives: int
    sum_x: int
    sum_x2: int
    sum_w: int
    sum_w2: int


#: Where a sum of squares could pass 64 bits (window functions on another engine, a huge
#: tie block), placements are split as ``x = hi * 2**16 + lo`` and the three partial sums
#: are combined in Python integers: exact up to about 2 billion cases per group.
_SPLIT = 16
_LOW = (1 << _SPLIT) - 1
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
            reader = getattr(ordered, "to_arrow_reader", None) or ordered.fetch_arrow_reader
            batches: Iterator[Any] = iter(reader(_STREAM_ROWS))
        elif isinstance(frame, nw.DataFrame):  # in memory already: sort it there
            table = packed.sort("__s").to_arrow()
            batches = iter(table.to_batches(max_chunksize=_STREAM_ROWS))
        else:  # Spark and other lazy engines: sums where the data lives
            _check_finite_score(source, frame, score)
            return _rank_windows(frame, groupings)
        try:
            return _rank_stream(batches, sizes, groupings)
        except _BadScore as bad:
            value = bad.value
        del batches  # close the stream: the connection answers one query at a time
        not_finite(source, score, value)
    except duckdb.Error as exc:
        raise scan_error(source, exc) from None


def _code_expr(column: str, codes: Mapping[Any, int]) -> Any:
    """``codes[value]`` for each raw value of ``column``, ``-1`` for any other (or empty)."""
    by_code: dict[int, list[Any]] = {}
    for raw, code in codes.items():
        if not is_null(raw):
            by_code.setdefault(code, []).append(raw)
    expr: Any = None
    for code, raws in sorted(by_code.items()):
        # equality chains run about twice as fast as is_in() lists in DuckDB
        cond = functools.reduce(operator.or_, (nw.col(column) == raw for raw in raws))
        expr = (nw.when(cond) if expr is None else expr.when(cond)).then(nw.lit(code))
    if expr is None:
        return nw.lit(-1).cast(nw.Int16)
    return expr.otherwise(nw.lit(-1)).cast(nw.Int16)


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
    exprs = [
        _code_expr(a, codes).alias(f"__a{i}")
        for i, (a, codes) in enumerate(zip(attributes, attribute_codes, strict=True))
    ]
    score_expr = s.cast(nw.Float64) + 0.0  # adding 0.0 turns -0.0 into 0.0
    exprs += [_code_expr(label, label_codes).alias("__y"), score_expr.alias("__s")]
    return source._frame.select(*exprs).filter(~nw.col("__s").is_null() & (nw.col("__y") >= 0))


def _packed(sizes: Sequence[int]) -> Any:
    """``__cell = y + 2 * (a0 + 1) + 2 * (k0 + 1) * (a1 + 1) + ...``, one integer per case."""
    expr: Any = nw.col("__y").cast(nw.Int64)
    step = 2
    for i, size in enumerate(sizes):
        expr = expr + (nw.col(f"__a{i}").cast(nw.Int64) + 1) * step
        step *= size + 1
    return expr.cast(nw.Int32 if step < 2**31 else nw.Int64).alias("__cell")


def _unpacked(cell: Any, sizes: Sequence[int]) -> tuple[Any, Any]:
    """The group codes (rows x attributes, -1 when left out) and labels of ``__cell``."""
    cell = cell.astype(np.int64)
    y = cell & 1
    rest = cell >> 1
    cols = []
    for size in sizes:
        cols.append((rest % (size + 1) - 1).astype(np.int16))
        rest //= size + 1
    codes = np.column_stack(cols) if cols else np.zeros((len(cell), 0), np.int16)
    return codes, y


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
            hi, lo = nw.col(v) // (_LOW + 1), nw.col(v) % (_LOW + 1)
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
                n_x, n_w, s_x, _square(hh_x, hl_x, ll_x), s_w, _square(hh_w, hl_w, ll_w)
            )
        out[grouping] = found
    return out


def _square(hh: int, hl: int, ll: int) -> int:
    """``sum(x**2)`` from the sums of ``hi*hi``, ``hi*lo`` and ``lo*lo``."""
    return (hh << (2 * _SPLIT)) + (hl << (_SPLIT + 1)) + ll


class _RankStream:
    """Running sums over cases arriving sorted by score, for every grouping at once.

    Each batch is cut into groups (a stable sort on the small group code keeps the
    score order within a group). Inside a group a positive's placement is
    ``x = 2 * below + t``, where ``below`` counts the group's negatives in earlier
    batches and ``t`` counts them in this batch (negatives before it, plus those before
    the end of its tie block). ``t`` is bounded by the batch, so numpy sums it exactly in
    64 bits; ``below`` enters through Python integers:
    ``sum(x**2) = 4 below**2 m + 4 below sum(t) + sum(t**2)``. Negatives likewise.
    """

    def __init__(self, sizes: Sequence[int], groupings: Sequence[tuple[int, ...]]) -> None:
        self.groupings = list(groupings)
        self.radix = [[sizes[i] for i in g] for g in self.groupings]
        self.width = [math.prod(r) for r in self.radix]
        # per grouping and group code: [positives, sum x, sum x^2, negatives, sum w, sum w^2]
        self.sums = [[[0] * 6 for _ in range(w)] for w in self.width]

    def add(self, codes: Any, y: Any, s: Any) -> None:
        """Fold in one batch: ``codes`` (rows x attributes), ``y`` (1/0), ``s`` sorted."""
        # the batch is sorted, so no two equal neighbours means no ties in any group
        ties = s if bool(np.any(s[1:] == s[:-1])) else None
        for gi in range(len(self.groupings)):
            self._grouping(gi, codes, y, ties)

    def _grouping(self, gi: int, codes: Any, y: Any, s: Any | None) -> None:
        grouping = self.groupings[gi]
        if not grouping:
            self._group(self.sums[gi][0], y, s)
            return
        if len(grouping) == 1:
            c = codes[:, grouping[0]]
            ok = c >= 0
        else:
            code = np.zeros(len(y), np.int32)
            ok = np.ones(len(y), bool)
            for i, size in zip(grouping, self.radix[gi], strict=True):
                col = codes[:, i]
                ok &= col >= 0
                code = code * size + col
            c = code
        c = c[ok].astype(np.int16 if self.width[gi] < 2**15 else np.int64)
        order = np.argsort(c, kind="stable")  # stable: score order kept per group
        c, yy = c[order], y[ok][order]
        ss = None if s is None else s[ok][order]
        if not len(c):
            return
        # the groups present in this batch: where the sorted code changes
        starts: list[int] = np.flatnonzero(np.concatenate(([True], c[1:] != c[:-1]))).tolist()
        for lo, hi in zip(starts, [*starts[1:], len(c)], strict=True):
            g = int(c[lo])
            self._group(self.sums[gi][g], yy[lo:hi], None if ss is None else ss[lo:hi])

    @staticmethod
    def _group(acc: list[int], y: Any, s: Any | None) -> None:
        """Fold one group's cases of one batch (in score order) into ``acc``."""
        below_neg, below_pos = acc[3], acc[0]  # cases of the group in earlier batches
        if s is None:  # no ties: a case's "before" and "at or before" counts agree
            pos_at = np.flatnonzero(y)
            neg_at = np.flatnonzero(y == 0)
            # negatives before the k-th positive: its position minus k; twice that is t
            t_pos = 2 * (pos_at - np.arange(len(pos_at)))
            t_neg = 2 * (neg_at - np.arange(len(neg_at)))
            weight_pos = weight_neg = None
        else:
            new = np.empty(len(y), bool)
            new[0] = True
            np.not_equal(s[1:], s[:-1], out=new[1:])
            starts = np.flatnonzero(new)
            size = np.diff(np.append(starts, len(y)))
            weight_pos = np.add.reduceat(y.astype(np.int64), starts)  # positives per block
            weight_neg = size - weight_pos
            neg_before = np.cumsum(weight_neg) - weight_neg
            pos_before = np.cumsum(weight_pos) - weight_pos
            t_pos = 2 * neg_before + weight_neg  # per block, for each positive in it
            t_neg = 2 * pos_before + weight_pos
        sides = ((0, t_pos, weight_pos, below_neg), (3, t_neg, weight_neg, below_pos))
        for at, t, weight, below in sides:
            m = len(t) if weight is None else int(weight.sum())
            if m == 0:
                continue
            s1 = int(t.sum()) if weight is None else int(np.dot(weight, t))
            s2 = _sum_squares(t, weight)
            acc[at] += m
            acc[at + 1] += 2 * below * m + s1
            acc[at + 2] += 4 * below * below * m + 4 * below * s1 + s2

    def result(self) -> dict[tuple[int, ...], dict[tuple[int, ...], RankParts]]:
        out: dict[tuple[int, ...], dict[tuple[int, ...], RankParts]] = {}
        for gi, grouping in enumerate(self.groupings):
            found: dict[tuple[int, ...], RankParts] = {}
            for code, t in enumerate(self.sums[gi]):
                if t[0] + t[3] == 0:
                    continue
                key: list[int] = []
                rest = code
                for size in reversed(self.radix[gi]):
                    key.append(rest % size)
                    rest //= size
                found[tuple(reversed(key))] = RankParts(t[0], t[3], t[1], t[2], t[4], t[5])
            out[grouping] = found
        return out


def _sum_squares(t: Any, weight: Any | None) -> int:
    """``sum(weight * t**2)`` exactly: in int64 when it cannot overflow, else split."""
    top = int(t.max())
    total = len(t) if weight is None else int(weight.sum())
    if total * top * top < 2**62:
        return int(np.dot(t, t)) if weight is None else int(np.dot(weight, t * t))
    hi, lo = t >> _SPLIT, t & _LOW
    w = np.ones(len(t), np.int64) if weight is None else weight
    return _square(int(np.dot(w, hi * hi)), int(np.dot(w, hi * lo)), int(np.dot(w, lo * lo)))


class _BadScore(Exception):
    def __init__(self, value: float) -> None:
        self.value = value


def _rank_stream(
    batches: Iterator[Any],
    sizes: Sequence[int],
    groupings: Sequence[tuple[int, ...]],
) -> dict[tuple[int, ...], dict[tuple[int, ...], RankParts]]:
    """Fold Arrow batches of the scored cases, sorted by score, into the running sums.

    A tie block is never split between two folds: the last one of each batch is held
    back and folded with the next.
    """
    stream = _RankStream(sizes, groupings)
    held: list[Any] | None = None
    for batch in batches:
        if batch.num_rows == 0:
            continue
        codes, y = _unpacked(batch.column(0).to_numpy(), sizes)
        s = batch.column(1).to_numpy()
        if not np.isfinite(s[-1]):  # NaN and +inf sort last, -inf first
            raise _BadScore(float(s[-1]))
        if not np.isfinite(s[0]):
            raise _BadScore(float(s[0]))
        if held is not None:
            codes = np.concatenate((held[0], codes))
            y = np.concatenate((held[1], y))
            s = np.concatenate((held[2], s))
        # hold back the last tie block: the next batch may continue it
        cut = int(np.searchsorted(s, s[-1], side="left"))
        held = [codes[cut:], y[cut:], s[cut:]]
        if cut:
            stream.add(codes[:cut], y[:cut], s[:cut])
    if held is not None and len(held[1]):
        stream.add(*held)
    return stream.result()


def _check_finite_score(source: Source, frame: Any, score: str) -> None:
    value = first_not_finite(frame, "__s")
    if value is not None:
        not_finite(source, score, value)
