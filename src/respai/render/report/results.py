"""The tests: the table of every test and one section per test with its value and verdict.

Every row of the table and every test section carries ``data-record`` (the JSON Pointer
of its test record): the page's script requires one row and one section per test record,
in the record's order, and every bound text inside one to come from its own record.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from respai.battery import TestId
from respai.render.escape import html_text
from respai.render.report.bind import At
from respai.render.report.controls import supports_line
from respai.render.report.details import details_extras, rule_rows
from respai.render.report.markup import definition_list
from respai.render.report.verdict_words import badge

__all__ = [
    "display_name",
    "result_section",
    "results_table",
    "tamper_index",
    "tests_of",
    "value_html",
]


def tests_of(predicate: At) -> list[At]:
    """The test records of the record's predicate, in chain order."""
    return [r for r in predicate["records"].elements() if r.get("record_type") == "test"]


def tamper_index(tests: Sequence[At]) -> int | None:
    """The test the in-page Tamper button edits: the first one with a numeric value."""
    return next(
        (
            i
            for i, t in enumerate(tests)
            if isinstance(t.get("value"), int | float) and not isinstance(t.get("value"), bool)
        ),
        None,
    )


def display_name(rec: At) -> str:
    """The test's display name and its grouping or rule id (``Impact ratio · sex``), bound."""
    name = rec["test_id"].show("test_name")
    if not rec.text("sub"):
        return name
    return f"{name} · {rec.show('sub')}"


def value_html(rec: At, tamper: bool) -> str:
    """A test's value; the one marked ``tamper`` is what the Tamper button edits."""
    attrs = 'data-tamper-target=""' if tamper else ""
    return rec["value"].show("number", cls="value", attrs=attrs)


def _uncertain(rec: At) -> str:
    return rec["uncertain"].show("uncertain_flag", cls="flag")


def results_table(tests: Sequence[At], tamper: int | None) -> str:
    """The table of every test: name, value, interval, threshold, verdict, reason.

    Parameters
    ----------
    tests
        The test records, in chain order; a line separates tests of different ids.
    tamper
        The index of the test whose value the Tamper button edits, if any.

    Returns
    -------
    str
        The table (HTML); each name links to the test's section.
    """
    rows = []
    previous = None
    for i, rec in enumerate(tests):
        test_id = rec.get("test_id")
        cls = ' class="group-break"' if previous is not None and test_id != previous else ""
        previous = test_id
        rows.append(
            f'<tr{cls} data-record="{html_text(rec.json_pointer)}">'
            f'<td class="test"><a href="#test-{i + 1}">{display_name(rec)}</a>'
            f"{rec['test_key'].show('text0', cls='key mono')}</td>"
            f'<td class="num">{value_html(rec, i == tamper)}</td>'
            f'<td class="interval">{rec.show("interval_cell")}</td>'
            f'<td class="num">{rec["threshold"].show("threshold")}</td>'
            f"<td>{badge(rec['verdict'])}{_uncertain(rec)}</td>"
            f'<td class="reason">{rec["reason"].show("text0")}</td>'
            "</tr>"
        )
    return (
        '<table class="tests"><thead><tr><th>Test</th><th class="num">Value</th>'
        '<th>Interval</th><th class="num">Threshold</th><th>Verdict</th><th>Reason</th>'
        f"</tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )


def result_section(i: int, rec: At, tamper: bool, records: At) -> str:
    """The section of one test: value, interval, threshold, verdict, details, clauses.

    Parameters
    ----------
    i
        The test's number on the page, from 1 (the section's id is ``test-<i>``).
    rec
        The test record.
    tamper
        Whether this test's value is the one the Tamper button edits.
    records
        The predicate's ``records`` list, which the test's number is counted in.

    Returns
    -------
    str
        The section (HTML).
    """
    threshold = rec["threshold"]
    strip = (
        '<div class="strip">'
        f'<div><span class="k">Value</span><span class="v">{value_html(rec, tamper)}</span>'
        f"{rec['value_meaning'].show('text0', cls='n')}</div>"
        f'<div><span class="k">Interval</span><span class="v">{rec.show("interval_cell")}'
        f"</span>{rec.show('interval_note', cls='n')}</div>"
        f'<div><span class="k">Threshold</span>'
        f"{threshold.show('threshold', cls='v')}"
        f"{threshold['decision'].show('decision', cls='n')}</div>"
        f'<div><span class="k">Verdict</span><span class="v">{badge(rec["verdict"])}</span>'
        f"{rec['uncertain'].show('uncertain_flag', cls='n')}</div>"
        "</div>"
    )
    rows = [
        ("Reason", rec["reason"].show()),
        ("Threshold source", threshold["source"].show()),
        ("Uncertain", rec.show("uncertain_note")),
        ("Method", rec["method"].show()),
    ]
    details = rec.get("details")
    if isinstance(threshold.get("guarantee"), str):  # from engine 0.4.0
        rows.insert(2, ("Guarantee", threshold["guarantee"].show()))
    elif isinstance(details, Mapping) and isinstance(details.get("guarantee"), str):
        rows.insert(2, ("Guarantee", rec["details"]["guarantee"].show()))  # a rule's
    undefined = rec.get("undefined_reason")
    if isinstance(undefined, str) and undefined != rec.get("reason"):
        rows.insert(1, ("Undefined", rec["undefined_reason"].show()))
    if rec.get("test_id") == TestId.GROUP_RULE:
        rows.extend(rule_rows(rec))
    number = records.show("test_number", str(rec.path[-1]))
    return (
        f'<section class="test-section" id="test-{i}" '
        f'data-record="{html_text(rec.json_pointer)}">'
        f'<div class="title"><h3>{number}. {display_name(rec)}</h3>'
        f"{rec['test_key'].show('text0', cls='key mono small')}</div>"
        f"{strip}{definition_list(rows)}{details_extras(rec)}{supports_line(rec)}</section>"
    )
