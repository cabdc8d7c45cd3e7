"""Whether an HTML page is, byte for byte, the report respai renders for the record it embeds.

The page's own check runs in the browser and can only look at the page as the browser
built it: a script placed before the page's Content-Security-Policy, or anything else
the page does before its check runs, is out of its sight. ``respai verify report.html``
checks the file instead: it reads the signed record and the public key the page embeds,
verifies the record with the keys the user trusts, renders the report of that record
again, and requires the file to be exactly that rendering. A page that passes holds
nothing respai did not write for that record; one written by another respai version
(another page code) is named as such.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Mapping
from typing import Any

from respai.record.canonical import loads_strict
from respai.record.errors import RecordError

__all__ = ["embedded", "envelope_bytes_of", "is_page", "page_difference"]

#: How every report starts; a file that starts so is read as a page, not as a record.
PAGE_START = b"<!DOCTYPE html>\n"

_EMBEDDED = re.compile(
    r'\n</main>\n<script type="application/json" id="respai-envelope">([^<]*)</script>\n'
    r'<script type="application/json" id="respai-public-key">([^<]*)</script>\n'
)
_SCRIPT_HASH = re.compile(r"script-src &#x27;sha256-([A-Za-z0-9+/=]+)&#x27;")


def is_page(data: bytes) -> bool:
    r"""Whether ``data`` is an HTML report (it starts as every report does).

    Examples
    --------
    >>> is_page(b"<!DOCTYPE html>\n<html>"), is_page(b'{"payload": ""}')
    (True, False)
    """
    return data.startswith(PAGE_START)


def embedded(text: str) -> tuple[dict[str, Any], bytes | None]:
    """The DSSE envelope and the raw public key a report embeds.

    Raises
    ------
    RecordError
        When the page does not hold them where a report does, or they are not JSON of
        the right shape.
    """
    found = _EMBEDDED.search(text)
    if found is None:
        raise RecordError(
            "the page does not embed a signed record where a respai report does "
            '(after </main>, in <script id="respai-envelope">)'
        )
    envelope = loads_strict(found.group(1).encode("utf-8"))
    key = loads_strict(found.group(2).encode("utf-8"))
    if not isinstance(envelope, dict):
        raise RecordError("the record the page embeds is not a JSON object")
    if key is None:
        return envelope, None
    if not isinstance(key, dict) or not isinstance(key.get("raw_b64"), str):
        raise RecordError('the public key the page embeds is not {"raw_b64": ...}')
    try:
        raw = base64.b64decode(key["raw_b64"], validate=True)
    except ValueError:
        raise RecordError("the public key the page embeds is not base64") from None
    return envelope, raw


def envelope_bytes_of(envelope: Mapping[str, Any]) -> bytes:
    """The embedded envelope as record bytes, for the checks of a ``record.json``.

    The page embeds the envelope's JSON (escaped so it cannot close its element); its
    signature covers the payload, not the envelope's spacing, so these bytes verify as
    the record's would.
    """
    import json

    return json.dumps(dict(envelope)).encode("utf-8")


def _page_code(text: str) -> str | None:
    found = _SCRIPT_HASH.search(text)
    if found is None:
        return None
    try:
        return "sha256:" + base64.b64decode(found.group(1), validate=True).hex()
    except ValueError:
        return None


def page_difference(
    text: str, envelope: Mapping[str, Any], public_key_raw: bytes | None
) -> str | None:
    """``None`` when ``text`` is exactly the report of ``envelope``; else what differs.

    Parameters
    ----------
    text
        The page as read from its file.
    envelope, public_key_raw
        The record and the key the page embeds (:func:`embedded`).

    Returns
    -------
    str or None
        A sentence naming the first line that differs (or that the page was written by
        another respai version, when its page code is not this version's).
    """
    from respai.render.report.document import page_code_id, render_report

    again = render_report(envelope, public_key_raw)
    if again == text:
        return None
    code = _page_code(text)
    if code is not None and code != page_code_id():
        return (
            f"the page's code is {code}, not this respai version's {page_code_id()}: it was "
            "written by another version, or its script was replaced; render the record "
            "again with respai report to compare"
        )
    have, want = text.split("\n"), again.split("\n")
    for number, (a, b) in enumerate(zip(have, want, strict=False), start=1):
        if a != b:
            at = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), None)
            at = min(len(a), len(b)) if at is None else at
            return (
                f"line {number} differs from the report respai writes for this record, "
                f"at character {at + 1}: {a[max(at - 30, 0) : at + 50]!r}"
            )
    return (
        f"the page has {len(have)} lines where the report respai writes for this record "
        f"has {len(want)}"
    )
