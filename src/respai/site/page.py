"""One page of the audit site that checks itself against the signed site manifest.

Each index, LL144, streams and compare page embeds the site manifest (a DSSE envelope,
:mod:`respai.site.manifest`) and the raw public key, and runs one script
(``render/site_assets/site.js`` after ``report_assets/core.js``) that verifies the
signature and then the page: every text from the manifest is written by :meth:`Page.bound`
in an element naming its JSON Pointer and format (:data:`FORMATS`, implemented again in
the script under the same names), every other text by :meth:`Page.label` and must be one
of :data:`LABELS`, which are written into the script, so the page code (the script's
SHA-256) fixes them. The shell outside ``<main>`` is written from :data:`HEAD` and
:data:`BODY`, which the script requires exactly.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Callable, Mapping
from functools import cache
from typing import Any

from respai.render.escape import html_text, terminal_text
from respai.render.inline import asset_text, csp_hash, embed_json

__all__ = [
    "BODY",
    "FORMATS",
    "HEAD",
    "LABELS",
    "OWNED",
    "PAGES",
    "Page",
    "site_page_code",
    "site_script",
    "site_style",
]

_DASH = "\u2014"


def _text(value: Any) -> str:
    return terminal_text(value) if isinstance(value, str) and value != "" else _DASH


def _count(value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, int) or abs(value) > 2**53 - 1:
        return _DASH
    return f"{value:,}"


def _short_hash(value: Any) -> str:
    if not isinstance(value, str) or value == "":
        return _DASH
    body = value.removeprefix("sha256:")
    return terminal_text(f"sha256:{body[:12]}\u2026" if len(body) > 12 else value)


#: The formats a bound value is shown in; ``site.js`` implements each under its name.
FORMATS: dict[str, Callable[[Any], str]] = {
    "text": _text,
    "count": _count,
    "short_hash": _short_hash,
}

#: The ids the script writes into, with their tag and the text the file holds.
OWNED: tuple[tuple[str, str, str], ...] = (
    ("verify-title", "strong", "Checking the signature of the site manifest\u2026"),
    ("verify-detail", "p", "This page checks itself with JavaScript in the browser."),
)

#: Every fixed text the site's pages show (each page's title is one of them too).
LABELS: frozenset[str] = frozenset(
    [text for _, _, text in OWNED]
    + [
        # titles and headings
        "respai audit site",
        "Signed runs · respai audit site",
        "LL144 summary dates · respai audit site",
        "Monitoring streams · respai audit site",
        "Comparisons · respai audit site",
        "Signed runs of the ledger",
        "LL144 bias audit: the dates the summary must show",
        "Monitoring streams",
        "Comparisons of consecutive runs",
        "Runs",
        "LL144 summaries",
        "Dates",
        "Publication period",
        "Findings",
        "The rule",
        # navigation
        "All runs",
        "Monitoring streams",
        "Comparisons",
        "The audit's signed record",
        # the manifest line
        "Ledger ",
        ", ",
        " run(s); site built ",
        " and signed with key ",
        "Every row links to the run's own report, which checks the run's signed record "
        "in the browser. This page checks the site manifest, which lists every run with "
        "the SHA-256 of its record file and of its page.",
        # table heads
        "Seq",
        "Time",
        "Kind",
        "System",
        "Dataset",
        "Verdict",
        "Key",
        "Run",
        "Audit",
        "Stream",
        "Criteria",
        "Looks",
        "Latest verdict",
        "Alarm at look",
        "The whole stream",
        "Runs of the stream",
        "Date",
        "Source",
        "Value",
        # LL144 page
        "Date of the bias audit",
        "Distribution date of the tool",
        "Posting date of the summary",
        "Last use of the tool",
        "From",
        "Until at least",
        "None: every date is stated and in order.",
        "NYC Local Law 144 (NYC Admin. Code § 20-871) and the DCWP rules (6 RCNY § 5-303) "
        "require the summary of the most recent bias audit to be posted on the employment "
        "section of the employer's website before the tool is used, stating the date of "
        "the audit (§ 5-303(a)(1)) and the distribution date of the tool (§ 5-303(a)(2)), "
        "and to stay posted for at least six months after the tool's last use for an "
        "employment decision. The tool may not be used once more than a year has passed "
        "since its latest bias audit (§ 20-871; § 5-301).",
        "Dates marked as given to respai site come from the person who built this site, "
        "who signed them in the site manifest; they are not part of the signed audit "
        "record, whose own page checks only what the audit states.",
        "The audit date and the distribution date are from the signed record; the "
        "posting date and the last use are the site builder's, signed in the manifest.",
        # streams and compare
        "No monitoring run in this ledger.",
        "No two runs of the same system and kind follow each other in this ledger.",
        "The whole stream links to its latest run's page, which draws every look of the "
        "stream (the earlier ones from the copies its signed record holds): the batch "
        "rates, the confidence sequences per group, the rule's limit and the look a "
        "change was detected at. Each run of a stream links to its own page; every page "
        "checks its signed record.",
        "Each comparison is what respai compare says about two consecutive runs of the "
        "same system and kind, as the site builder signed it.",
        " against ",
        "No LL144 audit in this ledger.",
    ]
)

#: What each kind of page must show, relative to its ``data-at`` pointer.
PAGES: dict[str, dict[str, list[str]]] = {
    "index": {"lists": ["/runs", "/ll144"], "values": ["/ledger/origin", "/key_id"]},
    "streams": {"lists": ["/streams"], "values": ["/key_id"]},
    "compare": {"lists": ["/comparisons"], "values": ["/key_id"]},
    "ll144": {
        "lists": ["/findings"],
        "values": [
            "/audit_date/value",
            "/distribution_date/value",
            "/posted/value",
            "/last_use/value",
            "/publication/from",
            "/publication/until",
            "/publication/note",
        ],
    },
}

_TAGS = frozenset(
    {"a", "code", "dd", "div", "dl", "dt", "h1", "h2", "h3", "header", "li", "nav", "ol", "p"}
    | {"section", "span", "strong", "table", "tbody", "td", "th", "thead", "tr", "ul"}
)
_ATTRIBUTES = frozenset(
    {"class", "data-at", "data-bind", "data-fmt", "data-href", "data-list", "data-page"}
    | {"data-row", "href", "id"}
)
_CLASSES = frozenset({"eyebrow", "finding", "muted", "small", "verify"})

#: The attributes of ``<html>`` (the script writes the two ``data-`` ones).
HTML_ATTRIBUTES: tuple[tuple[str, str], ...] = (
    ("lang", "en"),
    ("data-verified", "pending"),
    ("data-failed", ""),
)
_SLOT = "@@script@@"
#: The elements of ``<head>``, in order, with their attributes.
HEAD: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = (
    ("meta", (("charset", "utf-8"),)),
    ("meta", (("http-equiv", "Content-Security-Policy"), ("content", _SLOT))),
    ("meta", (("name", "referrer"), ("content", "no-referrer"))),
    ("meta", (("name", "viewport"), ("content", "width=device-width, initial-scale=1"))),
    ("title", ()),
    ("style", ()),
)
#: The elements of ``<body>``, in order: the page, the manifest, the key, the script.
BODY: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = (
    ("main", ()),
    ("script", (("type", "application/json"), ("id", "respai-site-manifest"))),
    ("script", (("type", "application/json"), ("id", "respai-public-key"))),
    ("script", ()),
)


@cache
def site_style() -> str:
    """The site's style sheet, as each page inlines it."""
    return asset_text("site_assets", "site.css")


def _csp(script_hash: str) -> str:
    return (
        f"default-src 'none'; script-src {script_hash}; style-src {csp_hash(site_style())}; "
        "img-src data:; base-uri 'none'; form-action 'none'"
    )


@cache
def site_script() -> str:
    """The pages' one script: the tables, ``core.js`` and ``site.js``."""
    from respai.record.dsse import PAYLOAD_TYPE
    from respai.site.manifest import PREDICATE_TYPE, STATEMENT_TYPE

    tables = {
        "labels": sorted(LABELS),
        "tags": sorted(_TAGS),
        "attributes": sorted(_ATTRIBUTES),
        "classes": sorted(_CLASSES),
        "owned": [list(o) for o in OWNED],
        "pages": PAGES,
        "payloadType": PAYLOAD_TYPE,
        "statementType": STATEMENT_TYPE,
        "predicateType": PREDICATE_TYPE,
        "shell": {
            "html": [list(a) for a in HTML_ATTRIBUTES],
            "head": [[t, [list(a) for a in attrs]] for t, attrs in HEAD],
            "body": [[t, [list(a) for a in attrs]] for t, attrs in BODY],
            "cspSlot": _SLOT,
            "csp": _csp(_SLOT),
            "styleSha256": csp_hash(site_style()),
        },
    }
    return "\n".join(
        [
            f"var RespaiSiteTables = {embed_json(tables)};",
            asset_text("report_assets", "core.js"),
            asset_text("site_assets", "site.js"),
        ]
    )


def site_page_code() -> str:
    """``sha256:<hex>`` of the site pages' script: the same on every site page.

    Examples
    --------
    >>> site_page_code().startswith("sha256:")
    True
    """
    return "sha256:" + hashlib.sha256(site_script().encode("utf-8")).hexdigest()


def _escape(text: str) -> str:
    return html_text(text)


def _start(tag: str, attrs: tuple[tuple[str, str], ...], slot: str = "") -> str:
    parts = [tag] + [f'{k}="{_escape(slot if v == _SLOT else v)}"' for k, v in attrs]
    return "<" + " ".join(parts) + ">"


class Page:
    """Writes the ``<main>`` of one site page against the manifest's predicate.

    Parameters
    ----------
    statement
        The manifest's Statement (the same data the page's script checks against).
    """

    def __init__(self, statement: Mapping[str, Any]) -> None:
        self._statement = statement

    def value(self, pointer: str) -> Any:
        """The value at a JSON Pointer of the Statement (``KeyError`` when missing)."""
        value: Any = self._statement
        for part in pointer.split("/")[1:]:
            key = part.replace("~1", "/").replace("~0", "~")
            value = value[int(key)] if isinstance(value, list) else value[key]
        return value

    @staticmethod
    def label(text: str) -> str:
        """A fixed label, escaped; ``ValueError`` when it is not one of :data:`LABELS`."""
        if text not in LABELS:
            raise ValueError(f"not a site label: {text!r}")
        return _escape(text)

    def bound(self, tag: str, pointer: str, fmt: str = "text", cls: str = "") -> str:
        """``<tag data-bind data-fmt>`` holding the manifest's value in format ``fmt``."""
        shown = FORMATS[fmt](self.value(pointer))
        klass = f' class="{cls}"' if cls else ""
        return (
            f'<{tag}{klass} data-bind="{_escape(pointer)}" data-fmt="{fmt}">'
            f"{_escape(shown)}</{tag}>"
        )

    def link(self, pointer: str, inner: str) -> str:
        """``<a href>`` to the page the manifest names at ``pointer``, around ``inner``."""
        href = self.value(pointer)
        return f'<a href="{_escape(href)}" data-href="{_escape(pointer)}">{inner}</a>'

    def document(
        self, title: str, kind: str, at: str, body: str, envelope: Mapping[str, Any], raw: bytes
    ) -> str:
        """The whole page: the shell, ``<main>`` (verification box first), the script."""
        script = site_script()
        csp = _csp(csp_hash(script))
        contents = {"title": f"{self.label(title)}</title>", "style": f"{site_style()}</style>"}
        head = "\n".join(_start(t, a, csp) + contents.get(t, "") for t, a in HEAD)
        owned = "".join(f'<{tag} id="{i}">{_escape(text)}</{tag}>' for i, tag, text in OWNED)
        box = f'<section class="verify" id="verification">{owned}</section>'
        key = {"raw_b64": base64.b64encode(raw).decode("ascii")}
        return (
            "<!DOCTYPE html>\n"
            + _start("html", HTML_ATTRIBUTES)
            + f"\n<head>\n{head}\n</head>\n<body>\n"
            + f'<main data-page="{kind}" data-at="{_escape(at)}">{box}{body}</main>\n'
            + _start(*BODY[1])
            + embed_json(dict(envelope))
            + "</script>\n"
            + _start(*BODY[2])
            + embed_json(key)
            + "</script>\n"
            + f"<script>{script}</script>\n</body>\n</html>\n"
        )
