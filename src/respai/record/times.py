"""RFC 3339 UTC timestamps, the only time format a record or ``keys.json`` holds."""

from __future__ import annotations

import datetime as dt
import re

from respai.record.errors import RecordError

__all__ = [
    "TIMESTAMP_PATTERN",
    "format_timestamp",
    "now_utc",
    "parse_timestamp",
]

TIMESTAMP_PATTERN = r"^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,9})?Z$"
"""An RFC 3339 date-time in UTC with the ``Z`` suffix, optionally with a fraction."""

_TIMESTAMP = re.compile(TIMESTAMP_PATTERN)


def now_utc() -> dt.datetime:
    """Return the current time as an aware UTC datetime."""
    return dt.datetime.now(dt.UTC)


def format_timestamp(when: dt.datetime) -> str:
    """Return ``when`` as an RFC 3339 UTC string ending in ``Z``.

    Microseconds are written only when they are not zero.

    Parameters
    ----------
    when
        An aware datetime.

    Raises
    ------
    RecordError
        If ``when`` is naive.

    Examples
    --------
    >>> import datetime as dt
    >>> format_timestamp(dt.datetime(2026, 1, 15, 10, 20, 30, tzinfo=dt.UTC))
    '2026-01-15T10:20:30Z'
    """
    if when.tzinfo is None or when.utcoffset() is None:
        raise RecordError(
            f"The datetime {when.isoformat()} has no time zone, so its instant is unknown.",
            "Use an aware datetime, e.g. datetime.now(timezone.utc).",
        )
    utc = when.astimezone(dt.UTC)
    text = utc.strftime("%Y-%m-%dT%H:%M:%S")
    if utc.microsecond:
        text += f".{utc.microsecond:06d}"
    return text + "Z"


def parse_timestamp(text: object) -> dt.datetime:
    """Parse an RFC 3339 UTC string (``...Z``) into an aware datetime.

    Fractions beyond microseconds are truncated.

    Raises
    ------
    RecordError
        If ``text`` is not of the form ``YYYY-MM-DDTHH:MM:SS[.fraction]Z`` or names no
        real date.

    Examples
    --------
    >>> parse_timestamp("2026-01-15T10:20:30.5Z").isoformat()
    '2026-01-15T10:20:30.500000+00:00'
    """
    if not isinstance(text, str) or not _TIMESTAMP.match(text):
        raise RecordError(
            f"{text!r} is not an RFC 3339 UTC timestamp such as '2026-01-15T10:20:30Z'."
        )
    body = str(text)[:-1]
    if "." in body:
        whole, fraction = body.split(".")
        body = f"{whole}.{fraction[:6].ljust(6, '0')}"
    try:
        return dt.datetime.fromisoformat(body).replace(tzinfo=dt.UTC)
    except ValueError as exc:
        raise RecordError(f"{text!r} is not a real date and time: {exc}.") from None
