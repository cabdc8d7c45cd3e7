"""The report as one HTML document: head, CSP, inline assets and the embedded record."""

from __future__ import annotations

import base64
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from respai.battery import TEST_NAMES
from respai.io import read_bounded
from respai.record.canonical import MAX_JSON_BYTES, loads_strict
from respai.record.dsse import b64decode_any
from respai.record.errors import RecordError
from respai.record.keys import load_public_key, public_key_raw
from respai.render.escape import html_text, terminal_text
from respai.render.inline import asset_text, csp_hash, embed_json
from respai.render.report.fields import as_dict, as_str
from respai.render.report.page import page_body
from respai.render.report.tables import script_tables
from respai.render.report.verification import verification_box

__all__ = ["render_report", "render_report_file"]


def render_report(
    envelope: Mapping[str, Any],
    public_key_raw: bytes | None,
    *,
    title: str | None = None,
) -> str:
    """Return the evidence report for a signed record as one self-contained HTML page.

    Parameters
    ----------
    envelope
        The DSSE envelope (the parsed ``record.json``).
    public_key_raw
        The raw 32-byte Ed25519 public key the page checks the signature with, or
        ``None``: the page then shows the record but reports the signature as not
        checked (``data-verified="false"``, ``data-failed`` naming ``signature``). Only
        the key is embedded; the page computes and shows its full id.
    title
        The document title; by default ``"<system> <version> · respai evidence report"``.

    Returns
    -------
    str
        The HTML text. It makes no network request; the verification runs on load.
    """
    try:  # the payload is parsed once, for the body and the title
        statement: Any = loads_strict(b64decode_any(envelope.get("payload")))
    except (RecordError, AttributeError):
        statement = None
    try:
        body = page_body(envelope, public_key_raw is not None, statement)
    except Exception as exc:  # a hostile record must still give a page that verifies
        body = (
            '<header class="doc-head"><div><div class="eyebrow">respai evidence report</div>'
            "<h1>The record cannot be displayed</h1></div></header>"
            f"<p>{html_text(type(exc).__name__)}: {html_text(exc)}</p>"
            + verification_box(public_key_raw is not None)
        )
    if title is None:
        predicate = as_dict(as_dict(statement).get("predicate"))
        system = as_dict(predicate.get("system"))
        name = f"{as_str(system.get('name'), 'record')} {as_str(system.get('version'))}".strip()
        title = f"{name} · respai evidence report"
    del statement  # a record of many groups: its parsed form is not kept while the page is joined
    # the raw key only: the script computes its id, and no id written here is trusted
    key_json: dict[str, str] | None = None
    if public_key_raw is not None:
        key_json = {"raw_b64": base64.b64encode(public_key_raw).decode("ascii")}
    css = asset_text("report_assets", "report.css")
    script = "\n".join(
        [
            script_tables(),
            asset_text("report_assets", "core.js"),
            asset_text("report_assets", "bind.js"),
            asset_text("report_assets", "report.js"),
        ]
    )
    csp = (
        f"default-src 'none'; script-src {csp_hash(script)}; style-src {csp_hash(css)}; "
        "img-src data:; base-uri 'none'; form-action 'none'"
    )
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en" data-verified="pending" data-failed="">\n<head>\n'
        '<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{html_text(csp)}">\n'
        '<meta name="referrer" content="no-referrer">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="generator" content="respai">\n'
        f"<title>{html_text(terminal_text(title))}</title>\n"  # a tab title: no bidi
        f"<style>{css}</style>\n</head>\n<body>\n<main>\n{body}\n</main>\n"
        '<script type="application/json" id="respai-envelope">'
        f"{embed_json(dict(envelope))}</script>\n"
        '<script type="application/json" id="respai-public-key">'
        f"{embed_json(key_json)}</script>\n"
        '<script type="application/json" id="respai-test-names">'
        f"{embed_json(dict(TEST_NAMES))}</script>\n"
        f"<script>{script}</script>\n</body>\n</html>\n"
    )


def render_report_file(
    record: str | Path,
    public_key: str | Path | None = None,
    *,
    title: str | None = None,
) -> str:
    """Read ``record.json`` (and its public key) and return :func:`render_report`'s page.

    Parameters
    ----------
    record
        The signed record, a DSSE envelope in JSON.
    public_key
        The signer's SPKI PEM public key. By default ``public_key.pem`` beside the
        record, when there is one; otherwise the page cannot check the signature.
    title
        Passed to :func:`render_report`.

    Raises
    ------
    respai.record.RecordError
        If the record is not a JSON object.
    respai.record.KeyMaterialError
        If the public key file cannot be read or is not Ed25519.
    """
    path = Path(record)
    try:
        envelope = loads_strict(read_bounded(path, MAX_JSON_BYTES, "MAX_JSON_BYTES"))
    except OSError as exc:
        raise RecordError(f"Cannot read the record {path}: {exc.strerror or exc}.") from None
    if not isinstance(envelope, dict):
        raise RecordError(f"{path} is not a JSON object (a DSSE envelope).")
    key_path = Path(public_key) if public_key is not None else path.parent / "public_key.pem"
    raw = None
    if public_key is not None or key_path.is_file():
        raw = public_key_raw(load_public_key(key_path))
    return render_report(envelope, raw, title=title)
