"""The rank sums from score-ordered partitions combine into the whole data's, exactly.

:func:`respai.engine.spark_ranks.combine_partitions` is checked without Spark against the
numpy fold of the whole sorted stream, cutting the stream at random tie-block borders;
Spark's one-sort path (range partitions folded where they live) is checked against the
DuckDB stream with many partitions and heavy ties.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from respai import engine
from respai.engine.fold import fold_stream
from respai.engine.spark_ranks import combine_partitions

SIZES = [2, 3]
GROUPINGS = [(), (0,), (1,), (0, 1)]


def _cells(rng: np.random.Generator, n: int, distinct: int) -> tuple[Any, Any]:
    y = rng.integers(0, 2, n)
    a0 = rng.integers(-1, 2, n)  # -1: left out of that attribute's groupings
    a1 = rng.integers(-1, 3, n)
    cell = y + 2 * (a0 + 1) + 2 * 3 * (a1 + 1)
    score = np.round((rng.random(n) + 0.4 * y) * distinct) / distinct
    order = np.argsort(score, kind="stable")
    return cell[order].astype(np.int64), score[order]


def _batch(cell: Any, score: Any) -> Any:
    return pa.RecordBatch.from_pydict({"__cell": cell, "__s": score})


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 300),
    distinct=st.sampled_from([1, 2, 5, 40, 10_000]),
    cuts=st.integers(0, 8),
)
def test_partitions_combine_to_the_whole_stream(
    seed: int, n: int, distinct: int, cuts: int
) -> None:
    rng = np.random.default_rng(seed)
    cell, score = _cells(rng, n, distinct)
    whole = fold_stream(iter([_batch(cell, score)]), SIZES, GROUPINGS)
    # cut only where the score changes: a range partition never splits a tie block
    borders = np.flatnonzero(np.diff(score)) + 1
    chosen = sorted(set(rng.choice(borders, min(cuts, len(borders)), replace=False).tolist()))
    edges = [0, *chosen, n]
    pieces = []
    parts = list(itertools.pairwise(edges))
    for j in rng.permutation(len(parts)):  # partitions arrive in any order
        lo, hi = parts[j]
        found = fold_stream(iter([_batch(cell[lo:hi], score[lo:hi])]), SIZES, GROUPINGS)
        for grouping, groups in found.items():
            pieces += [(int(j), grouping, key, p) for key, p in groups.items()]
    combined = combine_partitions(pieces)
    assert {g: combined.get(g, {}) for g in GROUPINGS} == whole


def test_spark_one_sort_equals_the_duckdb_stream(spark: Any, tmp_path: Any) -> None:
    rng = np.random.default_rng(7)
    n = 4000
    rows = {
        "sex": rng.choice(["f", "m", "x"], n).tolist(),
        "race": rng.choice(["a", "b", "c", "d"], n).tolist(),
        "label": rng.integers(0, 2, n).tolist(),
        "score": (np.round(rng.random(n) * 25) / 25).tolist(),  # heavy ties
    }
    import pandas as pd

    path = tmp_path / "cases.csv"
    pd.DataFrame(rows).to_csv(path, index=False)
    args = (
        "score",
        "label",
        {0: 0, 1: 1},
        ["sex", "race"],
        ({"f": 0, "m": 1}, {"a": 0, "b": 1, "c": 2}),
        [2, 3],
        GROUPINGS,
    )
    on_duck = engine.rank_sums(engine.open_file(path, None, ",", None), *args)
    before = spark.conf.get("spark.sql.shuffle.partitions")
    spark.conf.set("spark.sql.shuffle.partitions", "13")
    try:
        frame = spark.createDataFrame(
            list(zip(*rows.values(), strict=True)),
            "sex string, race string, label long, score double",
        )
        on_spark = engine.rank_sums(engine.open_frame(frame), *args)
    finally:
        spark.conf.set("spark.sql.shuffle.partitions", before)
    assert on_spark == on_duck
    assert on_duck[(0, 1)]


def test_spark_refuses_a_score_that_is_not_finite(spark: Any) -> None:
    """The fold refuses NaN and infinity where it runs; the message names the column."""
    import pytest

    from respai.errors import InputError

    frame = spark.createDataFrame(
        [("f", 1, 0.2), ("m", 0, float("inf")), ("f", 0, 0.5)],
        "sex string, label long, score double",
    )
    args = ("score", "label", {0: 0, 1: 1}, ["sex"], ({"f": 0, "m": 1},), [2], [(), (0,)])
    with pytest.raises(InputError, match="score"):
        engine.rank_sums(engine.open_frame(frame), *args)
