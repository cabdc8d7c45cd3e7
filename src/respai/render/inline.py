"""What a self-contained page inlines: its asset files, their CSP hashes, embedded JSON.

The evidence report and the sample page load nothing. Their CSS and JavaScript ship as
files inside :mod:`respai.render` (:func:`asset_text`) and are written into the page, a
Content-Security-Policy allows exactly those texts by their SHA-256 (:func:`csp_hash`),
and data the script reads is embedded as JSON that cannot close its ``<script>`` element
(:func:`embed_json`).
"""

from __future__ import annotations

import base64
import hashlib
import json
from importlib import resources
from typing import Any

__all__ = ["asset_text", "csp_hash", "embed_json"]


def asset_text(package: str, name: str) -> str:
    """Return the text of a file shipped inside ``respai.render.<package>``."""
    return (resources.files("respai.render") / package / name).read_text(encoding="utf-8")


def csp_hash(text: str) -> str:
    """The CSP source expression allowing one inline script or style: ``'sha256-…'``.

    Examples
    --------
    >>> csp_hash("")
    "'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='"
    """
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return f"'sha256-{base64.b64encode(digest).decode('ascii')}'"


def embed_json(value: Any) -> str:
    r"""JSON text that is safe inside ``<script type="application/json">``.

    ASCII only, with ``<``, ``>`` and ``&`` written as ``\u003c``, ``\u003e`` and
    ``\u0026`` (they can only occur inside strings), so the text can never close the
    element or open a comment; U+2028 and U+2029 are escaped by ``ensure_ascii``.

    Examples
    --------
    >>> embed_json({"a": "</script><b>&"})
    '{"a": "\\u003c/script\\u003e\\u003cb\\u003e\\u0026"}'
    """
    text = json.dumps(value, ensure_ascii=True, allow_nan=False, sort_keys=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
