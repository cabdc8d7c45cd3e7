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
import itertools
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
#: Up to this many groups in a batch, each is folded by its own numpy calls; past it,
#: all at once (:meth:`_RankStream._fold`), so many groups cost no Python loop of numpy
#: calls.
_LOOP_MAX = 64


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


def _unpacked(cell: Any, sizes: Sequence[int]) -> tuple[Any, Any]:
    """The group codes (rows x attributes, -1 when left out) and labels of ``__cell``."""
    cell = cell.astype(np.int64)
    y = cell & 1
    rest = cell >> 1
    cols = []
    for size in sizes:
        cols.append((rest % (size + 1) - 1).astype(np.int16 if size < 2**15 else np.int32))
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

    Each batch is cut into groups (a stable sort on the group code keeps the score order
    within a group) and each group into tie blocks (cases of one group at one score).
    Inside a group a positive's placement is ``x = 2 * below + t``, where ``below``
    counts the group's negatives in earlier batches and ``t = 2 * (negatives in earlier
    blocks of this batch) + (negatives in its own block)``. ``t`` is bounded by the
    batch, so numpy sums it exactly in 64 bits, for all groups of the batch at once;
    ``below`` enters through Python integers, once per group present:
    ``sum(x**2) = 4 below**2 m + 4 below sum(t) + sum(t**2)``. Negatives likewise.
    The work per batch is linear in its cases plus the groups it holds, and only groups
    that hold a case are kept.
    """

    def __init__(self, sizes: Sequence[int], groupings: Sequence[tuple[int, ...]]) -> None:
        self.groupings = list(groupings)
        self.radix = [[sizes[i] for i in g] for g in self.groupings]
        self.width = [math.prod(r) for r in self.radix]
        # per grouping, group code -> [positives, sum x, sum x^2, negatives, sum w, sum w^2]
        self.sums: list[dict[int, list[int]]] = [{} for _ in self.groupings]

    def add(self, codes: Any, y: Any, s: Any) -> None:
        """Fold in one batch: ``codes`` (rows x attributes), ``y`` (1/0), ``s`` sorted."""
        # the batch is sorted, so no two equal neighbours means no ties in any group
        ties = s if bool(np.any(s[1:] == s[:-1])) else None
        for gi in range(len(self.groupings)):
            self._grouping(gi, codes, y, ties)

    def _grouping(self, gi: int, codes: Any, y: Any, s: Any | None) -> None:
        grouping = self.groupings[gi]
        c: Any
        if not grouping:
            c = np.zeros(len(y), np.int16)
            yy, ss = y, s
        else:
            if len(grouping) == 1:
                c = codes[:, grouping[0]]
                ok = c >= 0
            else:
                code = np.zeros(len(y), np.int64)
                ok = np.ones(len(y), bool)
                for i, size in zip(grouping, self.radix[gi], strict=True):
                    col = codes[:, i]
                    ok &= col >= 0
                    code = code * size + col
                c = code
            c = c[ok]
            c = c.astype(np.int16 if self.width[gi] < 2**15 else np.int64)
            order = np.argsort(c, kind="stable")  # stable: score order kept per group
            c, yy = c[order], y[ok][order]
            ss = None if s is None else s[ok][order]
        if not len(c):
            return
        # the groups present in this batch: where the sorted code changes
        starts = np.flatnonzero(np.concatenate(([True], c[1:] != c[:-1])))
        if len(starts) > _LOOP_MAX:  # many groups: all at once
            self._fold(self.sums[gi], c, yy, ss)
            return
        bounds: list[int] = [*starts.tolist(), len(c)]
        acc = self.sums[gi]
        for lo, hi in itertools.pairwise(bounds):
            g = int(c[lo])
            sums = acc.get(g)
            if sums is None:
                sums = acc[g] = [0] * 6
            self._group(sums, yy[lo:hi], None if ss is None else ss[lo:hi])

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

    @staticmethod
    def _fold(acc: dict[int, list[int]], c: Any, y: Any, s: Any | None) -> None:
        """Fold one batch of one grouping, sorted by group code then score, into ``acc``.

        The same sums as :meth:`_group` for every group of the batch at once: one numpy
        pass over the batch and one Python step per group, instead of numpy calls per
        group.
        """
        n = len(c)
        new_group = np.empty(n, bool)
        new_group[0] = True
        np.not_equal(c[1:], c[:-1], out=new_group[1:])
        y64 = y.astype(np.int64)
        if s is None:  # no ties: every case is a block of its own
            new_block = np.ones(n, bool)
            w_pos = y64
        else:
            new_block = new_group.copy()
            new_block[1:] |= s[1:] != s[:-1]
            w_pos = np.add.reduceat(y64, np.flatnonzero(new_block))
        starts = np.flatnonzero(new_block)
        size = np.diff(np.append(starts, n))
        w_neg = size - w_pos
        # blocks that open a group, and the group (index) of every block
        opens = new_group[starts]
        group_of = np.cumsum(opens) - 1
        first = np.flatnonzero(opens)
        neg_before = np.cumsum(w_neg) - w_neg
        pos_before = np.cumsum(w_pos) - w_pos
        neg_before -= neg_before[first][group_of]
        pos_before -= pos_before[first][group_of]
        t_pos = 2 * neg_before + w_neg  # per block, for each positive in it
        t_neg = 2 * pos_before + w_pos
        codes: list[int] = c[starts[first]].tolist()
        sides = []
        for weight, t in ((w_pos, t_pos), (w_neg, t_neg)):
            m = np.add.reduceat(weight, first).tolist()
            s1 = np.add.reduceat(weight * t, first).tolist()
            sides.append((m, s1, _group_squares(weight, t, first, n)))
        (m_p, s1_p, s2_p), (m_n, s1_n, s2_n) = sides
        for j, g in enumerate(codes):
            sums = acc.get(g)
            if sums is None:
                sums = acc[g] = [0] * 6
            below_neg, below_pos = sums[3], sums[0]  # cases of the group in earlier batches
            for at, m, s1, s2, below in (
                (0, m_p[j], s1_p[j], s2_p[j], below_neg),
                (3, m_n[j], s1_n[j], s2_n[j], below_pos),
            ):
                if m:
                    sums[at] += m
                    sums[at + 1] += 2 * below * m + s1
                    sums[at + 2] += 4 * below * below * m + 4 * below * s1 + s2

    def result(self) -> dict[tuple[int, ...], dict[tuple[int, ...], RankParts]]:
        out: dict[tuple[int, ...], dict[tuple[int, ...], RankParts]] = {}
        for gi, grouping in enumerate(self.groupings):
            found: dict[tuple[int, ...], RankParts] = {}
            for code in sorted(self.sums[gi]):
                t = self.sums[gi][code]
                key: list[int] = []
                rest = code
                for size in reversed(self.radix[gi]):
                    key.append(rest % size)
                    rest //= size
                found[tuple(reversed(key))] = RankParts(t[0], t[3], t[1], t[2], t[4], t[5])
            out[grouping] = found
        return out


def _group_squares(weight: Any, t: Any, first: Any, n: int) -> list[int]:
    """``sum(weight * t**2)`` per group (blocks ``first[j]`` on), exact.

    ``t <= 2 n`` and the weights add up to at most ``n``, so the sums fit 64 bits while
    ``4 n**3 < 2**63``; past that, ``t`` is split as ``hi * 2**16 + lo``.
    """
    if 4 * n**3 < 2**63:
        return list(np.add.reduceat(weight * t * t, first).tolist())
    hi, lo = t >> _SPLIT, t & _LOW
    hh = np.add.reduceat(weight * hi * hi, first).tolist()
    hl = np.add.reduceat(weight * hi * lo, first).tolist()
    ll = np.add.reduceat(weight * lo * lo, first).tolist()
    return [_square(a, b, d) for a, b, d in zip(hh, hl, ll, strict=True)]


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
