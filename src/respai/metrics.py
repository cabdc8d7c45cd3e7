"""The metric registry: every rate respai reports, defined once.

A rate is a numerator and a denominator taken from one group's confusion counts
(:class:`~respai.counts.Cell`). This module is pure: it imports no engine, no YAML and no
statistics.
"""

from __future__ import annotations

import enum

__all__ = ["Rate"]


class Rate(enum.StrEnum):
    """The rate a group rule compares across groups.

    ``error`` is the share of cases whose prediction differs from the label, over every
    case; ``false_positive`` is the share predicted 1 among cases labelled 0;
    ``false_negative`` the share predicted 0 among cases labelled 1; ``selection`` the
    share predicted 1 over every case.
    """

    ERROR = "error"
    FALSE_POSITIVE = "false_positive"
    FALSE_NEGATIVE = "false_negative"
    SELECTION = "selection"
