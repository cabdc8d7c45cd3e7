"""An LL144 record's findings, listed apart from the tests table.

Every test record of an LL144 audit reads MANUAL_REVIEW (the law sets no pass mark), so
the tests table alone shows one identical verdict per category. :func:`findings_section`
lists, before the table, the categories with a statistical finding (``details.finding``:
an impact ratio under the screening line plus its margin), each with its table, impact
ratio, rate and interval, the finding and the sentence that says why it needs review.
Every text is bound to the category's test record, or is a fixed label.
"""

from __future__ import annotations

from collections.abc import Sequence

from respai.battery import TestId
from respai.render.report.bind import At

__all__ = ["findings_section"]


def _item(number: int, rec: At) -> str:
    details = rec["details"]
    return (
        f'<li><a href="#test-{number}">{details["category"].show("text", tag="b")}</a>'
        f" ({details['table'].show('text')}) · impact ratio {rec['value'].show('number')}"
        f" · rate {details['rate'].show('number')} {details['rate_interval'].show('interval')}"
        f" · {details['finding'].show('rate_name')}: {details['finding_sentence'].show()}</li>"
    )


def findings_section(tests: Sequence[At]) -> str:
    """The findings of an LL144 record, or nothing for a record without LL144 tests (HTML).

    Parameters
    ----------
    tests
        The test records, in chain order (the links go to ``#test-<number>``).
    """
    ll144 = [
        (i + 1, t) for i, t in enumerate(tests) if t.get("test_id") == TestId.LL144_IMPACT_RATIO
    ]
    if not ll144:
        return ""
    found = [
        (i, t)
        for i, t in ll144
        if isinstance(t["details"].get("finding"), str) and t["details"].get("finding")
    ]
    intro = (
        '<p class="small muted">The law sets no pass mark, so every category below reads '
        "MANUAL REVIEW. These are the categories whose impact ratio is under the screening "
        "line plus its margin, each with the statistical finding that an auditor judges; "
        "every other category's record is in the table.</p>"
    )
    if not found:
        body = "<p>No category has a statistical finding.</p>"
    else:
        body = '<ul class="findings">' + "".join(_item(i, t) for i, t in found) + "</ul>"
    return f'<h2 id="findings">Findings</h2>{intro}{body}'
