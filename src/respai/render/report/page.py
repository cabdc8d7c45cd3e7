"""The body of the report: every section in order, or a page that says why there is none."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from respai.record.canonical import loads_strict
from respai.record.dsse import b64decode_any
from respai.record.errors import RecordError
from respai.render.escape import html_text
from respai.render.report.bind import At
from respai.render.report.claims import claims_section
from respai.render.report.controls import controls_section
from respai.render.report.findings import findings_section
from respai.render.report.group_table import group_tables
from respai.render.report.header import page_header
from respai.render.report.provenance import chain_section, fingerprints_section
from respai.render.report.results import result_section, results_table, tamper_index, tests_of
from respai.render.report.verification import verification_box

__all__ = ["kind_sections", "page_body"]


def kind_sections(predicate: At, tests: list[At]) -> str:
    """Each record kind's own section (:meth:`respai.blocks.RecordKind.report_section`).

    In :func:`respai.blocks.record_kinds` order, each given its own test records; a kind
    with none of them in the record adds nothing.
    """
    from respai.blocks import owner_of_test, record_kinds

    out = []
    for kind in record_kinds():
        own = [t for t in tests if owner_of_test(t.get("test_id")) is kind]
        if own:
            out.append(kind.report_section(predicate, own))
    return "".join(out)


def page_body(envelope: Mapping[str, Any], has_key: bool, statement: Any = None) -> str:
    """The body of the report: the header, the verification box, then every section.

    Parameters
    ----------
    envelope
        The DSSE envelope; its payload is decoded here (not verified: the page's script
        does that).
    has_key
        Whether a public key is embedded, for the verification box's note.
    statement
        The payload already decoded and parsed by the caller (the same bytes), or
        ``None`` to decode it here.

    Returns
    -------
    str
        The HTML inside ``<main>``; a payload that cannot be decoded gives a page that
        says so, with the verification box.
    """
    try:
        statement_any = (
            loads_strict(b64decode_any(envelope.get("payload")))
            if statement is None
            else statement
        )
    except RecordError as exc:
        return (
            '<header class="doc-head"><div><div class="eyebrow">respai evidence report</div>'
            "<h1>The record cannot be read</h1></div></header>"
            f"<p>{html_text(exc.message)}</p>" + verification_box(has_key)
        )
    statement = At(statement_any)
    predicate = statement["predicate"]
    tests = tests_of(predicate)
    tamper = tamper_index(tests)
    sections = "".join(
        result_section(i + 1, rec, i == tamper, predicate["records"])
        for i, rec in enumerate(tests)
    )
    return (
        page_header(predicate)
        + verification_box(has_key)
        + kind_sections(predicate, tests)
        + findings_section(tests)
        + '<h2 class="first" id="tests">Tests</h2>'
        '<p class="small muted">Values are estimates from the evaluation data; intervals '
        "are 95% unless stated. A verdict marked uncertain is one whose interval crosses "
        "its threshold.</p>"
        + results_table(tests, tamper)
        + group_tables(tests)
        + '<h2 id="details">Test details and per-group charts</h2>'
        + sections
        + '<h2 id="fingerprints">Fingerprints and run identity</h2>'
        '<p class="small">The record holds SHA-256 fingerprints of what was tested, never '
        "the rows themselves.</p>"
        + fingerprints_section(predicate, statement)
        + '<h2 id="chain">Hash chain</h2>'
        + chain_section(predicate)
        + '<h2 id="controls">Control mapping</h2>'
        + controls_section(predicate, tests)
        + '<h2 id="claims">What this record states, and what it does not</h2>'
        + claims_section(predicate)
        + "<footer>This page embeds the signed record (record.json) and re-checks it in "
        "your browser. To check it independently: "
        "<code>respai verify record.json --key public_key.pem</code>, or recompute the "
        "signature, record ids and chain as described in the record format. A printed copy "
        "is a copy: only the signed record can be verified.</footer>"
    )
