"""The ranking section of a record's report: per rule, its groups' values and intervals.

For each ``ranking_rule`` test record: the rule's key, verdict, reason and guarantee, then a
table of its groups (the group, its items, the lists it appears in, its value and
interval). Every text is bound to the record (:mod:`respai.render.report.bind`); the
headings are fixed labels the report already has.
"""

from __future__ import annotations

from collections.abc import Sequence

from respai.render.escape import html_text
from respai.render.report.bind import At, pointer

__all__ = ["ranking_section"]


def _rule(rec: At) -> str:
    details = rec["details"]
    rows = []
    for g in details["groups"].elements():
        iv = g["interval"]
        rows.append(
            "<tr>"
            f"<td>{g['group'].show()}</td>"
            f"<td>{g['items'].show('count')}</td>"
            f"<td>{g['value'].show('number')}</td>"
            f"<td>({iv['lo'].show('number')}, {iv['hi'].show('number')})</td>"
            "</tr>"
        )
    return (
        f'<div class="ranking-rule" data-record="{html_text(pointer(rec.path))}">'
        f"<h3>{rec['test_key'].show()}</h3>"
        f"<p>{rec['verdict'].show('verdict')}</p>"
        f"<p>{rec['reason'].show()}</p>"
        f"<p>{details['guarantee'].show()}</p>"
        "<table><thead><tr><th>Group</th><th>Cases</th><th>Value</th><th>Interval</th>"
        f"</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
    )


def ranking_section(predicate: At, tests: Sequence[At]) -> str:
    """The section: one block per ``ranking_rule`` test record, in record order."""
    return (
        '<section class="ranking">'
        f"<h2>{tests[0]['test_id'].show('test_name')}</h2>"
        f"{''.join(_rule(t) for t in tests)}</section>"
    )
