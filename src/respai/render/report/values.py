"""How the report writes numbers, intervals, sizes, hashes and times (plain text)."""

from __future__ import annotations

import datetime as dt

from respai.render.report.fields import as_dict, is_number

__all__ = [
    "count_text",
    "interval_text",
    "number",
    "operators",
    "plain",
    "short_hash",
    "significant",
    "size_text",
    "when",
]


def number(value: object, digits: int = 4) -> str:
    """A rate or value to ``digits`` decimals (``1`` as ``1.0000``), else a dash."""
    if not is_number(value):
        return "—"
    return f"{float(value):.{digits}f}"


def plain(value: object) -> str:
    """A threshold-like number as written (0.8, not 0.8000)."""
    if is_number(value):
        return repr(value) if isinstance(value, float) else str(value)
    return "—" if value is None else str(value)


def count_text(value: object) -> str:
    """A count with thousands separators (``12,345``), else a dash."""
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return "—"


def significant(value: object) -> str:
    """A number to four significant digits (``0.0125``), else a dash."""
    return f"{float(value):.4g}" if is_number(value) else "—"


def interval_text(iv: object) -> str:
    """An interval mapping as ``[lo, hi]`` to four decimals, else a dash."""
    d = as_dict(iv)
    if not (is_number(d.get("lo")) and is_number(d.get("hi"))):
        return "—"
    return f"[{number(d['lo'])}, {number(d['hi'])}]"


def operators(text: str) -> str:
    """A comparison with ``>=`` and ``<=`` written as ``≥`` and ``≤``."""
    return text.replace(">=", "≥").replace("<=", "≤")


def size_text(value: object) -> str:
    """A size in bytes as ``12.3 MB``, ``4.5 kB`` or ``12 bytes``; empty if not an int."""
    if not isinstance(value, int) or isinstance(value, bool):
        return ""
    for unit, factor in (("MB", 1_000_000), ("kB", 1_000)):
        if value >= factor:
            return f"{value / factor:.1f} {unit}"
    return f"{value} bytes"


def short_hash(text: str) -> str:
    """``sha256:`` and the first 16 hex digits, for the summary; the full one is below."""
    body = text.removeprefix("sha256:")
    return f"sha256:{body[:16]}…" if len(body) > 16 else text


def when(stamp: object) -> str:
    """An RFC 3339 UTC time as ``1 December 2026, 15:47:33 UTC``, or the text as given."""
    if not isinstance(stamp, str):
        return "—"
    try:
        at = dt.datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return stamp
    if at.utcoffset() != dt.timedelta(0):
        return stamp
    return f"{at.day} {at:%B %Y}, {at:%H:%M:%S} UTC"
