"""The LL144 dates of a site page: the six-month arithmetic and the findings.

``add_months`` is checked against pandas' ``DateOffset(months=...)`` (an independent
calendar implementation) on every day of a leap and a common year and on drawn dates.
"""

from __future__ import annotations

import datetime as dt

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from respai.errors import InputError
from respai.site.dates import FROM_RECORD, NOT_GIVEN, add_months, ll144_dates


def _reference(day: dt.date, months: int) -> dt.date:
    shifted: dt.date = (pd.Timestamp(day) + pd.DateOffset(months=months)).date()
    return shifted


def test_six_months_later_matches_pandas_on_every_day_of_two_years() -> None:
    day = dt.date(2027, 1, 1)
    while day < dt.date(2029, 1, 1):  # 2028 is a leap year
        assert add_months(day, 6) == _reference(day, 6), day
        assert add_months(day, 12) == _reference(day, 12), day
        day += dt.timedelta(days=1)


@given(st.dates(min_value=dt.date(1900, 1, 1), max_value=dt.date(2200, 12, 31)),
       st.integers(min_value=0, max_value=240))  # fmt: skip
def test_adding_months_matches_pandas(day: dt.date, months: int) -> None:
    assert add_months(day, months) == _reference(day, months)


START = {"dates": {"audit_date": "2026-11-30", "distribution_date": "2026-12-01"}}


def _texts(**kwargs: dt.date | None) -> list[str]:
    given_dates = {"posted": None, "last_use": None, "distribution": None, **kwargs}
    return [f["text"] for f in ll144_dates(START, **given_dates)["findings"]]


def test_dates_in_order_have_no_finding_and_a_closed_period() -> None:
    out = ll144_dates(
        START, posted=dt.date(2026, 11, 30), last_use=dt.date(2027, 2, 28), distribution=None
    )
    assert out["findings"] == []
    assert out["audit_date"] == {"value": "2026-11-30", "source": FROM_RECORD}
    assert out["publication"]["until"] == "2027-08-28"


@pytest.mark.parametrize(
    ("dates", "finding"),
    [
        ({}, "The posting date is not stated (--posted)."),
        ({"posted": dt.date(2026, 12, 2)}, "after the distribution date 2026-12-01"),
        ({"posted": dt.date(2026, 11, 1)}, "before the audit date 2026-11-30"),
        ({"posted": dt.date(2026, 11, 30), "last_use": dt.date(2027, 12, 1)},
         "more than one year after the audit"),
        ({"posted": dt.date(2026, 11, 30), "last_use": dt.date(2026, 11, 30)},
         "before the distribution date"),
    ],
)  # fmt: skip
def test_each_date_out_of_order_is_a_finding(dates: dict[str, dt.date], finding: str) -> None:
    texts = _texts(**dates)
    assert len(texts) == 1 and finding in texts[0], texts


def test_a_record_without_dates_gets_them_from_the_command_line_marked_as_such() -> None:
    out = ll144_dates({}, posted=None, last_use=None, distribution=dt.date(2026, 12, 1))
    assert out["audit_date"] == {"value": None, "source": NOT_GIVEN}
    assert out["distribution_date"]["value"] == "2026-12-01"
    assert "--distribution-date" in out["distribution_date"]["source"]
    assert out["publication"] == {
        "from": None,
        "until": None,
        "note": "The posting date was not given (--posted), so the period cannot be stated.",
    }
    assert len(out["findings"]) == 2  # no audit date, no posting date


def test_a_distribution_date_that_contradicts_the_record_is_refused() -> None:
    with pytest.raises(InputError, match="differs from the distribution date 2026-12-01"):
        ll144_dates(START, posted=None, last_use=None, distribution=dt.date(2026, 12, 2))
    same = ll144_dates(START, posted=None, last_use=None, distribution=dt.date(2026, 12, 1))
    assert same["distribution_date"]["source"] == FROM_RECORD
