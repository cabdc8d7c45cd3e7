"""The numpy fold behind the rank AUC: running sums over cases sorted by score.

:func:`respai.engine.ranks.rank_sums` streams the scored cases sorted by score, one
packed code per case (label and group indices), and :func:`fold_stream` folds them into
each group's :class:`~respai.engine.ranks.RankParts`. numpy is imported here only, so a
run without an AUC need not load it.
"""

from __future__ import annotations

import itertools
import math
import os
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np

from respai.engine.rank_parts import LOW, SPLIT, RankParts, square

__all__ = ["Arrays", "BadScore", "fold_stream"]

#: Up to this many groups in a batch, each is folded by its own numpy calls; past it,
#: all at once (:meth:`_RankStream._fold`), so many groups cost no Python loop of numpy
#: calls.
_LOOP_MAX = 64
#: A batch of at least this many cases is folded one grouping per thread.
_PARALLEL_MIN = 100_000
#: Up to this many packed cells (every combination of attribute codes, left out
#: included), each grouping's group code is read from a table indexed by the packed
#: cell, one lookup per case; past it, the cell is unpacked into its attribute codes.
_TABLE_MAX = 1 << 16


def _code_tables(sizes: Sequence[int], groupings: Sequence[tuple[int, ...]]) -> list[Any]:
    """Per grouping, the group code of every packed cell (``__cell >> 1``), ``-1`` when left out.

    The inverse of the packing of :func:`respai.engine.ranks._packed`: a cell is
    ``(a0 + 1) + (k0 + 1) * (a1 + 1) + ...``, and a group code is the grouping's
    attribute codes in mixed radix (the declared sizes), as :meth:`_RankStream.result`
    decodes it.
    """
    cells = np.arange(math.prod(size + 1 for size in sizes), dtype=np.int64)
    digits = []
    rest = cells
    for size in sizes:
        digits.append(rest % (size + 1) - 1)
        rest = rest // (size + 1)
    tables = []
    for grouping in groupings:
        code = np.zeros(len(cells), np.int64)
        ok = np.ones(len(cells), bool)
        for i in grouping:
            ok &= digits[i] >= 0
            code = code * sizes[i] + digits[i]
        width = math.prod(sizes[i] for i in grouping)
        tables.append(np.where(ok, code, -1).astype(np.int16 if width < 2**15 else np.int64))
    return tables


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

    def __init__(
        self, sizes: Sequence[int], groupings: Sequence[tuple[int, ...]], *, threads: bool = True
    ) -> None:
        self.groupings = list(groupings)
        self.radix = [[sizes[i] for i in g] for g in self.groupings]
        self.width = [math.prod(r) for r in self.radix]
        # per grouping, group code -> [positives, sum x, sum x^2, negatives, sum w, sum w^2]
        self.sums: list[dict[int, list[int]]] = [{} for _ in self.groupings]
        cells = math.prod(size + 1 for size in sizes)
        self.tables = _code_tables(sizes, self.groupings) if cells <= _TABLE_MAX else None
        # one grouping per thread on a large batch: numpy sorts and sums without the GIL,
        # and each grouping has its own sums, so the order of the threads changes nothing
        workers = min(len(self.groupings), os.cpu_count() or 1) if threads else 1
        self._pool = ThreadPoolExecutor(workers, "respai-fold") if workers > 1 else None

    def close(self) -> None:
        """Let the fold's threads go (:func:`fold_stream` calls it however the fold ends)."""
        if self._pool is not None:
            self._pool.shutdown(wait=True)
            self._pool = None

    def add(self, codes: Any, y: Any, s: Any) -> None:
        """Fold in one batch: ``codes``, ``y`` (1/0) and ``s`` (sorted by score).

        ``codes`` is the packed cell without its label bit (``__cell >> 1``) when the
        stream reads group codes from tables (:attr:`tables`), else the attribute codes
        (rows x attributes, :func:`_unpacked`).
        """
        # the batch is sorted, so no two equal neighbours means no ties in any group
        ties = s if bool(np.any(s[1:] == s[:-1])) else None
        if self._pool is None or len(y) < _PARALLEL_MIN:
            for gi in range(len(self.groupings)):
                self._grouping(gi, codes, y, ties)
            return
        # every grouping of this batch is folded before the next batch starts
        done = self._pool.map(
            lambda gi: self._grouping(gi, codes, y, ties), range(len(self.groupings))
        )
        for _ in done:  # re-raises a thread's exception here
            pass

    def _grouping(self, gi: int, codes: Any, y: Any, s: Any | None) -> None:
        grouping = self.groupings[gi]
        c: Any
        if not grouping:
            c = np.zeros(len(y), np.int16)
            yy, ss = y, s
        else:
            if self.tables is not None:
                c = self.tables[gi][codes]
                ok = c >= 0
            elif len(grouping) == 1:
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
    hi, lo = t >> SPLIT, t & LOW
    hh = np.add.reduceat(weight * hi * hi, first).tolist()
    hl = np.add.reduceat(weight * hi * lo, first).tolist()
    ll = np.add.reduceat(weight * lo * lo, first).tolist()
    return [square(a, b, d) for a, b, d in zip(hh, hl, ll, strict=True)]


def _sum_squares(t: Any, weight: Any | None) -> int:
    """``sum(weight * t**2)`` exactly: in int64 when it cannot overflow, else split."""
    top = int(t.max())
    total = len(t) if weight is None else int(weight.sum())
    if total * top * top < 2**62:
        return int(np.dot(t, t)) if weight is None else int(np.dot(weight, t * t))
    hi, lo = t >> SPLIT, t & LOW
    w = np.ones(len(t), np.int64) if weight is None else weight
    return square(int(np.dot(w, hi * hi)), int(np.dot(w, hi * lo)), int(np.dot(w, lo * lo)))


class Arrays:
    """A batch of numpy columns, read by the fold as it reads an Arrow record batch.

    A small file's scored cases come from DuckDB as numpy arrays in one fetch
    (:func:`respai.engine.ranks.rank_sums`), which spares the import of pyarrow.
    """

    def __init__(self, columns: Sequence[np.ndarray]) -> None:
        self.columns = list(columns)
        self.num_rows = len(self.columns[0]) if self.columns else 0

    def column(self, i: int) -> np.ndarray:
        """The ``i``-th column."""
        return self.columns[i]


def _values(column: Any) -> Any:
    """A null-free Arrow array of fixed-width numbers as a numpy array, without a copy.

    Read from its data buffer: ``Array.to_numpy()`` imports pandas when it is installed
    (about 0.2 s, more than the whole AUC pass of a small file). Arrays with nulls or of
    other types go through ``to_numpy``; a numpy array (:class:`Arrays`) is returned as
    it is.
    """
    if isinstance(column, np.ndarray):
        return column
    try:
        dtype = np.dtype(str(column.type))
    except TypeError:
        dtype = None
    if column.null_count or dtype is None or dtype.kind not in "iuf":
        return column.to_numpy(zero_copy_only=False)
    return np.frombuffer(
        column.buffers()[1], dtype=dtype, count=len(column), offset=column.offset * dtype.itemsize
    )


class BadScore(Exception):
    """A score that is NaN or infinite, met while folding (``value``)."""

    def __init__(self, value: float) -> None:
        self.value = value


def fold_stream(
    batches: Iterator[Any],
    sizes: Sequence[int],
    groupings: Sequence[tuple[int, ...]],
    *,
    threads: bool = True,
) -> dict[tuple[int, ...], dict[tuple[int, ...], RankParts]]:
    """Fold Arrow batches of the scored cases, sorted by score, into the running sums.

    A tie block is never split between two folds: the last one of each batch is held
    back and folded with the next. With ``threads`` (and more than one core), the
    groupings of a large batch are folded on threads of their own; the sums are the
    same either way.
    """
    stream = _RankStream(sizes, groupings, threads=threads)
    try:
        return _fold_batches(stream, batches, sizes)
    finally:
        stream.close()


def _fold_batches(
    stream: _RankStream, batches: Iterator[Any], sizes: Sequence[int]
) -> dict[tuple[int, ...], dict[tuple[int, ...], RankParts]]:
    held: list[Any] | None = None
    for batch in batches:
        if batch.num_rows == 0:
            continue
        cell = _values(batch.column(0))
        if stream.tables is not None:
            codes, y = cell >> 1, cell & 1
        else:
            codes, y = _unpacked(cell, sizes)
        s = _values(batch.column(1))
        if not np.isfinite(s[-1]):  # NaN and +inf sort last, -inf first
            raise BadScore(float(s[-1]))
        if not np.isfinite(s[0]):
            raise BadScore(float(s[0]))
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
