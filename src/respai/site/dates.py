"""The dates an LL144 summary must show, and its publication period.

NYC Local Law 144 (NYC Admin. Code § 20-871) and the DCWP rules (6 RCNY § 5-303) require
the employer to publish, on the employment section of its website and *before* it uses
the automated employment decision tool, a summary of the most recent bias audit stating
the date of that audit (§ 5-303(a)(1)) and the tool's distribution date (§ 5-303(a)(2)),
and to keep the summary posted for at least six months after the tool's last use for an
employment decision (the six-month rule is read in secondary sources only; see
``research/controls.md`` §4.4). The tool may not be used when more than a year has
passed since its latest bias audit (§ 20-871; 6 RCNY § 5-301).

:func:`ll144_dates` takes the dates the signed LL144 record holds (the audit date and the
distribution date of its spec) and the ones the person building the site gives on the
command line (the posting date, the last use, and a distribution date the record lacks),
and returns each date with where it came from, the publication period and the findings
(a summary posted after the tool was first used, an audit more than a year before it).
"""

from __future__ import annotations

import calendar
import datetime as dt
from collections.abc import Mapping
from typing import Any

from respai.errors import InputError

__all__ = [
    "FROM_COMMAND_LINE",
    "FROM_RECORD",
    "NOT_GIVEN",
    "add_months",
    "ll144_dates",
    "parse_day",
]

#: Where a date came from: the signed LL144 record of the audit.
FROM_RECORD = "the signed LL144 record of the audit"
#: The source of a date nobody gave.
NOT_GIVEN = "not given: neither the signed record nor a command-line option states it"
#: Where a date came from: the person who built the site (a command-line option).
FROM_COMMAND_LINE = "given to respai site ({option}), not part of the signed audit record"


def parse_day(text: str, option: str) -> dt.date:
    """``YYYY-MM-DD`` as a date, or an :class:`InputError` naming the option.

    Examples
    --------
    >>> parse_day("2026-12-01", "--posted")
    datetime.date(2026, 12, 1)
    """
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise InputError(
            f"{option} {text!r} is not a date written YYYY-MM-DD.",
            "Write the day as, for example, 2026-12-01.",
        ) from None


def add_months(day: dt.date, months: int) -> dt.date:
    """The same day ``months`` calendar months later, or the month's last day if shorter.

    Examples
    --------
    >>> add_months(dt.date(2026, 8, 31), 6)
    datetime.date(2027, 2, 28)
    >>> add_months(dt.date(2027, 8, 31), 6)
    datetime.date(2028, 2, 29)
    """
    index = day.year * 12 + day.month - 1 + months
    year, month = divmod(index, 12)
    last = calendar.monthrange(year, month + 1)[1]
    return dt.date(year, month + 1, min(day.day, last))


def _anniversary(day: dt.date) -> dt.date:
    return add_months(day, 12)


def _dated(value: str | None, source: str) -> dict[str, Any]:
    if value is None:
        return {"value": None, "source": NOT_GIVEN}
    return {"value": value, "source": source}


def ll144_dates(
    run_start: Mapping[str, Any],
    *,
    posted: dt.date | None,
    last_use: dt.date | None,
    distribution: dt.date | None,
) -> dict[str, Any]:
    """Every date of one LL144 summary, its publication period and the findings.

    Parameters
    ----------
    run_start
        The ``run_start`` record of the signed LL144 run (its ``dates``).
    posted, last_use
        The posting date of the summary and the tool's last use, from the command line.
    distribution
        A distribution date from the command line, for a record that states none.

    Returns
    -------
    dict
        ``audit_date``, ``distribution_date``, ``posted`` and ``last_use`` (each
        ``{"value", "source"}``), ``publication`` (``from``, ``until`` and ``note``:
        ``until`` is ``null`` while the tool's last use is unknown, and the note says
        why) and ``findings`` (a list of ``{"text"}``).

    Raises
    ------
    InputError
        When ``distribution`` differs from the distribution date the signed record states.

    Examples
    --------
    >>> start = {"dates": {"audit_date": "2026-11-30", "distribution_date": "2026-12-01"}}
    >>> d = ll144_dates(start, posted=dt.date(2026, 11, 30), last_use=dt.date(2027, 3, 31),
    ...                 distribution=None)
    >>> d["publication"]["from"], d["publication"]["until"], d["findings"]
    ('2026-11-30', '2027-09-30', [])
    """
    dates = run_start.get("dates")
    dates = dates if isinstance(dates, Mapping) else {}
    audit = dates.get("audit_date") if isinstance(dates.get("audit_date"), str) else None
    signed_dist = dates.get("distribution_date")
    signed_dist = signed_dist if isinstance(signed_dist, str) else None
    if distribution is not None and signed_dist is not None:
        if distribution.isoformat() != signed_dist:
            raise InputError(
                f"--distribution-date {distribution.isoformat()} differs from the distribution "
                f"date {signed_dist} the signed LL144 record states.",
                "Leave out --distribution-date for a record that states its own, or run a new "
                "audit whose spec holds the right ll144.distribution_date.",
            )
        distribution = None
    if signed_dist is not None:
        dist_entry = _dated(signed_dist, FROM_RECORD)
    else:
        dist_entry = _dated(
            None if distribution is None else distribution.isoformat(),
            FROM_COMMAND_LINE.format(option="--distribution-date"),
        )
    out: dict[str, Any] = {
        "audit_date": _dated(audit, FROM_RECORD),
        "distribution_date": dist_entry,
        "posted": _dated(
            None if posted is None else posted.isoformat(),
            FROM_COMMAND_LINE.format(option="--posted"),
        ),
        "last_use": _dated(
            None if last_use is None else last_use.isoformat(),
            FROM_COMMAND_LINE.format(option="--last-use"),
        ),
    }
    until = None if last_use is None else add_months(last_use, 6).isoformat()
    if posted is None:
        note = "The posting date was not given (--posted), so the period cannot be stated."
    elif until is None:
        note = (
            "The tool's last use was not given (--last-use): the summary stays posted while "
            "the tool is in use and for at least six months after its last use."
        )
    else:
        note = "From the posting date to six months after the tool's last use, at least."
    out["publication"] = {
        "from": None if posted is None else posted.isoformat(),
        "until": until,
        "note": note,
    }
    found = _findings(audit, dist_entry["value"], posted, last_use)
    out["findings"] = [{"text": t} for t in found]
    return out


def _findings(
    audit: str | None, distribution: str | None, posted: dt.date | None, last_use: dt.date | None
) -> list[str]:
    found: list[str] = []
    first_use = None if distribution is None else dt.date.fromisoformat(distribution)
    audit_day = None if audit is None else dt.date.fromisoformat(audit)
    if audit_day is None:
        found.append("The date of the bias audit is not stated; § 5-303(a)(1) requires it.")
    if first_use is None:
        found.append("The distribution date is not stated; § 5-303(a)(2) requires it.")
    if posted is None:
        found.append("The posting date is not stated (--posted).")
    elif first_use is not None and posted > first_use:
        found.append(
            f"The summary was posted on {posted.isoformat()}, after the distribution date "
            f"{first_use.isoformat()}: it must be posted before the tool is used."
        )
    if posted is not None and audit_day is not None and posted < audit_day:
        found.append(
            f"The posting date {posted.isoformat()} is before the audit date "
            f"{audit_day.isoformat()}: a summary cannot be posted before its audit."
        )
    if audit_day is not None and first_use is not None and first_use > _anniversary(audit_day):
        found.append(
            f"The distribution date {first_use.isoformat()} is more than one year after the "
            f"audit of {audit_day.isoformat()}: the tool may not be used a year after its "
            "latest bias audit."
        )
    if last_use is not None and audit_day is not None and last_use > _anniversary(audit_day):
        found.append(
            f"The last use {last_use.isoformat()} is more than one year after the audit of "
            f"{audit_day.isoformat()}: a use that late needs a newer bias audit."
        )
    if last_use is not None and first_use is not None and last_use < first_use:
        found.append(
            f"The last use {last_use.isoformat()} is before the distribution date "
            f"{first_use.isoformat()}."
        )
    return found
