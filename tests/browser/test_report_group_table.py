"""The report's per-group table: every group's six rates with their intervals, derived from
the signed counts and recomputed by the page (issue 27 point 5)."""

from __future__ import annotations

import random
import re
from pathlib import Path
from statistics import NormalDist
from typing import Any

import pytest

from respai.render.report import render_report
from respai.render.report.group_rates import script_table
from respai.stats import wilson_interval
from respai.tables import METRICS

BIND_JS = (
    Path(__file__).resolve().parents[2] / "src" / "respai" / "render" / "report_assets" / "bind.js"
)
CELL = re.compile(
    r'(<td class="interval" data-bind="(/predicate/counts/groupings/[^"]*/groups/\d+)" '
    r'data-fmt="table_rate" data-arg="([a-z_]+)">)([^<]*)(</td>)'
)


def _cells(html: str) -> list[re.Match[str]]:
    return list(CELL.finditer(html))


def _problems(opened: Any) -> str:
    return str(opened.page.inner_text("#verify-checks"))


def test_the_scripts_z_is_pythons() -> None:
    """bind.js writes the 95% normal quantile as a literal: the very double Python uses."""
    (literal,) = re.findall(r"var WILSON_Z95 = ([0-9.e+-]+);", BIND_JS.read_text("utf-8"))
    assert float(literal) == -NormalDist().inv_cdf((1.0 - 0.95) / 2.0)
    iv = wilson_interval(1, 3)
    assert iv is not None and iv.confidence == 0.95


def test_the_demo_table_shows_precision_and_verifies(loan_record: Any, open_html: Any) -> None:
    html = render_report(loan_record.envelope, loan_record.public_key_raw)
    opened = open_html(html)
    assert opened.settled() == ("true", "")
    groupings = loan_record.statement()["predicate"]["counts"]["groupings"]
    tables = opened.page.locator("table.per-group")
    assert tables.count() == len(groupings)
    heads = tables.first.locator("thead th").all_text_contents()
    assert heads == ["Group", "Cases", "With a prediction", "No prediction"] + [
        r.short for r in METRICS.values()
    ]
    table = opened.page.locator("table.per-group", has_text="female")
    rows = [r.split("\t") for r in table.first.locator("tbody tr").all_inner_texts()]
    female = next(r for r in rows if r[0] == "female")
    precision = female[heads.index("precision")]
    assert re.fullmatch(r"0\.\d{3} \d+/\d+ \[0\.\d{3}, [01]\.\d{3}\]", precision), precision
    assert opened.errors == []


def _open_edited(open_html: Any, html: str, edited: str, name: str) -> Any:
    assert edited != html
    opened = open_html(edited, name)
    assert opened.settled() == ("false", "page_text")
    return opened


def test_an_edited_precision_or_interval_or_swapped_cells_fail(
    loan_record: Any, open_html: Any
) -> None:
    html = render_report(loan_record.envelope, loan_record.public_key_raw)
    cells = _cells(html)
    precision = next(m for m in cells if m.group(3) == "precision")
    value, rest = precision.group(4).split(" ", 1)
    wrong = f"{float(value) + 0.001:.3f}"

    def replaced(m: re.Match[str], text: str) -> str:
        return html[: m.start(4)] + text + html[m.end(4) :]

    opened = _open_edited(open_html, html, replaced(precision, f"{wrong} {rest}"), "p.html")
    assert "the signed record says" in _problems(opened)
    # the interval's upper end moved by one in the last decimal
    text = precision.group(4)
    hi = re.search(r", ([01]\.\d{3})\]$", text)
    assert hi is not None
    moved = f"{float(hi.group(1)) - 0.001:.3f}"
    edited = replaced(precision, text[: hi.start(1)] + moved + "]")
    opened = _open_edited(open_html, html, edited, "iv.html")
    assert "the signed record says" in _problems(opened)
    # two cells of one row swapped (each still its own text): the columns check fails
    row = [m for m in cells if m.group(2) == precision.group(2)]
    a, b = row[0], row[-1]
    swapped = (
        html[: a.start()] + b.group(0) + html[a.end() : b.start()] + a.group(0) + html[b.end() :]
    )
    opened = _open_edited(open_html, html, swapped, "cols.html")
    assert "under " in _problems(opened)
    # the same rate of two groups swapped: the row check fails
    a = precision
    b = next(m for m in cells if m.group(3) == "precision" and m.group(2) != a.group(2))
    swapped = (
        html[: a.start()] + b.group(0) + html[a.end() : b.start()] + a.group(0) + html[b.end() :]
    )
    opened = _open_edited(open_html, html, swapped, "rows.html")
    assert "in the row of" in _problems(opened)


def test_a_dropped_row_or_table_fails(loan_record: Any, open_html: Any) -> None:
    html = render_report(loan_record.envelope, loan_record.public_key_raw)
    rows = list(re.finditer(r"<tr><td data-bind=\"/predicate/counts/[^\"]*/key\".*?</tr>", html))
    assert rows
    dropped = html[: rows[0].start()] + html[rows[0].end() :]
    opened = _open_edited(open_html, html, dropped, "row.html")
    assert "lists the groups" in _problems(opened)
    tables = list(re.finditer(r"<h3><span data-bind=\"/predicate/counts/.*?</table>", html))
    dropped = html[: tables[-1].start()] + html[tables[-1].end() :]
    opened = _open_edited(open_html, html, dropped, "table.html")
    assert "per-group table(s) of" in _problems(opened)


def test_python_and_the_script_compute_the_same_wilson_doubles(
    loan_record: Any, open_html: Any
) -> None:
    opened = open_html(render_report(loan_record.envelope, loan_record.public_key_raw))
    opened.settled()
    rng = random.Random(5)
    pairs: list[tuple[int, int]] = [(0, 1), (1, 1), (0, 2), (1, 2), (2, 2), (5, 10)]
    for _ in range(3000):
        n = rng.choice([1, 2, 3, 7, 50, 999, 10**6, 10**9, 10**12, 2**52])
        n = rng.randrange(1, n + 1)
        pairs.append((rng.choice([0, n, rng.randrange(n + 1)]), n))
    got = opened.page.evaluate("ps => ps.map(([k, n]) => RespaiBind.wilson(k, n))", pairs)
    want = []
    for k, n in pairs:
        iv = wilson_interval(k, n)
        assert iv is not None
        want.append([iv.lo, iv.hi])
    assert got == want


@pytest.mark.parametrize("key", list(METRICS))
def test_the_scripts_rates_are_the_registrys(key: str) -> None:
    """The script's table names the same numerator and denominator as the registry."""
    from respai.counts import Cell

    (entry,) = [r for r in script_table()["rates"] if r[0] == key]
    cell = Cell(tp=3, fp=5, tn=7, fn=11, missing_pos=13, missing_neg=17)
    record = cell.to_dict()
    num = sum(w * record[k] for k, w in entry[2].items())
    den = sum(w * record[k] for k, w in entry[3].items())
    assert (num, den) == METRICS[key].fraction(cell)
    assert entry[1] == METRICS[key].short and entry[4] == METRICS[key].over
