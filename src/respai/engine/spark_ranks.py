"""The rank AUC's sums on Spark: one sort by score, folded per partition, combined exactly.

Spark sorts the scored cases once, range-partitioned by score
(``repartitionByRange`` then ``sortWithinPartitions``), each case one packed code (label
and every attribute's group) with its score. Every partition is folded by the same numpy
fold as a DuckDB stream (:func:`respai.engine.fold.fold_stream`) where it lives
(``mapInArrow``, Arrow batches, no per-row Python), into each group's
:class:`~respai.engine.rank_parts.RankParts` *within the partition*. Only those few
integers per partition and group come back.

Range partitioning sends equal scores to the same partition, so no tie block is split,
and every case of partition ``j`` scores above every case of the partitions before it.
A case's placement numerator over the whole group is then its numerator within its
partition plus twice the cases of the other label in earlier partitions (``O``), so,
with ``m`` cases of the label in partition ``j``::

    sum x   = sum x_j + 2 O m
    sum x^2 = sum x_j^2 + 4 O sum x_j + 4 O^2 m

exact in Python integers, partition by partition in score order. The result equals the
DuckDB stream's to the last digit.

The fold runs in Spark's Python workers, which must have respai, numpy and pyarrow
installed (a local session uses this interpreter, see :func:`respai.engine.spark.spark_session`).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator, Sequence
from typing import Any

from respai.engine.rank_parts import RankParts

__all__ = ["combine_partitions", "spark_rank_sums"]

_SCHEMA = (
    "part long, grouping long, code string, positives long, negatives long, "
    "sum_x string, sum_x2 string, sum_w string, sum_w2 string"
)

Parts = dict[tuple[int, ...], dict[tuple[int, ...], RankParts]]


def _fold_partition(
    sizes: Sequence[int], groupings: Sequence[tuple[int, ...]]
) -> Any:  # the function mapInArrow runs in each Python worker
    sizes = tuple(sizes)
    groupings = tuple(tuple(g) for g in groupings)

    def fold(batches: Iterator[Any]) -> Iterator[Any]:
        import pyarrow as pa  # type: ignore[import-untyped]
        from pyspark import TaskContext

        from respai.engine.fold import fold_stream

        context = TaskContext.get()
        part = 0 if context is None else context.partitionId()
        # one thread per worker: Spark already runs a worker per core
        found = fold_stream(batches, sizes, groupings, threads=False)
        rows: dict[str, list[Any]] = {k: [] for k in _SCHEMA_NAMES}
        for gi, grouping in enumerate(groupings):
            for key, p in found.get(grouping, {}).items():
                values = (
                    part,
                    gi,
                    ",".join(map(str, key)),
                    p.positives,
                    p.negatives,
                    str(p.sum_x),
                    str(p.sum_x2),
                    str(p.sum_w),
                    str(p.sum_w2),
                )
                for name, value in zip(_SCHEMA_NAMES, values, strict=True):
                    rows[name].append(value)
        if rows["part"]:
            yield pa.RecordBatch.from_pydict(rows)

    return fold


_SCHEMA_NAMES = tuple(field.split()[0] for field in _SCHEMA.split(", "))


def combine_partitions(
    pieces: Sequence[tuple[int, tuple[int, ...], tuple[int, ...], RankParts]],
) -> Parts:
    """Each group's sums over the whole data from its sums within score-ordered partitions.

    ``pieces`` holds ``(partition, grouping, group key, parts within the partition)``;
    partition ``j`` holds only scores above those of every partition before it.
    """
    out: Parts = {}
    seen_pos: dict[tuple[tuple[int, ...], tuple[int, ...]], int] = {}
    seen_neg: dict[tuple[tuple[int, ...], tuple[int, ...]], int] = {}
    for _part, grouping, key, p in sorted(pieces, key=lambda piece: piece[0]):
        at = (grouping, key)
        neg_before = seen_neg.get(at, 0)  # shifts each positive's x by 2 * neg_before
        pos_before = seen_pos.get(at, 0)  # and each negative's w by 2 * pos_before
        sx = p.sum_x + 2 * neg_before * p.positives
        sx2 = p.sum_x2 + 4 * neg_before * p.sum_x + 4 * neg_before**2 * p.positives
        sw = p.sum_w + 2 * pos_before * p.negatives
        sw2 = p.sum_w2 + 4 * pos_before * p.sum_w + 4 * pos_before**2 * p.negatives
        before = out.setdefault(grouping, {}).get(key)
        shifted = RankParts(p.positives, p.negatives, sx, sx2, sw, sw2)
        if before is not None:
            shifted = RankParts(
                before.positives + shifted.positives,
                before.negatives + shifted.negatives,
                before.sum_x + shifted.sum_x,
                before.sum_x2 + shifted.sum_x2,
                before.sum_w + shifted.sum_w,
                before.sum_w2 + shifted.sum_w2,
            )
        out[grouping][key] = shifted
        seen_pos[at] = pos_before + p.positives
        seen_neg[at] = neg_before + p.negatives
    return {g: dict(sorted(found.items())) for g, found in out.items()}


#: Rows per Arrow batch handed to the fold (Spark's default is 10,000): the fold's cost per
#: batch is a few numpy calls per grouping, so larger batches cost fewer of them.
_FOLD_BATCH_ROWS = 1_000_000
_BATCH_CONF = "spark.sql.execution.arrow.maxRecordsPerBatch"


def _collect_in_large_batches(session: Any, frame: Any) -> list[Any]:
    """``frame.collect()`` with Arrow batches of :data:`_FOLD_BATCH_ROWS` rows.

    The session's own setting is put back afterwards.
    """
    before = session.conf.get(_BATCH_CONF, None)
    session.conf.set(_BATCH_CONF, str(_FOLD_BATCH_ROWS))
    try:
        return list(frame.collect())
    finally:
        if before is None:
            session.conf.unset(_BATCH_CONF)
        else:
            session.conf.set(_BATCH_CONF, before)


def spark_rank_sums(
    packed: Any, sizes: Sequence[int], groupings: Sequence[tuple[int, ...]]
) -> Parts:
    """The rank sums of a Spark DataFrame of ``(__cell, __s)``: one sort, folded per partition.

    ``packed`` holds one row per scored case: its packed code
    (:func:`respai.engine.ranks._packed`) and its finite score.
    """
    partitions = max(1, packed.sparkSession.sparkContext.defaultParallelism)
    ranged = packed.repartitionByRange(partitions, "__s").sortWithinPartitions("__s")
    with warnings.catch_warnings():
        # pyspark checks the pandas version before any Arrow UDF, though none reads pandas
        warnings.filterwarnings(
            "ignore", "PySpark does not yet fully support pandas", FutureWarning
        )
        rows = _collect_in_large_batches(
            packed.sparkSession, ranged.mapInArrow(_fold_partition(sizes, groupings), _SCHEMA)
        )
    pieces = [
        (
            int(r["part"]),
            groupings[int(r["grouping"])],
            tuple(int(v) for v in r["code"].split(",")) if r["code"] else (),
            RankParts(
                int(r["positives"]),
                int(r["negatives"]),
                int(r["sum_x"]),
                int(r["sum_x2"]),
                int(r["sum_w"]),
                int(r["sum_w2"]),
            ),
        )
        for r in rows
    ]
    found = combine_partitions(pieces)
    return {g: found.get(g, {}) for g in groupings}
