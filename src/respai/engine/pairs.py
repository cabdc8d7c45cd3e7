"""The paired test's tallies: per pair, the state of each declared variant, counted.

Three aggregations where the data lives, none of them per row in Python:

1. per (pair, variant): how many rows, how many with an outcome, their sum;
2. per pair: each declared variant's state (outcome 0 or 1, outcome missing, or listed
   more than once) and its row count;
3. over all pairs: for each variant against the reference, the complete pairs, the four
   cells of the 2 x 2 table and the rows left out, by reason.

What comes back is a handful of integers per variant; the statistics are
:mod:`respai.paired.stats`'s.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import duckdb
import narwhals as nw

from respai.engine.count_pass import scan_error
from respai.engine.source import NUMERIC, Source
from respai.engine.values import fetch, plain

__all__ = ["PairCounts", "PairTallies", "pair_tallies"]

#: States of one variant within one pair (absent is null).
_MISSING = 2
_DUPLICATE = 3
_UNDECLARED = -1
#: How many undeclared variant spellings a message names.
_SHOWN = 5


@dataclass(frozen=True, slots=True)
class PairCounts:
    """One variant against the reference: the 2 x 2 table of complete pairs, and who is out.

    Attributes
    ----------
    both, b, c, neither
        Complete pairs with (reference, variant) outcomes (1, 1), (1, 0), (0, 1), (0, 0).
    duplicate_rows
        Rows of the reference or the variant in pairs that list it more than once.
    missing_outcome_rows
        Rows of the reference or the variant without an outcome.
    incomplete_rows
        Rows whose partner (the reference, or the variant) is absent or unusable.
    """

    both: int
    b: int
    c: int
    neither: int
    duplicate_rows: int
    missing_outcome_rows: int
    incomplete_rows: int

    @property
    def n_pairs(self) -> int:
        """Complete pairs: both outcomes known, each variant listed once."""
        return self.both + self.b + self.c + self.neither


@dataclass(frozen=True, slots=True)
class PairTallies:
    """Every count of a paired test.

    Attributes
    ----------
    rows
        Rows in the file.
    by_variant
        For each declared variant after the reference, its :class:`PairCounts`.
    undeclared_rows
        Rows whose variant is not declared (left out of every comparison).
    undeclared_values
        Up to five of those variant spellings, for the message.
    missing_pair_rows
        Rows without a pair id (left out of every comparison).
    """

    rows: int
    by_variant: dict[str, PairCounts]
    undeclared_rows: int
    undeclared_values: tuple[str, ...]
    missing_pair_rows: int


def _outcome01(source: Source, outcome: str) -> Any:
    """The outcome as 0/1 (null when missing, -1 otherwise: refused by the caller).

    A text column (CSV cells are read as text) holds ``1`` or ``0``, also written ``1.0``
    or ``0.00``; a numeric column 1 or 0; a boolean column true or false.
    """
    col = nw.col(outcome)
    kind = source.kinds[outcome]
    if kind == NUMERIC:
        return col.cast(nw.Float64)
    if kind == "boolean":
        return col.cast(nw.Int64).cast(nw.Float64)
    text = col.cast(nw.String).str.strip_chars()
    known = (
        nw.when(text.str.contains(r"^1(\.0+)?$"))
        .then(nw.lit(1.0))
        .otherwise(nw.when(text.str.contains(r"^0(\.0+)?$")).then(nw.lit(0.0)).otherwise(-1.0))
    )
    return nw.when(~col.is_null() & (text != "")).then(known)  # empty: no outcome


def bad_outcomes(source: Source, outcome: str) -> tuple[Any, int] | None:
    """The first outcome value that is neither 0 nor 1 (nor missing), and how many there are."""
    y = _outcome01(source, outcome)
    frame = source._frame
    try:
        bad = frame.filter(~nw.col(outcome).is_null() & ~y.is_in([0.0, 1.0]))
        counted = fetch(bad.select(nw.len().alias("n")))
        n = int(counted[0][0]) if counted else 0
        if n == 0:
            return None
        first = fetch(bad.select(nw.col(outcome)).head(1))
    except duckdb.Error as exc:
        raise scan_error(source, exc) from None
    return plain(first[0][0]), n


def _lazy(source: Source, columns: Sequence[str]) -> Any:
    """The source as a lazy frame that evaluates conditional aggregations in one engine.

    A DataFrame held in memory (pandas, polars, pyarrow) is handed to DuckDB as Arrow
    (only the three columns), so every source is aggregated by the same SQL engine; files
    already are, and Spark frames stay in Spark.
    """
    frame = source._frame
    if isinstance(frame, nw.DataFrame):
        table = frame.select(*columns).to_arrow()
        return nw.from_native(duckdb.from_arrow(table))
    return frame


def pair_tallies(
    source: Source, pair: str, variant: str, outcome: str, variants: Sequence[str]
) -> PairTallies:
    """Count a paired test's pairs, per variant against the first (the reference).

    ``source`` must hold only 0/1 (or missing) outcomes: check with :func:`bad_outcomes`.

    Raises
    ------
    InputError
        When the engine fails while scanning.
    """
    frame = _lazy(source, (pair, variant, outcome))
    v = nw.col(variant).cast(nw.String)
    code: Any = nw.lit(_UNDECLARED)
    for i, name in reversed(list(enumerate(variants))):
        code = nw.when(v == name).then(nw.lit(i)).otherwise(code)
    k = len(variants)
    try:
        cells = (
            frame.with_columns(code.alias("__code"), _outcome01(source, outcome).alias("__y"))
            .group_by(nw.col(pair), nw.col("__code"), drop_null_keys=False)
            .agg(
                nw.len().alias("__n"),
                nw.col("__y").count().alias("__k"),
                nw.col("__y").sum().alias("__s"),
            )
        )
        side = fetch(
            cells.select(
                nw.col("__n").sum().alias("rows"),
                nw.when(nw.col("__code") == _UNDECLARED)
                .then(nw.col("__n"))
                .otherwise(0)
                .sum()
                .alias("undeclared"),
                nw.when(nw.col(pair).is_null() & (nw.col("__code") != _UNDECLARED))
                .then(nw.col("__n"))
                .otherwise(0)
                .sum()
                .alias("no_pair"),
            )
        )
        rows, undeclared, no_pair = (int(x or 0) for x in side[0]) if side else (0, 0, 0)
        shown: tuple[str, ...] = ()
        if undeclared:
            found = fetch(
                frame.filter(~v.is_in(list(variants)) | nw.col(variant).is_null())
                .select(v.alias("__v"))
                .unique()
                .sort("__v", nulls_last=True)
                .head(_SHOWN)
            )
            shown = tuple("(empty)" if r[0] is None else str(r[0]) for r in found)
        state = (
            nw.when(nw.col("__n") > 1)
            .then(nw.lit(_DUPLICATE))
            .otherwise(
                nw.when(nw.col("__k") == 0)
                .then(nw.lit(_MISSING))
                .otherwise(nw.col("__s").cast(nw.Int64))
            )
        )
        per_pair = (
            cells.filter(~nw.col(pair).is_null() & (nw.col("__code") != _UNDECLARED))
            .with_columns(state.alias("__state"))
            .group_by(pair)
            .agg(
                *[
                    nw.when(nw.col("__code") == i).then(nw.col("__state")).max().alias(f"s{i}")
                    for i in range(k)
                ],
                *[
                    nw.when(nw.col("__code") == i).then(nw.col("__n")).max().alias(f"n{i}")
                    for i in range(k)
                ],
            )
        )
        sums: list[Any] = []
        ok0 = nw.col("s0").is_in([0, 1])
        for i in range(1, k):
            s, n = nw.col(f"s{i}"), nw.col(f"n{i}")
            ok = s.is_in([0, 1])
            both_ok = ok0 & ok
            for name, cond in (
                ("both", both_ok & (nw.col("s0") == 1) & (s == 1)),
                ("b", both_ok & (nw.col("s0") == 1) & (s == 0)),
                ("c", both_ok & (nw.col("s0") == 0) & (s == 1)),
                ("neither", both_ok & (nw.col("s0") == 0) & (s == 0)),
            ):
                sums.append(nw.when(cond).then(1).otherwise(0).sum().alias(f"{name}{i}"))
            sums.append(
                (
                    nw.when(nw.col("s0") == _DUPLICATE).then(nw.col("n0")).otherwise(0)
                    + nw.when(s == _DUPLICATE).then(n).otherwise(0)
                )
                .sum()
                .alias(f"dup{i}")
            )
            sums.append(
                (
                    nw.when(nw.col("s0") == _MISSING).then(1).otherwise(0)
                    + nw.when(s == _MISSING).then(1).otherwise(0)
                )
                .sum()
                .alias(f"miss{i}")
            )
            sums.append(
                (
                    nw.when(ok0 & ~ok.fill_null(False)).then(1).otherwise(0)
                    + nw.when(ok & ~ok0.fill_null(False)).then(1).otherwise(0)
                )
                .sum()
                .alias(f"inc{i}")
            )
        by: dict[str, PairCounts] = {}
        if k > 1 and rows:
            (row,) = fetch(per_pair.select(*sums))
            vals = [int(x or 0) for x in row]
            for j, name in enumerate(variants[1:]):
                both, b, c, neither, dup, miss, inc = vals[7 * j : 7 * j + 7]
                by[name] = PairCounts(both, b, c, neither, dup, miss, inc)
        else:
            by = {name: PairCounts(0, 0, 0, 0, 0, 0, 0) for name in variants[1:]}
    except duckdb.Error as exc:
        raise scan_error(source, exc) from None
    return PairTallies(rows, by, undeclared, shown, no_pair)
