"""The report's shell: everything outside ``<main>``, written and checked from one list.

A page that reads "Verified" may show nothing the signed record does not hold. The text
inside ``<main>`` is checked node by node (:mod:`~respai.render.report.walk`); this module
fixes the rest of the document so the page's script can require it exactly: the
``<html>`` attributes, the elements of ``<head>`` (their attributes and order, the
Content-Security-Policy, the title, which is derived from the record, and the style
sheet, which must hash to the value written into the script) and the elements of
``<body>`` (``<main>``, the three embedded JSON blocks and the script). An element,
attribute, text or comment that is not in these lists makes the page read "Not
verified".

The style sheet's SHA-256 is written into the script's tables (:data:`STYLE_SHA256`), so
the script's own SHA-256, which the CSP names and the page shows as its *page code*,
covers the styles and this shell too: two pages with the same page code draw a record the
same way (:func:`respai.render.report.document.page_code_id` gives that value for this
respai version).
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any

from respai.render.escape import html_text, terminal_text
from respai.render.inline import asset_text, csp_hash
from respai.render.report.fields import as_dict, as_str

__all__ = [
    "BODY",
    "HEAD",
    "HTML_ATTRIBUTES",
    "SCRIPT_SLOT",
    "STYLE_SHA256",
    "TITLE_SUFFIX",
    "content_security_policy",
    "page_style",
    "page_title",
    "shell_tables",
    "start_tag",
]

#: Where the CSP names the script's hash; the page's script fills in its own.
SCRIPT_SLOT = "@@script@@"

#: The attributes of ``<html>`` (the script writes the two ``data-`` ones).
HTML_ATTRIBUTES: tuple[tuple[str, str], ...] = (
    ("lang", "en"),
    ("data-verified", "pending"),
    ("data-failed", ""),
)

#: The elements of ``<head>``, in order, each with its attributes in order.
HEAD: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = (
    ("meta", (("charset", "utf-8"),)),
    ("meta", (("http-equiv", "Content-Security-Policy"), ("content", SCRIPT_SLOT))),
    ("meta", (("name", "referrer"), ("content", "no-referrer"))),
    ("meta", (("name", "viewport"), ("content", "width=device-width, initial-scale=1"))),
    ("meta", (("name", "generator"), ("content", "respai"))),
    ("title", ()),
    ("style", ()),
)

#: The elements of ``<body>``, in order: the page, the embedded JSON, the script.
BODY: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = (
    ("main", ()),
    ("script", (("type", "application/json"), ("id", "respai-envelope"))),
    ("script", (("type", "application/json"), ("id", "respai-public-key"))),
    ("script", (("type", "application/json"), ("id", "respai-test-names"))),
    ("script", ()),
)

#: The end of every report's title; the start is the record's system name and version.
TITLE_SUFFIX = " · respai evidence report"


@cache
def page_style() -> str:
    """The report's style sheet, as the page inlines it."""
    return asset_text("report_assets", "report.css")


#: The style sheet's CSP source expression (``'sha256-…'``), written into the script.
STYLE_SHA256 = csp_hash(page_style())


def content_security_policy(script_hash: str) -> str:
    """The page's CSP: nothing loads; only the script and the style sheet by their hashes.

    Examples
    --------
    >>> content_security_policy("'sha256-x'").split("; ")[:2]
    ["default-src 'none'", "script-src 'sha256-x'"]
    """
    return (
        f"default-src 'none'; script-src {script_hash}; style-src {STYLE_SHA256}; "
        "img-src data:; base-uri 'none'; form-action 'none'"
    )


def page_title(statement: Any) -> str:
    """The document title the page shows for a statement, as its script derives it.

    The system's name (``record`` when the record has none) and version, each with its
    control and bidi characters escaped, then :data:`TITLE_SUFFIX`.

    Examples
    --------
    >>> page_title({"predicate": {"system": {"name": "loan", "version": "1.0"}}})
    'loan 1.0 · respai evidence report'
    >>> page_title(None)
    'record · respai evidence report'
    """
    system = as_dict(as_dict(as_dict(statement).get("predicate")).get("system"))
    name = terminal_text(as_str(system.get("name"), "record"))
    version = terminal_text(as_str(system.get("version")))
    return f"{name} {version}".strip() + TITLE_SUFFIX


def start_tag(tag: str, attributes: tuple[tuple[str, str], ...], extra: str = "") -> str:
    """``<tag a="v" ...>`` with every value HTML-escaped (``extra`` fills a slot)."""
    parts = [tag] + [
        f'{name}="{html_text(extra if value == SCRIPT_SLOT else value)}"'
        for name, value in attributes
    ]
    return "<" + " ".join(parts) + ">"


def shell_tables() -> Mapping[str, Any]:
    """What the script needs to check the shell (part of ``RespaiTables``)."""
    return {
        "html": [list(a) for a in HTML_ATTRIBUTES],
        "head": [[tag, [list(a) for a in attrs]] for tag, attrs in HEAD],
        "body": [[tag, [list(a) for a in attrs]] for tag, attrs in BODY],
        "cspSlot": SCRIPT_SLOT,
        "csp": content_security_policy(SCRIPT_SLOT),
        "styleSha256": STYLE_SHA256,
        "titleSuffix": TITLE_SUFFIX,
    }
