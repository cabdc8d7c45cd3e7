"""Tolerant reads of a decoded record: a missing field, or one of the wrong type, is empty.

The report must render any record, a hostile or broken one included (it still has to say
whether the record verifies), so it never indexes the statement directly.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, TypeGuard

__all__ = ["as_dict", "as_list", "as_str", "is_number", "tests_of"]


def is_number(value: object) -> TypeGuard[int | float]:
    """Whether ``value`` is a finite int or float (not a bool)."""
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def as_dict(value: object) -> Mapping[str, Any]:
    """``value`` if it is a mapping, else an empty one."""
    return value if isinstance(value, Mapping) else {}


def as_list(value: object) -> list[Any]:
    """``value`` (a copy) if it is a list, else an empty list."""
    return list(value) if isinstance(value, list) else []


def as_str(value: object, default: str = "") -> str:
    """``value`` if it is a string, else ``default``."""
    return value if isinstance(value, str) else default


def tests_of(predicate: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The test records of the record's predicate, in chain order."""
    return [
        as_dict(r)
        for r in as_list(predicate.get("records"))
        if as_dict(r).get("record_type") == "test"
    ]
