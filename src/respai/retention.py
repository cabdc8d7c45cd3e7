"""Retention clocks: how long a run's evidence must be kept, and until when.

A policy's ``retention:`` list names presets (the rules below) or explicit periods
(``{name: internal, keep_for: P4Y}``). Each becomes one entry of the signed record's
``run_start.settings.retention``: ``{name, source, keep_until, basis}``, ``keep_until``
the calendar date (``YYYY-MM-DD``) until which the run must be kept. Periods are counted
in calendar years and months from a start day (the run's UTC day unless the entry gives
another); a day that does not exist in the target month becomes that month's last day
(31 August + 6 months = 28 or 29 February).

A run may be removed from the ledger (``respai ledger remove``) only after its latest
``keep_until`` has passed; the removal leaves a signed tombstone
(:mod:`respai.ledger.tombstone`).

This module is pure: dates in, dates out; it reads no file.
"""

from __future__ import annotations

import calendar
import dataclasses
import datetime as dt
import re
from collections.abc import Mapping, Sequence
from typing import Any

__all__ = [
    "PRESETS",
    "RetentionRule",
    "add_period",
    "keep_until",
    "parse_period",
    "retention_entries",
]


@dataclasses.dataclass(frozen=True)
class RetentionRule:
    """One retention clock of a policy.

    Attributes
    ----------
    name
        The preset's name or the policy's own name for the clock.
    source
        The law and article that sets the period (``None`` for a policy's own period).
    years, months, days
        The period.
    start
        The day the period counts from (``YYYY-MM-DD``), or ``None`` for the run's day.
    basis
        What the period counts from, in words, for the record.
    """

    name: str
    source: str | None
    years: int = 0
    months: int = 0
    days: int = 0
    start: str | None = None
    basis: str = "from the run's day (UTC)"

    @property
    def period(self) -> str:
        """The period as an ISO 8601 duration (``P4Y``, ``P6M``, ``P1Y2M3D``)."""
        parts = [(self.years, "Y"), (self.months, "M"), (self.days, "D")]
        text = "".join(f"{n}{u}" for n, u in parts if n)
        return f"P{text or '0D'}"

    def keep_until(self, run_day: dt.date) -> dt.date:
        """The last day the run must be kept, for a run made on ``run_day``."""
        start = dt.date.fromisoformat(self.start) if self.start else run_day
        return add_period(start, self.years, self.months, self.days)


#: The presets a policy may name: ``{name: (source, years, months, basis)}``.
PRESETS: Mapping[str, tuple[str, int, int, str]] = {
    "ca-ads": (
        "California Civil Rights Council regulations on automated-decision systems under "
        "FEHA (Cal. Code Regs. tit. 2), in force 1 October 2025: automated-decision "
        "system records kept 4 years",
        4,
        0,
        "4 years from the run's day (UTC)",
    ),
    "eu-ai-act-logs": (
        "Regulation (EU) 2024/1689 (AI Act) Art. 19(1) (providers) and Art. 26(6) "
        "(deployers): automatically generated logs kept at least six months",
        0,
        6,
        "6 months from the run's day (UTC)",
    ),
    "eu-ai-act-docs": (
        "Regulation (EU) 2024/1689 (AI Act) Art. 18(1): technical documentation kept 10 "
        "years after the system is placed on the market or put into service",
        10,
        0,
        "10 years from the run's day (UTC) unless a start day is given (the Act counts "
        "from the placing on the market or putting into service)",
    ),
    "ll144-publication": (
        "New York City Local Law 144 rules, 6 RCNY § 5-303: the summary of bias-audit "
        "results stays posted at least 6 months after the tool's last use for an "
        "employment decision",
        0,
        6,
        "6 months after the tool's last use (last_use)",
    ),
}

_PERIOD = re.compile(r"^P(?:(\d{1,3})Y)?(?:(\d{1,4})M)?(?:(\d{1,5})D)?$")


def parse_period(text: str) -> tuple[int, int, int] | None:
    """``(years, months, days)`` of an ISO 8601 duration of dates, or ``None``.

    Only years, months and days are accepted (no weeks, no time of day), and at least
    one must be given.

    Examples
    --------
    >>> parse_period("P4Y")
    (4, 0, 0)
    >>> parse_period("P1Y6M")
    (1, 6, 0)
    >>> parse_period("PT6H") is None
    True
    """
    match = _PERIOD.match(text)
    if match is None or not any(match.groups()):
        return None
    years, months, days = (int(g) if g else 0 for g in match.groups())
    return years, months, days


def add_period(day: dt.date, years: int = 0, months: int = 0, days: int = 0) -> dt.date:
    """``day`` plus calendar years and months (clamped to the month's end), then days.

    Examples
    --------
    >>> add_period(dt.date(2024, 2, 29), years=4)
    datetime.date(2028, 2, 29)
    >>> add_period(dt.date(2024, 2, 29), years=1)
    datetime.date(2025, 2, 28)
    >>> add_period(dt.date(2026, 8, 31), months=6)
    datetime.date(2027, 2, 28)
    """
    index = day.year * 12 + day.month - 1 + 12 * years + months
    year, month = divmod(index, 12)
    last = calendar.monthrange(year, month + 1)[1]
    return dt.date(year, month + 1, min(day.day, last)) + dt.timedelta(days=days)


def retention_entries(rules: Sequence[RetentionRule], timestamp: str) -> list[dict[str, Any]]:
    """The record's ``settings.retention`` for a run made at ``timestamp`` (RFC 3339 UTC).

    Each entry is ``{name, source, period, start, keep_until, basis}``.
    """
    run_day = dt.date.fromisoformat(timestamp[:10])
    return [
        {
            "name": rule.name,
            "source": rule.source,
            "period": rule.period,
            "start": rule.start or run_day.isoformat(),
            "keep_until": rule.keep_until(run_day).isoformat(),
            "basis": rule.basis,
        }
        for rule in rules
    ]


def keep_until(predicate: Mapping[str, Any] | None) -> tuple[str, list[str]] | None:
    """The latest ``keep_until`` of a record's retention entries and their names, or ``None``.

    ``None`` when the record states no retention (or states it unreadably). The names
    are those of the entries that end on that latest day.
    """
    records = (predicate or {}).get("records")
    first = records[0] if isinstance(records, list) and records else None
    settings = first.get("settings") if isinstance(first, Mapping) else None
    entries = settings.get("retention") if isinstance(settings, Mapping) else None
    if not isinstance(entries, list):
        return None
    dated: list[tuple[str, str]] = []
    for entry in entries:
        if not isinstance(entry, Mapping):
            continue
        day, name = entry.get("keep_until"), entry.get("name")
        try:
            dt.date.fromisoformat(str(day))
        except ValueError:
            continue
        if isinstance(day, str) and len(day) == 10:
            dated.append((day, str(name)))
    if not dated:
        return None
    latest = max(day for day, _ in dated)
    return latest, [name for day, name in dated if day == latest]
