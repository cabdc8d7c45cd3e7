"""Refusing a NaN or infinite score or probability, and saying where it is.

Scores and probabilities must be finite numbers (a probability also in [0, 1], which the
gate checks). The count pass and the rank pass find a non-finite value in different ways
(DuckDB refuses to cast it to an integer, the sorted stream sees it at an end, an eager
DataFrame fails on it); each way ends in :func:`not_finite`, one message for all.
"""

from __future__ import annotations

import re
from typing import Any, NoReturn

import narwhals as nw

from respai.engine.lookups import locate
from respai.engine.source import Source
from respai.engine.values import fetch
from respai.errors import InputError

__all__ = ["check_finite_frame", "check_not_a_number", "first_not_finite", "not_finite"]

_NOT_FINITE = re.compile(r"with value (-?inf|nan) can't be cast", re.IGNORECASE)


def first_not_finite(frame: Any, column: str) -> float | None:
    """One NaN or infinite value of ``column`` (empty cells aside), or ``None``."""
    c = nw.col(column)
    rows = fetch(frame.filter(~c.is_null() & ~c.is_finite()).select(c).head(1))
    return float(rows[0][0]) if rows else None


def not_finite(source: Source, column: str, value: float, kind: str = "score") -> NoReturn:
    """Refuse a NaN or infinite ``kind`` (``"score"`` or ``"probability"``), where it is.

    Raises
    ------
    InputError
        Always: naming the source, the column, the value and its line or row.
    """
    pos = locate(source, column, value)
    where = f" (first at {source.row_word} {pos})" if pos is not None else ""
    allowed = "finite numbers" + (" in [0, 1]" if kind == "probability" else "")
    raise InputError(
        f"{source.description}: {kind} column '{column}' holds {value}{where}; {kind} "
        f"values must be {allowed}.",
        f"Leave the cell empty when a case has no {kind}.",
    )


def check_finite_frame(source: Source, column: str) -> None:
    """Refuse the probability ``column`` of ``source`` if it holds NaN or infinity.

    Raises
    ------
    InputError
        When it does.
    """
    value = first_not_finite(source._frame, column)
    if value is not None:
        not_finite(source, column, value, "probability")


def check_not_a_number(source: Source, column: str, exc: Exception) -> None:
    """Name the probability that is NaN or infinite when the integer sums refused it.

    Raises
    ------
    InputError
        When ``exc`` is DuckDB refusing to cast a NaN or infinity.
    """
    found = _NOT_FINITE.search(str(exc))
    if found is not None:
        not_finite(source, column, float(found.group(1)), "probability")
