"""The regression section of a record's report: per rule, its groups' values and intervals.

For each ``regression_rule`` test record: the rule's name, verdict and reason, then a table
of its groups (the group, its cases with a prediction, the rule's metric and its interval).
Every text is bound to the record (:mod:`respai.render.report.bind`); the headings are
fixed labels the report already has.
"""

from __future__ import annotations

from collections.abc import Sequence

from respai.render.escape import html_text
from respai.render.report.bind import At, pointer

__all__ = ["regression_section"]


def _rule(rec: At) -> str:
    details = rec["details"]
    metric = details.get("metric")
    rows = []
    for g in details["groups"].elements():
        value = g[metric] if isinstance(metric, str) else g["_"]
        iv = g[f"{metric}_interval"] if isinstance(metric, str) else g["_"]
        rows.append(
            "<tr>"
            f"<td>{g['group'].show()}</td>"
            f"<td>{g['n'].show('count')}</td>"
            f"<td>{value.show('number')}</td>"
            f"<td>({iv['lo'].show('number')}, {iv['hi'].show('number')})</td>"
            "</tr>"
        )
    return (
        f'<div class="regression-rule" data-record="{html_text(pointer(rec.path))}">'
        f"<h3>{rec['test_key'].show()}</h3>"
        f"<p>{rec['verdict'].show('verdict')}</p>"
        f"<p>{rec['reason'].show()}</p>"
        f"<p>{details['guarantee'].show()}</p>"
        "<table><thead><tr><th>Group</th><th>Cases</th><th>Value</th><th>Interval</th>"
        f"</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
    )


def regression_section(predicate: At, tests: Sequence[At]) -> str:
    """The section: one block per ``regression_rule`` test record, in record order."""
    return (
        '<section class="regression">'
        f"<h2>{tests[0]['test_id'].show('test_name')}</h2>"
        f"{''.join(_rule(t) for t in tests)}</section>"
    )
