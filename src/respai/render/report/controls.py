"""The control mapping as the report shows it: per test, the clauses it supports."""

from __future__ import annotations

from collections.abc import Sequence

from respai.render.report.bind import At
from respai.render.report.formats import FRAMEWORK_NAMES
from respai.render.report.markup import definition_list

__all__ = ["FRAMEWORK_NAMES", "controls_section", "supports_line"]


def supports_line(rec: At) -> str:
    """The line under a test that lists the clauses it supports, by framework."""
    clauses = rec["supports"].elements()
    if not clauses:
        return ""
    by_framework: dict[object, list[At]] = {}
    for c in clauses:
        framework = c.get("framework")
        key = framework if isinstance(framework, str) else None
        by_framework.setdefault(key, []).append(c)
    items = " · ".join(
        f"{group[0]['framework'].show('framework', tag='b')} "
        + ", ".join(c["clause"].show("textq") for c in group)
        for group in by_framework.values()
    )
    return (
        f'<p class="supports">Supports {rec["supports"].show("length")} clause(s): {items}. '
        '<a href="#controls">What “supports” means.</a></p>'
    )


def controls_section(predicate: At, tests: Sequence[At]) -> str:
    """The control-mapping section: what "supports" means, the mapping, per test its clauses.

    Parameters
    ----------
    predicate
        The record's predicate; its ``control_mapping`` gives the version, review status,
        relation and frameworks.
    tests
        The test records; tests with the same id share one table of clauses (the first
        one's).

    Returns
    -------
    str
        The section's HTML (without its heading).
    """
    mapping = predicate["control_mapping"]
    relation = mapping["relation"]
    intro = (
        f'<div class="callout">Each test <b>{relation.show()}</b> the clauses listed with it: '
        "the clause calls for the kind of measurement the test makes. Whether an obligation "
        "is met depends on evidence beyond any one test, on context and on judgment that "
        "belongs to the organisation, its auditor or, where one is required, a notified "
        "body.</div>"
    )
    frameworks = "<br>".join(
        f"{v.show_key('framework')}: {v.show()}" for _, v in mapping["frameworks"].items()
    )
    facts = definition_list(
        [
            ("Mapping version", mapping["version"].show()),
            ("Review status", mapping["review_status"].show()),
            ("Relation", relation.show()),
            ("Frameworks", frameworks or "—"),
        ]
    )
    by_test: dict[object, list[At]] = {}
    for rec in tests:
        test_id = rec.get("test_id")
        by_test.setdefault(test_id if isinstance(test_id, str) else None, []).append(rec)
    blocks = []
    for group in by_test.values():
        first = group[0]
        clauses = first["supports"].elements()
        if not clauses:
            continue
        body = "".join(
            "<tr>"
            f"{c['framework'].show('framework', tag='td')}"
            f"{c['clause'].show('text0', tag='td')}"
            f"<td>{c['title'].show('text0')}"
            f"{c['note'].show('text0', tag='div', cls='muted small')}</td></tr>"
            for c in clauses
        )
        records = ", ".join(r["test_key"].show("text0") for r in group)
        blocks.append(
            f'<h4>{first["test_id"].show("test_name")} <span class="muted small">'
            f"({records}) {relation.show()}:</span></h4>"
            '<table class="small clauses"><colgroup><col class="fw"><col class="cl"><col>'
            "</colgroup><thead><tr><th>Framework</th><th>Clause</th>"
            f"<th>Title and note</th></tr></thead><tbody>{body}</tbody></table>"
        )
    return intro + facts + "".join(blocks)
