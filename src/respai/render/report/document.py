"""The report as one HTML document: head, CSP, inline assets and the embedded record.

The shell around ``<main>`` is written from the lists in
:mod:`~respai.render.report.shell`, which the page's script checks element by element.
"""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

from respai.blocks import test_names
from respai.heap import TRIM_MIN_BYTES, trim_heap
from respai.io import read_bounded
from respai.record.canonical import MAX_JSON_BYTES, loads_strict
from respai.record.dsse import b64decode_any
from respai.record.errors import RecordError
from respai.record.keys import load_public_key, public_key_raw
from respai.render.escape import html_text
from respai.render.inline import asset_text, csp_hash, embed_json
from respai.render.report.page import page_body
from respai.render.report.script_tables import script_tables
from respai.render.report.shell import (
    BODY,
    HEAD,
    HTML_ATTRIBUTES,
    content_security_policy,
    page_style,
    page_title,
    start_tag,
)
from respai.render.report.verification import verification_box

#: A compact grouping's calibration bins as canonical JSON writes them: an array of
#: arrays of integers (each checked by :func:`_unshown_bins` before it is cut).
_COMPACT_BINS = re.compile(rb'"calibration_bins":\{"bins":\[\[[0-9,]*\](?:,\[[0-9,]*\])*\]')
_BINS_HEAD = b'"calibration_bins":{"bins":'
#: Every digit as ``d`` (a run of 16 is an integer the strict reader refuses), and the
#: digits 1-9 as ``d`` with 0 kept (a ``0`` after ``[`` or ``,`` and before a digit is a
#: leading zero): two byte maps, so the checks are searches for fixed bytes.
_ALL_DIGITS = bytes.maketrans(b"0123456789", b"dddddddddd")
_NONZERO_DIGITS = bytes.maketrans(b"123456789", b"ddddddddd")
_NOT_CANONICAL = (b",,", b"[,", b",]", b"[],")
_LEADING_ZERO = (b"[0d", b"[00", b",0d", b",00")

__all__ = [
    "page_code_id",
    "page_script",
    "render_report",
    "render_report_bytes",
    "render_report_file",
]


@cache
def page_script() -> str:
    """The page's one script: the tables from Python, then the three script assets."""
    return "\n".join(
        [
            script_tables(),
            asset_text("report_assets", "core.js"),
            asset_text("report_assets", "bind.js"),
            asset_text("report_assets", "report.js"),
        ]
    )


def page_code_id() -> str:
    """The page code: ``sha256:<hex>`` of the report's script, the same in every report.

    The script carries the style sheet's hash and the page's shell
    (:mod:`~respai.render.report.shell`), so this one value fixes how every page of this
    respai version shows a record. A page shows it under its verification box, and its
    CSP's ``script-src`` names the same digest in base64.

    Examples
    --------
    >>> page_code_id().startswith("sha256:") and len(page_code_id()) == 71
    True
    """
    return "sha256:" + hashlib.sha256(page_script().encode("utf-8")).hexdigest()


def render_report(
    envelope: Mapping[str, Any],
    public_key_raw: bytes | None,
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

    Returns
    -------
    str
        The HTML text. It makes no network request; the verification runs on load.
        The title is derived from the record (:func:`~respai.render.report.shell.page_title`)
        and checked by the page like every other text.
    """
    return "".join(_page_parts(envelope, public_key_raw))


def render_report_bytes(envelope: Mapping[str, Any], public_key_raw: bytes | None) -> bytes:
    """:func:`render_report` encoded as UTF-8, as the file is written.

    The same bytes as ``render_report(...).encode()``, made part by part: the page is
    never held as one text beside its bytes, which for a record of many groups saves a
    copy of tens of MB (two bytes a character once the page holds one past Latin-1).
    """
    parts: list[Any] = _page_parts(envelope, public_key_raw)
    for i, part in enumerate(parts):
        parts[i] = part.encode("utf-8")  # each text goes as soon as its bytes are made
    return b"".join(parts)


def _page_parts(envelope: Mapping[str, Any], public_key_raw: bytes | None) -> list[str]:
    """The page's text in parts whose concatenation is the page."""
    payload = envelope.get("payload")
    if isinstance(payload, str) and len(payload) >= TRIM_MIN_BYTES:
        trim_heap()  # a large record: what the run freed goes back before its parsed copy
    try:  # the payload is parsed once, for the body and the title
        statement: Any = loads_strict(_unshown_bins(b64decode_any(payload)))
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
    title = page_title(statement)
    del statement  # a record of many groups: its parsed form is not kept while the page is joined
    # the raw key only: the script computes its id, and no id written here is trusted
    key_json: dict[str, str] | None = None
    if public_key_raw is not None:
        key_json = {"raw_b64": base64.b64encode(public_key_raw).decode("ascii")}
    script = page_script()
    csp = content_security_policy(csp_hash(script))
    contents = {"title": f"{html_text(title)}</title>", "style": f"{page_style()}</style>"}
    head = "\n".join(start_tag(tag, attrs, csp) + contents.get(tag, "") for tag, attrs in HEAD)
    main, *embedded_tags, script_tag = BODY
    embedded = (embed_json(dict(envelope)), embed_json(key_json), embed_json(test_names()))
    # the parts are joined once by the caller: the embedded record can be tens of MB,
    # and the page becomes a string of two bytes a character once the body holds one past
    # Latin-1, so each intermediate concatenation would copy it again
    parts = [
        "<!DOCTYPE html>\n",
        f"{start_tag('html', HTML_ATTRIBUTES)}\n<head>\n{head}\n</head>\n<body>\n",
        f"{start_tag(*main)}\n{body}\n</main>\n",
    ]
    for tag, data in zip(embedded_tags, embedded, strict=True):
        parts += [start_tag(*tag), data, "</script>\n"]
    parts.append(f"{start_tag(*script_tag)}{script}</script>\n</body>\n</html>\n")
    return parts


def _unshown_bins(raw: bytes) -> bytes:
    """The payload text with each compact grouping's calibration bins left empty.

    The page shows no calibration bin (its script reads them from the embedded record,
    which is untouched), and at 100,000 groups of ten bins they are 40% of the payload
    and most of its parsed size, a million integers. A span is cut only when it is what
    canonical JSON writes (arrays of integers, no empty member, no leading zero, under
    16 digits); anything else is parsed as it stands, so the strict reader judges it.
    """
    if _BINS_HEAD + b"[[" not in raw:
        return raw

    def cut(match: re.Match[bytes]) -> bytes:
        span = match.group()[len(_BINS_HEAD) :]
        if any(bad in span for bad in _NOT_CANONICAL) or b"d" * 16 in span.translate(_ALL_DIGITS):
            return match.group()
        zeros = span.translate(_NONZERO_DIGITS)
        if any(bad in zeros for bad in _LEADING_ZERO):
            return match.group()
        return _BINS_HEAD + b"[]"

    return _COMPACT_BINS.sub(cut, raw)


def render_report_file(
    record: str | Path,
    public_key: str | Path | None = None,
) -> str:
    """Read ``record.json`` (and its public key) and return :func:`render_report`'s page.

    Parameters
    ----------
    record
        The signed record, a DSSE envelope in JSON.
    public_key
        The signer's SPKI PEM public key. By default ``public_key.pem`` beside the
        record, when there is one; otherwise the page cannot check the signature.

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
    return render_report(envelope, raw)
