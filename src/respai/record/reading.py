"""Reading a verified record's JSON values without trusting their types.

A verified record is signed, but a record written by another engine version, or by hand
and signed with a trusted key, may hold any JSON in any field. The exports read its
values through these four functions: a value of the wrong type reads as empty, never as
an exception or a wrong number.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["as_dict", "as_list", "number", "text"]


def number(value: object) -> float | None:
    """``value`` as a float when it is a JSON number (not a boolean), else ``None``.

    >>> number(3), number(True), number("3")
    (3.0, None, None)
    """
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def text(value: object) -> str:
    """``value`` when it is a string, else the empty string."""
    return value if isinstance(value, str) else ""


def as_dict(value: object) -> Mapping[str, Any]:
    """``value`` when it is an object, else an empty one."""
    return value if isinstance(value, Mapping) else {}


def as_list(value: object) -> Sequence[Any]:
    """``value`` when it is an array, else an empty one."""
    return value if isinstance(value, list) else ()
