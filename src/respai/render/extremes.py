"""Which groups a long list shows: all of them, or only those at each end.

A report chart or a terminal table of thousands of groups is thousands of rows that no
one reads, and rendering them costs more than computing them. Past :data:`ALL_UP_TO`
groups, the report's charts and the terminal's tables show the :data:`EACH` lowest and
the :data:`EACH` highest values, and say so; the record and ``--json`` keep every group.
The report's page script picks the same groups (``report_assets/bind.js``,
``drawnIndexes``) and refuses a chart that draws others.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TypeGuard

__all__ = ["ALL_UP_TO", "EACH", "each_end", "extremes"]

#: A list of at most this many groups is shown in full.
ALL_UP_TO = 50
#: Past :data:`ALL_UP_TO`, this many groups are shown at each end.
EACH = 20


def _number(value: object) -> TypeGuard[int | float]:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def extremes(values: Sequence[object], each: int) -> list[int]:
    """The indexes (ascending) of the groups shown, given each group's value.

    ``each`` 0 shows every group; otherwise the ``each`` lowest and the ``each`` highest
    values (ties in the list's order) are shown and a group without a number is not.

    Examples
    --------
    >>> extremes([0.5, 0.1, None, 0.9, 0.1], 1)
    [1, 3]
    >>> extremes([0.5, 0.1], 0)
    [0, 1]
    """
    if each <= 0:
        return list(range(len(values)))
    ranked = sorted((float(v), i) for i, v in enumerate(values) if _number(v))
    return sorted({i for _, i in ranked[:each]} | {i for _, i in ranked[-each:]})


def each_end(count: int) -> int:
    """How many groups at each end a list of ``count`` groups shows (0: all of them)."""
    return EACH if count > ALL_UP_TO else 0
