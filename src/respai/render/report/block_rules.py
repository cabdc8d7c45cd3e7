"""The report section of a block whose test records are rules over groups' values.

The ``regression:`` and ``ranking:`` sections (:mod:`respai.render.report.regression`,
:mod:`respai.render.report.ranking`) show each rule the same way: its key, verdict,
reason and guarantee, then one row per group (the group, its cases, its value and
interval). Each block says only which fields of a group record those are. Every text is
bound to the record (:mod:`respai.render.report.bind`); the headings are fixed labels.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from respai.render.escape import html_text
from respai.render.report.bind import At

__all__ = ["GroupFields", "rules_section"]

#: A group record's ``(cases, value, interval)``, given the rule's details and the group.
GroupFields = Callable[[At, At], tuple[At, At, At]]


def _rule(rec: At, kind: str, fields: GroupFields) -> str:
    details = rec["details"]
    rows = []
    for g in details["groups"].elements():
        cases, value, iv = fields(details, g)
        rows.append(
            "<tr>"
            f"<td>{g['group'].show()}</td>"
            f"<td>{cases.show('count')}</td>"
            f"<td>{value.show('number')}</td>"
            f"<td>({iv['lo'].show('number')}, {iv['hi'].show('number')})</td>"
            "</tr>"
        )
    return (
        f'<div class="{kind}-rule" data-record="{html_text(rec.json_pointer)}">'
        f"<h3>{rec['test_key'].show()}</h3>"
        f"<p>{rec['verdict'].show('verdict')}</p>"
        f"<p>{rec['reason'].show()}</p>"
        f"<p>{details['guarantee'].show()}</p>"
        "<table><thead><tr><th>Group</th><th>Cases</th><th>Value</th><th>Interval</th>"
        f"</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
    )


def rules_section(kind: str, tests: Sequence[At], fields: GroupFields) -> str:
    """A block's section: one part per rule's test record, in record order.

    ``kind`` is the block's name (the section's and each rule's class); ``fields`` picks
    a group's cases, value and interval.
    """
    return (
        f'<section class="{kind}">'
        f"<h2>{tests[0]['test_id'].show('test_name')}</h2>"
        f"{''.join(_rule(t, kind, fields) for t in tests)}</section>"
    )
