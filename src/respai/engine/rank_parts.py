"""The exact integer sums behind a group's rank AUC, shared by the sorted pass and its fold.

:class:`RankParts` is what :mod:`respai.engine.ranks` returns per group and what the
numpy fold of :mod:`respai.engine.fold` accumulates; :data:`SPLIT`, :data:`LOW` and
:func:`square` carry a sum of squares past 64 bits exactly.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["LOW", "SPLIT", "RankParts", "square"]


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
SPLIT = 16
LOW = (1 << SPLIT) - 1


def square(hh: int, hl: int, ll: int) -> int:
    """``sum(x**2)`` from the sums of ``hi*hi``, ``hi*lo`` and ``lo*lo``."""
    return (hh << (2 * SPLIT)) + (hl << (SPLIT + 1)) + ll
