"""The sample page: per-group rates from a CSV, computed and signed in the browser.

:func:`sample_page_html` returns one static, self-contained HTML page. A person pastes or
opens a CSV of decisions (label, prediction, a group column chosen from a dropdown); the
page computes per group the cases, accuracy, selection rate and true positive rate with
95% Wilson intervals, plus overall accuracy, the impact ratio, the selection-rate
difference and the equal-opportunity difference, with the definitions of
:mod:`respai.battery`. It signs the RFC 8785 canonical JSON of the result with an ECDSA
P-256 key generated when the page loads (WebCrypto), verifies it, and offers a
Tamper/Reset demonstration; ``<html data-verified="...">`` reports the outcome.

Nothing leaves the browser: the page loads nothing and its Content-Security-Policy allows
only its own inline script and style (by SHA-256 hash), so it could not send data even if
asked to.
"""

from __future__ import annotations

from respai.render.escape import html_text
from respai.render.inline import asset_text, csp_hash

__all__ = ["sample_page_html"]


def sample_page_html() -> str:
    """Return the sample page as one self-contained HTML document.

    Returns
    -------
    str
        The HTML text; it is the same on every call.

    Examples
    --------
    >>> page = sample_page_html()
    >>> page.startswith("<!DOCTYPE html>") and 'id="result"' in page
    True
    """
    css = asset_text("sample_assets", "sample.css")
    script = (
        asset_text("report_assets", "core.js") + "\n" + asset_text("sample_assets", "sample.js")
    )
    csp = (
        f"default-src 'none'; script-src {csp_hash(script)}; style-src {csp_hash(css)}; "
        "connect-src 'none'; img-src 'none'; base-uri 'none'; form-action 'none'"
    )
    head, rest = asset_text("sample_assets", "sample.html").split("/*@CSS@*/", 1)
    middle, tail = rest.split("/*@SCRIPT@*/", 1)
    head = head.replace("@CSP@", html_text(csp))
    return head + css + middle + script + tail
