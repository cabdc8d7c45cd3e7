"""The evidence report: one self-contained HTML file that checks its own signature and text.

:func:`render_report` turns a signed record (the DSSE envelope of ``record.json``) into a
single HTML page: the verdict first, a table of the tests, then one section per test with
its per-group chart (inline SVG), the fingerprints and run identity, the hash chain, the
control mapping, the claims and the caveats. The page embeds the envelope and the raw
Ed25519 public key as JSON and, on load, re-checks in the browser (WebCrypto) the
signature, the canonical payload, every record id and the chain, then its own text
(``page_text``): every text taken from the record is written through
:class:`~respai.render.report.bind.At`, in an element naming its JSON Pointer in the
signed Statement and its format, and the script recomputes each from the signed payload;
any other text must be one of the fixed labels. It then sets
``<html data-verified="true|false|unsupported" data-failed="...">`` and shows the full id
of the key it checked the signature with.

The script also checks the whole document outside ``<main>`` against the shell the
renderer writes (:mod:`~respai.render.report.shell`): the elements of ``<head>`` and
``<body>``, the CSP, the title, the style sheet by its hash, no element, text or comment
of its own, no id used twice. The SHA-256 of the script, which carries the style sheet's
hash, is the page code (:func:`page_code_id`) a person compares.

The page loads nothing: CSS and JS are inline (allowed by a Content-Security-Policy that
names their SHA-256 hashes and nothing else), charts are inline SVG. Every string taken
from the record is HTML-escaped by :func:`respai.render.escape.html_text`, with its
control and bidi characters shown escaped; the embedded JSON escapes ``<``, ``>``, ``&``
and the line separators, so it cannot close its ``<script>`` element.

The modules, in page order: :mod:`~respai.render.report.document` (the document: head,
CSP, inline assets, embedded JSON), :mod:`~respai.render.report.page` (the body, section
by section), :mod:`~respai.render.report.header` and
:mod:`~respai.render.report.verdict_words` (the system and the verdict banner),
:mod:`~respai.render.report.shell` (everything outside ``<main>``, as the script checks it),
:mod:`~respai.render.report.verification` (the box the script fills),
:mod:`~respai.render.report.results` and :mod:`~respai.render.report.details` (the tests
table and one section per test), :mod:`~respai.render.report.chart` and
:mod:`~respai.render.report.group_charts` (the SVG charts),
:mod:`~respai.render.report.provenance` (fingerprints and the hash chain),
:mod:`~respai.render.report.controls` and :mod:`~respai.render.report.claims`; under
them :mod:`~respai.render.report.bind` (a value and its path, written bound),
:mod:`~respai.render.report.formats` (the named formats, which ``report_assets/bind.js``
implements again), :mod:`~respai.render.report.labels` (the fixed labels),
:mod:`~respai.render.report.script_tables` (what the script needs from Python, written into
it), :mod:`~respai.render.report.walk` (the page's text as the script checks it, for
tests), :mod:`~respai.render.report.fields` (tolerant reads of the record) and
:mod:`~respai.render.report.markup` (definition lists).
"""

from __future__ import annotations

from respai.render.report.document import (
    page_code_id,
    render_report,
    render_report_bytes,
    render_report_file,
)

__all__ = ["page_code_id", "render_report", "render_report_bytes", "render_report_file"]
