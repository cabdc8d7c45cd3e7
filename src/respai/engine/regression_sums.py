"""The ``regression:`` block's count pass: exact integer sums per cell, on every engine.

One portable SQL text (:func:`respai.engine.sql.query`) groups the cases by the block's
attribute columns (each value mapped to its declared group exactly as the ``fairness:``
block maps it, :mod:`respai.engine.group_match`, else to a left-out marker) and sums, per
cell, the target ``t``, the prediction ``p``, the signed error ``e = p - t`` and the
absolute error ``|e|``, each put on the fixed grid of ``10^-decimals`` units
(:func:`respai.engine.sql.fixed`): counts, ``Σx``, ``Σx²`` and, with a weight column ``w``
(on the same grid), ``Σw``, ``Σw²``, ``Σwx``, ``Σw²x``, ``Σw²x²``. Every sum is a whole
number (``DECIMAL(38, 0)``), so it is the same on DuckDB, a pandas frame and Spark.

A second, tiny pass (:func:`value_checks`) finds the extremes the sums must not exceed and
the first value outside the declared bounds, so the caller refuses them with a clear
message before any number is computed.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from respai.engine.group_match import EMPTY_CODE, GroupCodes, group_codes
from respai.engine.source import Source
from respai.engine.sql import Dialect, fixed, query

__all__ = [
    "EMPTY",
    "METRIC_VALUES",
    "SUMS",
    "UNDECLARED",
    "Cell",
    "ValueChecks",
    "cell_sums",
    "first_outside",
    "value_checks",
]

#: The marker of an empty group value in a cell's key.
EMPTY = "\x00empty"
#: The marker of an undeclared group value in a cell's key.
UNDECLARED = "\x00undeclared"
#: The values summed per case, by name: the target, the prediction, the error, |error|.
METRIC_VALUES = ("t", "p", "e", "a")
#: The sums of each value, in the order the query returns them (``w`` is the weight).
SUMS = ("sx", "sx2", "swx", "sw2x", "sw2x2")


@dataclass(frozen=True, slots=True)
class Cell:
    """The integer sums of one cell (one combination of the attribute columns' values).

    ``rows`` counts the cell's rows; ``no_target`` those without a target (left out);
    ``no_prediction`` those with a target but without a prediction; ``n`` the complete
    ones. ``sums[value][sum]`` holds the complete cases' sums (:data:`SUMS` of each of
    :data:`METRIC_VALUES`); ``sw``, ``sw2`` the complete cases' weight sums and
    ``missing_sw``, ``missing_sw2`` those of the cases without a prediction (without a
    weight column every weight is one, a whole number, not in units).
    """

    key: tuple[str, ...]
    rows: int
    no_target: int
    no_prediction: int
    n: int
    sw: int
    sw2: int
    missing_sw: int
    missing_sw2: int
    sums: Mapping[str, Mapping[str, int]]


def cell_sums(
    source: Source,
    attributes: Mapping[str, Sequence[str]],
    target: str,
    prediction: str,
    weight: str | None,
    decimals: int,
) -> list[Cell]:
    """The sums of every cell of the attribute columns' values, in one pass.

    Parameters
    ----------
    source
        The run's opened cases.
    attributes
        Every attribute column the block's rules group by, with its declared values.
    target, prediction, weight
        The columns (``weight`` ``None``: every case weighs one).
    decimals
        The fixed grid: values are whole ``10^-decimals`` units.
    """
    names = list(attributes)
    codes = group_codes(source, attributes)

    def build(d: Dialect) -> str:
        t = fixed(d.ident(target), decimals)
        p = fixed(d.ident(prediction), decimals)
        w = "CAST(1 AS DECIMAL(38, 0))" if weight is None else fixed(d.ident(weight), decimals)
        keys = [f"{codes[c].code(d)} AS k{i}" for i, c in enumerate(names)]
        joins = "".join(codes[c].join(d) for c in names)
        inner = (
            f"SELECT {', '.join(keys)}, {t} AS t, {p} AS p, {w} AS w FROM {d.table}{joins}"
            if keys
            else f"SELECT {t} AS t, {p} AS p, {w} AS w FROM {d.table}"
        )
        both = "t IS NOT NULL AND p IS NOT NULL"
        values = {"t": "t", "p": "p", "e": "(p - t)", "a": "ABS(p - t)"}
        parts = [
            "COUNT(*)",
            "SUM(CASE WHEN t IS NULL THEN 1 ELSE 0 END)",
            "SUM(CASE WHEN t IS NOT NULL AND p IS NULL THEN 1 ELSE 0 END)",
            f"SUM(CASE WHEN {both} THEN 1 ELSE 0 END)",
            f"SUM(CASE WHEN {both} THEN w END)",
            f"SUM(CASE WHEN {both} THEN w * w END)",
            "SUM(CASE WHEN t IS NOT NULL AND p IS NULL THEN w END)",
            "SUM(CASE WHEN t IS NOT NULL AND p IS NULL THEN w * w END)",
        ]
        for name in METRIC_VALUES:
            x = values[name]
            parts += [
                f"SUM(CASE WHEN {both} THEN {x} END)",
                f"SUM(CASE WHEN {both} THEN {x} * {x} END)",
                f"SUM(CASE WHEN {both} THEN w * {x} END)",
                f"SUM(CASE WHEN {both} THEN w * w * {x} END)",
                f"SUM(CASE WHEN {both} THEN w * w * {x} * {x} END)",
            ]
        group = ", ".join(f"k{i}" for i in range(len(names)))
        select = ", ".join([*(f"k{i}" for i in range(len(names))), *parts])
        tail = f" GROUP BY {group}" if names else ""
        return f"SELECT {select} FROM ({inner}) AS cases_{decimals}{tail}"

    columns = list(dict.fromkeys([*names, target, prediction, *([weight] if weight else [])]))
    out: list[Cell] = []
    k = len(names)
    for row in query(source, build, columns):
        ints = [0 if v is None else int(v) for v in row[k:]]
        rows, no_target, no_prediction, n, sw, sw2, msw, msw2 = ints[:8]
        rest = ints[8:]
        sums = {
            name: dict(zip(SUMS, rest[5 * i : 5 * i + 5], strict=True))
            for i, name in enumerate(METRIC_VALUES)
        }
        out.append(
            Cell(
                key=tuple(_key(codes[c], int(v)) for c, v in zip(names, row[:k], strict=True)),
                rows=rows,
                no_target=no_target,
                no_prediction=no_prediction,
                n=n,
                sw=sw,
                sw2=sw2,
                missing_sw=msw,
                missing_sw2=msw2,
                sums=sums,
            )
        )
    return sorted(out, key=lambda c: c.key)


def _key(codes: GroupCodes, code: int) -> str:
    name = codes.name(code)
    if name is not None:
        return name
    return EMPTY if code == EMPTY_CODE else UNDECLARED


@dataclass(frozen=True, slots=True)
class ValueChecks:
    """The extremes of the block's columns, in units (``None``: no value), and the rows.

    ``largest`` is the largest magnitude of each column's units; ``min_weight`` the
    smallest weight's units; ``rows`` the rows counted.
    """

    largest: Mapping[str, int | None]
    min_weight: int | None
    rows: int = 0


def value_checks(
    source: Source, columns: Sequence[str], weight: str | None, decimals: int
) -> ValueChecks:
    """The largest magnitude of each column's units, and the smallest weight's."""
    every = list(dict.fromkeys([*columns, *([weight] if weight else [])]))

    def build(d: Dialect) -> str:
        parts = [f"MAX(ABS({fixed(d.ident(c), decimals)}))" for c in every]
        parts.append("COUNT(*)")
        if weight is not None:
            parts.append(f"MIN({fixed(d.ident(weight), decimals)})")
        return f"SELECT {', '.join(parts)} FROM {d.table}"

    row = query(source, build, every)[0]
    largest = {c: None if v is None else int(v) for c, v in zip(every, row, strict=False)}
    low = row[len(every) + 1] if weight is not None else None
    return ValueChecks(
        largest=largest, min_weight=None if low is None else int(low), rows=int(row[len(every)])
    )


def first_outside(
    source: Source, column: str, decimals: int, lo: int | None, hi: int | None
) -> Any:
    """A value of ``column`` whose units lie below ``lo`` or above ``hi``, or ``None``.

    ``lo``/``hi`` are in units (``None``: no such end). The smallest value below ``lo``
    (else the largest above ``hi``) is returned, for the caller to locate and show.
    """
    if lo is None and hi is None:
        return None

    def build(d: Dialect) -> str:
        x = fixed(d.ident(column), decimals)
        v = f"CAST({d.ident(column)} AS DOUBLE)"
        low = f"MIN(CASE WHEN {x} < {lo} THEN {v} END)" if lo is not None else "NULL"
        high = f"MAX(CASE WHEN {x} > {hi} THEN {v} END)" if hi is not None else "NULL"
        return f"SELECT {low}, {high} FROM {d.table}"

    low, high = query(source, build, [column])[0]
    return low if low is not None else high
