"""The tests: the table of every test and one section per test with its value and verdict."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from respai.battery import TEST_NAMES, TestId
from respai.render.escape import html_text
from respai.render.report.controls import supports_line
from respai.render.report.details import details_extras, rule_rows
from respai.render.report.fields import as_dict, as_list, as_str, is_number
from respai.render.report.markup import definition_list
from respai.render.report.values import interval_text, number, operators, plain
from respai.render.report.verdicts import badge

__all__ = [
    "display_name",
    "interval_cell",
    "result_section",
    "results_table",
    "tamper_index",
    "threshold_text",
    "value_html",
]

_RULE_LIMITS = ("max_group_gap", "worst_group_min", "worst_group_max")


def tamper_index(tests: Sequence[Mapping[str, Any]]) -> int | None:
    """The test the in-page Tamper button edits: the first one with a numeric value."""
    return next(
        (
            i
            for i, t in enumerate(tests)
            if isinstance(t.get("value"), int | float) and not isinstance(t.get("value"), bool)
        ),
        None,
    )


def display_name(rec: Mapping[str, Any]) -> tuple[str, str]:
    """The test's display name and its grouping or rule id."""
    test_id = as_str(rec.get("test_id"), "test")
    name = TEST_NAMES.get(test_id, test_id)
    if test_id == TestId.GROUP_RULE:
        key = as_str(rec.get("test_key"))
        return name, key.removeprefix("rule:")
    grouping = as_list(rec.get("grouping"))
    return name, " × ".join(str(g) for g in grouping)


def value_html(rec: Mapping[str, Any], tamper: bool) -> str:
    """A test's value; the one marked ``tamper`` is what the Tamper button edits."""
    text = number(rec.get("value"))
    attr = ' data-tamper-target=""' if tamper else ""
    return f'<span class="value"{attr}>{html_text(text)}</span>'


def threshold_text(threshold: Mapping[str, Any]) -> str:
    """A threshold as ``≥ 0.8``: its comparison and value, or a group rule's limit."""
    comparison = as_str(threshold.get("comparison"))
    if is_number(threshold.get("value")):
        return f"{operators(comparison)} {plain(threshold['value'])}".strip()
    for key in _RULE_LIMITS:
        if is_number(threshold.get(key)):
            return f"{operators(comparison)} {plain(threshold[key])}".strip()
    return operators(comparison) or "—"


def interval_cell(rec: Mapping[str, Any]) -> str:
    """A test's interval, or a group rule's bounds on its largest gap (HTML)."""
    if rec.get("interval") is not None:
        return html_text(interval_text(rec.get("interval")))
    bounds = as_dict(as_dict(rec.get("details")).get("gap_bounds"))
    if is_number(bounds.get("lo")) and is_number(bounds.get("hi")):
        return f"gap in [{number(bounds['lo'])}, {number(bounds['hi'])}]"
    return "—"


def results_table(tests: Sequence[Mapping[str, Any]], tamper: int | None) -> str:
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
        name, sub = display_name(rec)
        test_id = rec.get("test_id")
        cls = ' class="group-break"' if previous is not None and test_id != previous else ""
        previous = test_id
        uncertain = '<span class="flag">uncertain</span>' if rec.get("uncertain") is True else ""
        threshold = as_dict(rec.get("threshold"))
        label = f"{name} · {sub}" if sub else name
        rows.append(
            f"<tr{cls}>"
            f'<td class="test"><a href="#test-{i + 1}">{html_text(label)}</a>'
            f'<span class="key mono">{html_text(as_str(rec.get("test_key")))}</span></td>'
            f'<td class="num">{value_html(rec, i == tamper)}</td>'
            f'<td class="interval">{interval_cell(rec)}</td>'
            f'<td class="num">{html_text(threshold_text(threshold))}</td>'
            f"<td>{badge(rec.get('verdict'))}{uncertain}</td>"
            f'<td class="reason">{html_text(as_str(rec.get("reason")))}</td>'
            "</tr>"
        )
    return (
        '<table class="tests"><thead><tr><th>Test</th><th class="num">Value</th>'
        '<th>Interval</th><th class="num">Threshold</th><th>Verdict</th><th>Reason</th>'
        f"</tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )


def result_section(i: int, rec: Mapping[str, Any], tamper: bool) -> str:
    """The section of one test: value, interval, threshold, verdict, details, clauses.

    Parameters
    ----------
    i
        The test's number on the page, from 1 (the section's id is ``test-<i>``).
    rec
        The test record.
    tamper
        Whether this test's value is the one the Tamper button edits.

    Returns
    -------
    str
        The section (HTML).
    """
    name, sub = display_name(rec)
    threshold = as_dict(rec.get("threshold"))
    iv = as_dict(rec.get("interval"))
    interval_note = ""
    if iv:
        level = iv.get("confidence")
        interval_note = as_str(iv.get("method")) + (
            f", {float(level) * 100:.4g}%" if is_number(level) else ""
        )
    elif as_dict(as_dict(rec.get("details")).get("gap_bounds")):
        interval_note = "bounds on the largest gap"
    decision = as_str(threshold.get("decision"))
    decided = f"decided on the {decision}" if decision else ""
    source = as_str(threshold.get("source"))
    if "uncertain" in rec:
        uncertain = (
            '<span class="flag">uncertain</span>: the interval crosses the threshold'
            if rec.get("uncertain") is True
            else "no: the interval lies on one side of the threshold"
            if iv
            else "no: there is no interval"
        )
    else:
        uncertain = "not applicable: a group rule is decided from its intervals"
    value_note = as_str(rec.get("value_meaning"))
    strip = (
        '<div class="strip">'
        f'<div><span class="k">Value</span><span class="v">{value_html(rec, tamper)}</span>'
        f'<span class="n">{html_text(value_note)}</span></div>'
        f'<div><span class="k">Interval</span><span class="v">{interval_cell(rec)}</span>'
        f'<span class="n">{html_text(interval_note)}</span></div>'
        f'<div><span class="k">Threshold</span><span class="v">'
        f"{html_text(threshold_text(threshold))}</span>"
        f'<span class="n">{html_text(decided)}</span></div>'
        f'<div><span class="k">Verdict</span><span class="v">{badge(rec.get("verdict"))}</span>'
        f'<span class="n">{"uncertain" if rec.get("uncertain") is True else ""}</span></div>'
        "</div>"
    )
    rows = [
        ("Reason", html_text(as_str(rec.get("reason"), "—"))),
        ("Threshold source", html_text(source or "—")),
        ("Uncertain", uncertain),
        ("Method", html_text(as_str(rec.get("method"), "—"))),
    ]
    undefined = rec.get("undefined_reason")
    if isinstance(undefined, str) and undefined != rec.get("reason"):
        rows.insert(1, ("Undefined", html_text(undefined)))
    if rec.get("test_id") == TestId.GROUP_RULE:
        rows.extend(rule_rows(rec))
    title = f"{i}. {name}" + (f" · {sub}" if sub else "")
    return (
        f'<section class="test-section" id="test-{i}">'
        f'<div class="title"><h3>{html_text(title)}</h3>'
        f'<span class="key mono small">{html_text(as_str(rec.get("test_key")))}</span></div>'
        f"{strip}{definition_list(rows)}{details_extras(rec)}{supports_line(rec)}</section>"
    )
