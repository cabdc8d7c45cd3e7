"""The evidence report: one self-contained HTML file that checks its own signature.

:func:`render_report` turns a signed record (the DSSE envelope of ``record.json``) into a
single HTML page: the verdict first, a table of the tests, then one section per test with
its per-group chart (inline SVG), the fingerprints and run identity, the hash chain, the
control mapping, the claims and the caveats. The page embeds the envelope, the raw
Ed25519 public key and the display name of every test id (from the battery's registry)
as JSON and, on load, re-checks in the browser (WebCrypto) the
signature, the canonical payload, every record id and the chain, then sets
``<html data-verified="true|false|unsupported" data-failed="...">``.

The page loads nothing: CSS and JS are inline (allowed by a Content-Security-Policy that
names their SHA-256 hashes and nothing else), charts are inline SVG. Every string taken
from the record is HTML-escaped by :func:`respai.render.escape.html_text`; the embedded
JSON escapes ``<``, ``>``, ``&`` and the line separators, so it cannot close its
``<script>`` element.

The modules, in page order: :mod:`~respai.render.report.document` (the document: head,
CSP, inline assets, embedded JSON), :mod:`~respai.render.report.page` (the body, section
by section), :mod:`~respai.render.report.header` and
:mod:`~respai.render.report.verdicts` (the system and the verdict banner),
:mod:`~respai.render.report.verification` (the box the script fills),
:mod:`~respai.render.report.results` and :mod:`~respai.render.report.details` (the tests
table and one section per test), :mod:`~respai.render.report.chart` and
:mod:`~respai.render.report.group_charts` (the SVG charts),
:mod:`~respai.render.report.provenance` (fingerprints and the hash chain),
:mod:`~respai.render.report.controls` and :mod:`~respai.render.report.claims`; under
them :mod:`~respai.render.report.fields` (tolerant reads of the record),
:mod:`~respai.render.report.values` (number and interval text) and
:mod:`~respai.render.report.markup` (definition lists).
"""

from __future__ import annotations

from respai.render.report.document import render_report, render_report_file

__all__ = ["render_report", "render_report_file"]
