"""The validator kit the block parsers share.

Each helper takes a :class:`_Ctx` (the file's name, for messages) and the dotted key it is
checking, returns the value in its clean form, or raises a
:class:`~respai.errors.SpecError` that names the file and the key:
``spec.yaml: fairness.rules[0].rate: 'eror' is not a rate. Did you mean 'error'?``.
Unknown keys get a "did you mean" from the allowed ones. Values YAML changed silently
(``no`` read as a boolean, ``1.0`` as a float) are refused or turned back into the text
the file holds. This module reads no file and imports no YAML.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from respai.errors import SpecError, did_you_mean
from respai.spec.parsed import FORMATS
from respai.spelling import same_number_pair

_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


class _Ctx:
    """Where we are in the file, for messages: ``spec.yaml: fairness.rules[1].rate``."""

    def __init__(self, origin: str) -> None:
        self.origin = origin

    def fail(self, key: str, message: str, hint: str | None = None) -> SpecError:
        return SpecError(f"{self.origin}: {key}: {message}", hint)


def _check_keys(
    ctx: _Ctx,
    where: str,
    block: Mapping[Any, Any],
    allowed: Sequence[str],
    required: Sequence[str],
) -> None:
    for key in block:
        if not isinstance(key, str):
            raise ctx.fail(where, f"key {key!r} is not a name.", "Keys are plain words.")
        if key not in allowed:
            raise ctx.fail(
                f"{where}.{key}" if where else key,
                "unknown key." + did_you_mean(key, allowed),
                f"Allowed keys here: {', '.join(allowed)}.",
            )
    for key in required:
        if key not in block:
            raise ctx.fail(f"{where}.{key}" if where else key, "is required but missing.")


def _mapping(ctx: _Ctx, key: str, value: Any) -> Mapping[Any, Any]:
    if not isinstance(value, Mapping):
        raise ctx.fail(key, f"must be a mapping of keys to values, got {_kind(value)}.")
    return value


def _name(ctx: _Ctx, key: str, value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, str | int) or str(value).strip() == "":
        raise ctx.fail(key, f"must be a column name (text), got {_kind(value)}.")
    return str(value)


def _text(ctx: _Ctx, key: str, value: Any) -> str:
    if isinstance(value, bool) or value is None or isinstance(value, Mapping | list):
        raise ctx.fail(key, f"must be text, got {_kind(value)}.")
    return str(value)


def _fraction(ctx: _Ctx, key: str, value: Any, *, open_low: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ctx.fail(key, f"must be a number between 0 and 1, got {_kind(value)}.")
    low_ok = value > 0 if open_low else value >= 0
    if not low_ok or value > 1:
        bound = "above 0" if open_low else "0 or more"
        raise ctx.fail(
            key,
            f"must be {bound} and at most 1, got {value}.",
            "Write shares as fractions: 5 percentage points is 0.05.",
        )
    return float(value)


def _count(ctx: _Ctx, key: str, value: Any, *, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ctx.fail(key, f"must be a whole number, got {_kind(value)}.")
    if not low <= value <= high:
        raise ctx.fail(key, f"must be between {low} and {high}, got {value}.")
    return value


def _kind(value: Any) -> str:
    if value is None:
        return "nothing (empty)"
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()} (quote it if you meant text)"
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return f"the text '{value}'"
    return f"{type(value).__name__} {value!r}"


def _value_text(ctx: _Ctx, key: str, value: Any) -> str:
    """Declared attribute values are compared as text; refuse what YAML silently changed."""
    if isinstance(value, bool):
        raise ctx.fail(
            key,
            "an unquoted yes/no/true/false/on/off was read by YAML as a boolean "
            f"({str(value).lower()}).",
            "Quote it, e.g. 'yes' or 'no', so it stays text.",
        )
    if isinstance(value, float):
        if not value.is_integer():
            raise ctx.fail(key, f"the value {value} is not a category.", "Quote it as text.")
        return str(int(value))
    if isinstance(value, int | str):
        text = str(value)
        if text.strip() == "":
            raise ctx.fail(key, "an empty value cannot be a declared group.")
        if any(ord(c) < 32 or 127 <= ord(c) < 160 for c in text):
            raise ctx.fail(key, f"the value {text!r} holds control characters.")
        return text
    raise ctx.fail(key, f"each value must be text or a whole number, got {_kind(value)}.")


def _binary_map(ctx: _Ctx, key: str, value: Any) -> dict[str, int]:
    block = _mapping(ctx, key, value)
    out: dict[str, int] = {}
    for raw, target in block.items():
        if isinstance(target, bool) or target not in (0, 1):
            raise ctx.fail(f"{key}.{raw}", f"must map to 0 or 1, got {_kind(target)}.")
        if isinstance(raw, bool):
            raise ctx.fail(
                key,
                f"an unquoted yes/no/true/false/on/off key was read by YAML as a boolean "
                f"({str(raw).lower()}).",
                "Quote the keys, e.g. {'yes': 1, 'no': 0}, so they match the text in the file.",
            )
        out[str(raw)] = int(target)
    if not out:
        raise ctx.fail(key, "is empty.", "Map each value in the column to 0 or 1.")
    twins = same_number_pair(out)
    if twins is not None:
        raise ctx.fail(
            key,
            f"maps {twins[0]!r} and {twins[1]!r}, which are the same number (map keys match "
            "any spelling of the same number).",
            "Map the number once.",
        )
    return out


def _distinct_roles(ctx: _Ctx, block: str, roles: Mapping[str, str | None]) -> None:
    """Refuse one column named for two roles (label and prediction, sex and race, ...)."""
    seen: dict[str, str] = {}
    for role, column in roles.items():
        if column is None:
            continue
        if column in seen:
            raise ctx.fail(
                f"{block}.{role}",
                f"names the column '{column}', which is already the {seen[column]} column.",
                "Each role needs its own column.",
            )
        seen[column] = role


def _format_and_delimiter(
    ctx: _Ctx, where: str, block: Mapping[Any, Any]
) -> tuple[str | None, str]:
    """The ``format`` (lower case, or ``None``: from the suffix) and ``delimiter`` keys."""
    fmt = block.get("format")
    if fmt is not None:
        fmt = _text(ctx, f"{where}.format", fmt).lower()
        if fmt not in FORMATS:
            raise ctx.fail(
                f"{where}.format",
                f"'{fmt}' is not a supported format." + did_you_mean(fmt, FORMATS),
                f"Use one of {', '.join(FORMATS)}.",
            )
    delimiter = block.get("delimiter", ",")
    if not isinstance(delimiter, str) or len(delimiter) != 1:
        raise ctx.fail(
            f"{where}.delimiter",
            f"must be one character, got {_kind(delimiter)}.",
            "For a tab, write '\\t' in double quotes.",
        )
    return fmt, delimiter


def _alpha(ctx: _Ctx, key: str, value: Any) -> float:
    alpha = _fraction(ctx, key, value, open_low=True)
    if alpha >= 0.5:
        raise ctx.fail(key, f"must be below 0.5, got {alpha}.", "The usual choice is 0.05.")
    return alpha


def _worst_group(ctx: _Ctx, key: str, value: Any) -> tuple[float | None, float | None]:
    block = _mapping(ctx, key, value)
    _check_keys(ctx, key, block, ("min", "max"), ())
    if len(block) != 1:
        raise ctx.fail(
            key,
            "needs exactly one of min and max.",
            "For example {min: 0.8}: every group's rate at least 0.8.",
        )
    if "min" in block:
        return _fraction(ctx, f"{key}.min", block["min"]), None
    return None, _fraction(ctx, f"{key}.max", block["max"])


def _path(ctx: _Ctx, key: str, value: Any, base_dir: Path | None) -> Path | None:
    if value is None:
        return None
    raw = Path(_text(ctx, key, value)).expanduser()
    return raw if raw.is_absolute() or base_dir is None else base_dir / raw


def _date(ctx: _Ctx, key: str, value: Any) -> str:
    """A date given as a YAML date or an ISO ``YYYY-MM-DD`` string, as an ISO string."""
    if isinstance(value, dt.datetime):
        raise ctx.fail(
            key,
            f"must be a date such as 2026-11-30, got a date and time ({value.isoformat()}).",
            "Drop the time of day.",
        )
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, str) and _ISO_DATE.match(value.strip()):
        try:
            return dt.date.fromisoformat(value.strip()).isoformat()
        except ValueError:
            raise ctx.fail(key, f"'{value}' is not a calendar date.") from None
    raise ctx.fail(
        key,
        f"must be a date such as 2026-11-30, got {_kind(value)}.",
        "Write it as YYYY-MM-DD.",
    )
