"""The control mapping as the report shows it: per test, the clauses it supports."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from respai.battery import TEST_NAMES
from respai.render.escape import html_text
from respai.render.report.fields import as_dict, as_list, as_str
from respai.render.report.markup import definition_list

__all__ = ["FRAMEWORK_NAMES", "controls_section", "framework_name", "supports_line"]


FRAMEWORK_NAMES = {
    "iso42001": "ISO/IEC 42001",
    "eu_ai_act": "EU AI Act",
    "nist_ai_rmf": "NIST AI RMF",
    "nyc_dcwp": "NYC DCWP (LL144)",
    "eeoc_ugesp": "EEOC UGESP",
    "colorado": "Colorado SB 24-205",
}


def framework_name(value: object) -> str:
    """The short display name of a framework id (``eu_ai_act`` as ``EU AI Act``)."""
    name = as_str(value, "?")
    return FRAMEWORK_NAMES.get(name, name)


def supports_line(rec: Mapping[str, Any]) -> str:
    """The line under a test that lists the clauses it supports, by framework."""
    clauses = [as_dict(c) for c in as_list(rec.get("supports"))]
    if not clauses:
        return ""
    by_framework: dict[str, list[str]] = {}
    for c in clauses:
        framework = as_str(c.get("framework"), "?")
        by_framework.setdefault(framework, []).append(as_str(c.get("clause"), "?"))
    items = " · ".join(
        f"<b>{html_text(FRAMEWORK_NAMES.get(k, k))}</b> {html_text(', '.join(v))}"
        for k, v in by_framework.items()
    )
    return (
        f'<p class="supports">Supports {len(clauses)} clause(s): {items}. '
        '<a href="#controls">What “supports” means.</a></p>'
    )


def controls_section(predicate: Mapping[str, Any], tests: Sequence[Mapping[str, Any]]) -> str:
    """The control-mapping section: what "supports" means, the mapping, per test its clauses.

    Parameters
    ----------
    predicate
        The record's predicate; its ``control_mapping`` gives the version, review status,
        relation and frameworks.
    tests
        The test records; tests with the same id share one table of clauses.

    Returns
    -------
    str
        The section's HTML (without its heading).
    """
    mapping = as_dict(predicate.get("control_mapping"))
    frameworks = as_dict(mapping.get("frameworks"))
    relation = as_str(mapping.get("relation"), "supports")
    intro = (
        f'<div class="callout">Each test <b>{html_text(relation)}</b> the clauses listed with it: '
        "the clause calls for the kind of measurement the test makes. Whether an obligation "
        "is met depends on evidence beyond any one test, on context and on judgment that "
        "belongs to the organisation, its auditor or, where one is required, a notified "
        "body.</div>"
    )
    facts = definition_list(
        [
            ("Mapping version", html_text(as_str(mapping.get("version"), "—"))),
            ("Review status", html_text(as_str(mapping.get("review_status"), "—"))),
            ("Relation", html_text(relation)),
            (
                "Frameworks",
                "<br>".join(
                    f"{html_text(FRAMEWORK_NAMES.get(str(k), str(k)))}: {html_text(v)}"
                    for k, v in frameworks.items()
                )
                or "—",
            ),
        ]
    )
    by_test: dict[str, list[Mapping[str, Any]]] = {}
    keys: dict[str, list[str]] = {}
    for rec in tests:
        test_id = as_str(rec.get("test_id"), "?")
        keys.setdefault(test_id, []).append(as_str(rec.get("test_key")))
        by_test.setdefault(test_id, [as_dict(c) for c in as_list(rec.get("supports"))])
    blocks = []
    for test_id, clauses in by_test.items():
        if not clauses:
            continue
        body = "".join(
            "<tr>"
            f"<td>{html_text(framework_name(c.get('framework')))}</td>"
            f"<td>{html_text(as_str(c.get('clause')))}</td>"
            f"<td>{html_text(as_str(c.get('title')))}"
            f'<div class="muted small">{html_text(as_str(c.get("note")))}</div></td></tr>'
            for c in clauses
        )
        records = ", ".join(keys[test_id])
        blocks.append(
            f'<h4>{html_text(TEST_NAMES.get(test_id, test_id))} <span class="muted small">'
            f"({html_text(records)}) {html_text(relation)}:</span></h4>"
            '<table class="small clauses"><colgroup><col class="fw"><col class="cl"><col>'
            "</colgroup><thead><tr><th>Framework</th><th>Clause</th>"
            f"<th>Title and note</th></tr></thead><tbody>{body}</tbody></table>"
        )
    return intro + facts + "".join(blocks)
