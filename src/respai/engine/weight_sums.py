"""The weights pass: per cell of the count cube, the exact sums of the weights and squares.

With ``data.weight`` the group rules read survey or sampling weights. This pass groups the
cases by the same raw columns as the count pass (attributes, label, prediction) and sums,
per cell, the weights put on a fixed grid (:func:`respai.engine.sql.fixed`: whole
``10^-decimals`` units) and their squares, exactly in ``DECIMAL(38, 0)``, through one
portable SQL text (:func:`respai.engine.sql.query`), so DuckDB, a DataFrame and Spark give
the same integers. It is a second scan next to the count pass (``docs/scale.md``).

The same scan checks the weights: every weight must be present, a finite number and at
least 0, and at most :data:`respai.engine.sql.MAX_FIXED` units; otherwise
:class:`~respai.errors.InputError` names the column, the value and (where the engine can
say) the row.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from respai.engine.lookups import first_non_number, lines_of, locate
from respai.engine.source import NUMERIC, Source
from respai.engine.sql import MAX_FIXED, Dialect, fixed, query
from respai.errors import InputError

__all__ = ["WeightCell", "weight_sums"]

#: Beyond this magnitude a weight is not put on the grid (its units could overflow the
#: engine's DECIMAL cast); it is refused like any weight beyond ``MAX_FIXED`` units.
_HUGE = 1e20


@dataclass(frozen=True, slots=True)
class WeightCell:
    """One cell: raw key values, its cases, and the sums of weights and squared weights.

    ``sum_w`` and ``sum_w2`` are whole ``10^-decimals`` and ``10^-2*decimals`` units.
    """

    keys: tuple[Any, ...]
    n: int
    sum_w: int
    sum_w2: int


def _build(keys: Sequence[str], weight: str, decimals: int) -> Any:
    def build(d: Dialect) -> str:
        w = f"CAST({d.ident(weight)} AS DOUBLE)"
        good = f"({w} * CAST(0.0 AS DOUBLE) = CAST(0.0 AS DOUBLE) AND ABS({w}) < {_HUGE:.0e})"
        fw = f"(CASE WHEN {good} THEN {fixed(w, decimals)} END)"
        cols = ", ".join(d.ident(k) for k in keys)
        return (
            f"SELECT {cols}, COUNT(*), SUM({fw}), SUM({fw} * {fw}), "
            f"COUNT(*) - COUNT({d.ident(weight)}), "
            f"SUM(CASE WHEN {d.ident(weight)} IS NOT NULL AND NOT {good} THEN 1 ELSE 0 END), "
            f"SUM(CASE WHEN {w} < 0 THEN 1 ELSE 0 END), MAX(ABS({fw})) "
            f"FROM {d.table} GROUP BY {cols}"
        )

    return build


def _first_bad(source: Source, weight: str, decimals: int) -> Any:
    """The first offending weight value (error paths only)."""

    def build(d: Dialect) -> str:
        w = f"CAST({d.ident(weight)} AS DOUBLE)"
        good = f"({w} * CAST(0.0 AS DOUBLE) = CAST(0.0 AS DOUBLE) AND ABS({w}) < {_HUGE:.0e})"
        big = f"ABS({w}) * CAST({10**decimals} AS DOUBLE) > CAST({MAX_FIXED} AS DOUBLE)"
        return (
            f"SELECT {d.ident(weight)} FROM {d.table} WHERE {d.ident(weight)} IS NOT NULL "
            f"AND (NOT {good} OR {w} < 0 OR {big}) LIMIT 1"
        )

    found = query(source, build, [weight])
    return found[0][0] if found else None


def _where(source: Source, weight: str, value: Any) -> str:
    line = locate(source, weight, value)
    return "" if line is None else f" on {source.row_word} {line}"


def weight_sums(
    source: Source, keys: Sequence[str], weight: str, decimals: int
) -> list[WeightCell]:
    """Per cell of ``keys``: cases, exact sums of the weights and of their squares.

    Parameters
    ----------
    source
        The opened cases (the same ones the count pass read).
    keys
        The grouped columns, in the count pass's order (attributes, label, prediction).
    weight
        The weight column (``data.weight``).
    decimals
        The grid: each weight is summed as ``floor(w * 10^decimals + 0.5)`` units.

    Raises
    ------
    InputError
        When a weight is empty, not a number, not finite, negative, or beyond
        :data:`~respai.engine.sql.MAX_FIXED` units; or the engine fails while scanning.
    """
    if weight not in source.kinds:
        raise InputError(
            f"{source.description} has no column '{weight}' (data.weight).",
            "Name the column of survey or sampling weights in data.weight, or remove it.",
        )
    if source.kinds[weight] != NUMERIC:
        bad = first_non_number(source, weight)
        if bad is None:
            raise InputError(
                f"{source.description}: the weight column '{weight}' (data.weight) does not "
                "hold numbers (it is empty or text); every case needs a finite weight "
                "of at least 0.",
                "Fill in the weights, or remove data.weight to count every case once.",
            )
        value, line = bad
        where = "" if line is None else f" on {source.row_word} {line}"
        raise InputError(
            f"{source.description}: the weight column '{weight}' (data.weight) holds "
            f"{value!r}{where}, which is not a number; every case needs a finite weight "
            "of at least 0.",
            "Fix the value, or remove data.weight to count every case once.",
        )
    cells = query(source, _build(keys, weight, decimals), [*dict.fromkeys([*keys, weight])])
    width = len(keys)
    empty = sum(int(c[width + 3] or 0) for c in cells)
    if empty:
        lines = lines_of(source, weight, None, 1)
        where = f" (first on {source.row_word} {lines[0]})" if lines else ""
        raise InputError(
            f"{source.description}: {empty} case(s) have no weight in column '{weight}' "
            f"(data.weight){where}; a case without a weight cannot be weighed, and leaving "
            "it out or counting it once would each change the estimates silently.",
            "Fill in every weight (0 keeps a case out of the weighted estimates), or "
            "remove data.weight.",
        )
    bad_count = sum(int(c[width + 4] or 0) + int(c[width + 5] or 0) for c in cells)
    largest = max((int(c[width + 6] or 0) for c in cells), default=0)
    if bad_count or largest > MAX_FIXED:
        value = _first_bad(source, weight, decimals)
        where = _where(source, weight, value)
        if bad_count:
            raise InputError(
                f"{source.description}: the weight column '{weight}' (data.weight) holds "
                f"{value!r}{where}; every weight must be a finite number of at least 0.",
                "Fix the weight (0 keeps a case out of the weighted estimates), or remove "
                "data.weight.",
            )
        raise InputError(
            f"{source.description}: the weight {value!r}{where} in column '{weight}' is "
            f"beyond {MAX_FIXED} units of 10^-{decimals} (data.weight_decimals "
            f"{decimals}), so its sums would not be exact.",
            "Set data.weight_decimals lower (fewer decimals), or rescale the weights.",
        )
    return [
        WeightCell(tuple(c[:width]), int(c[width]), int(c[width + 1] or 0), int(c[width + 2] or 0))
        for c in cells
    ]
