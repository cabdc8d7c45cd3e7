"""A report reads "Verified" only when nothing on it is unsigned: the whole document.

Each edit below was a way, on engine 0.3.0, to show a PASS over a FAIL record (or other
unsigned text) on a page that still read "Verified": an element with an id the script
writes used twice, text before or after ``<main>`` or in a second one, a loosened CSP with
a style of its own, an edited style sheet, a meta refresh, a changed title. Each must now
read "Not verified: page_text" and name what it found, while the untouched page verifies.
"""

from __future__ import annotations

import base64
import hashlib
import re
from typing import Any

import pytest

from respai.render.report import page_code_id, render_report

MadeRecord = Any  # conftest.MadeRecord

FAKE_PASS = (
    '<section class="banner v-PASS"><div class="label">Verdict</div>'
    '<div class="word">PASS</div></section>'
)


def _banner(html: str) -> tuple[int, int]:
    start = html.index('<section class="banner')
    return start, html.index("</section>", start) + len("</section>")


def _wrapped_banner(html: str) -> str:
    """The 0.3.0 swap: the real banner inside a first #tamper-note, a PASS in a second."""
    start, end = _banner(html)
    return (
        html[:start]
        + f'<div id="tamper-note">{html[start:end]}</div>'
        + f'<div id="tamper-note">{FAKE_PASS}</div>'
        + html[end:]
    )


def _css_hash(css: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(css.encode()).digest()).decode() + "'"


def _style_repainted(html: str) -> str:
    """style-src loosened to 'unsafe-inline' and a style of its own that paints FAIL green."""
    loose = "style-src &#x27;unsafe-inline&#x27;"
    html = re.sub(r"style-src &#x27;sha256-[^&]*&#x27;", loose, html)
    return html.replace(
        "</head>", "<style>.v-FAIL{background:#1a7f37 !important}</style>\n</head>", 1
    )


def _style_edited(html: str, *, csp_too: bool) -> str:
    """The style sheet edited, and with ``csp_too`` the CSP's style hash made to match."""
    css = re.search(r"<style>(.*?)</style>", html, re.S)
    assert css is not None
    edited = css.group(1) + "\n.v-FAIL .word{visibility:hidden}"
    if csp_too:
        old, new = _css_hash(css.group(1)), _css_hash(edited)
        html = html.replace(old.replace("'", "&#x27;"), new.replace("'", "&#x27;"), 1)
    return html.replace(css.group(0), f"<style>{edited}</style>", 1)


def _rebound_banner(html: str) -> str:
    """The banner's word bound to a test that PASSed instead of the run's verdict."""
    passed = re.search(
        r'data-bind="(/predicate/records/[0-9]+/verdict)" data-fmt="verdict">PASS<', html
    )
    assert passed is not None
    old = 'data-bind="/predicate/verdict" data-fmt="verdict">FAIL<'
    assert old in html
    return html.replace(old, f'data-bind="{passed.group(1)}" data-fmt="verdict">PASS<', 1)


def _badge_moved(html: str) -> str:
    """A PASS badge of one test copied into the footer, outside every row and section."""
    passed = re.search(
        r'<span class="badge v-PASS" data-bind="[^"]*" data-fmt="verdict">PASS</span>', html
    )
    assert passed is not None
    return html.replace("<footer>", "<footer>" + passed.group(0), 1)


def _edits(html: str) -> list[tuple[str, str, str]]:
    """(what, edited page, words the page_text detail must hold)."""
    start, end = _banner(html)
    return [
        ("the banner showing a passed test's verdict", _rebound_banner(html), "verdict"),
        ("a test's verdict shown outside its row", _badge_moved(html), "never shows it"),
        ("the banner wrapped in a duplicated #tamper-note", _wrapped_banner(html), "tamper-note"),
        (
            "unbound text in a later duplicate of a script-owned id",
            html.replace(
                "<footer>", '<footer><span id="verify-summary">Every test passed.</span>', 1
            ),
            "verify-summary",
        ),
        (
            "a PASS banner before <main>",
            html.replace("<body>\n", f"<body>\n{FAKE_PASS}", 1),
            "<section>",
        ),
        (
            "a PASS banner after </main>",
            html.replace("</main>\n", f"</main>\n{FAKE_PASS}", 1),
            "<section>",
        ),
        ("text after </html>", html + "All tests PASS", "All tests PASS"),
        (
            "a second <main>",
            html.replace("</main>\n", f"</main>\n<main>{FAKE_PASS}</main>", 1),
            "<main>",
        ),
        (
            "the CSP loosened and a style added",
            _style_repainted(html),
            "Content-Security-Policy",
        ),
        (
            "the style sheet edited, its hash updated",
            _style_edited(html, csp_too=True),
            "Content-Security-Policy",
        ),
        ("the style sheet edited", _style_edited(html, csp_too=False), "style sheet"),
        (
            "a meta refresh",
            html.replace("</head>", '<meta http-equiv="refresh" content="5">\n</head>', 1),
            'http-equiv="refresh"',
        ),
        (
            "the title changed",
            re.sub(r"<title>[^<]*</title>", "<title>PASS · all clear</title>", html, count=1),
            "title",
        ),
        ("a comment", html.replace("<main>", "<main><!-- PASS -->", 1), "comment"),
        (
            "the verification title written in the file",
            html.replace(
                '<strong id="verify-title">Checking the signature and the hash chain…',
                '<strong id="verify-title">Verified',
                1,
            ),
            "verify-title",
        ),
        (
            "the verdict banner used twice",
            html[:end] + html[start:end] + html[end:],
            "id \u201cverdict\u201d",
        ),
        ("an attribute on <body>", html.replace("<body>", '<body class="x">', 1), "class"),
        (
            "a script-owned element moved out of the box",
            html.replace(
                '<code id="verify-key" class="mono hash">not checked yet</code>', "", 1
            ).replace(
                '<div class="eyebrow">respai evidence report</div>',
                '<div class="eyebrow">respai evidence report</div>'
                '<code id="verify-key" class="mono hash">not checked yet</code>',
                1,
            ),
            "verify-key",
        ),
        ("the doctype removed", html.replace("<!DOCTYPE html>\n", "", 1), "DOCTYPE"),
    ]


@pytest.fixture(scope="module")
def page(loan_record: MadeRecord) -> str:
    return render_report(loan_record.envelope, loan_record.public_key_raw)


def test_the_untouched_page_shows_its_page_code(page: str, open_html: Any) -> None:
    opened = open_html(page)
    assert opened.settled() == ("true", "")
    assert opened.page.text_content("#verify-code") == page_code_id()
    script = re.findall(r"<script>(.*?)</script>", page, flags=re.S)[-1]
    assert page_code_id() == "sha256:" + hashlib.sha256(script.encode()).hexdigest()
    assert opened.errors == []


EDITS = 19  # how many _edits() makes; a test below holds the two equal


def test_every_edit_is_tested(page: str) -> None:
    assert len(_edits(page)) == EDITS


@pytest.mark.parametrize("k", range(EDITS))
def test_an_edit_outside_the_checked_text_is_not_verified(
    k: int, page: str, open_html: Any
) -> None:
    what, edited, words = _edits(page)[k]
    assert edited != page, what
    opened = open_html(edited, f"shell{k}.html")
    verified, failed = opened.settled()
    assert (verified, failed) == ("false", "page_text"), what
    assert opened.page.inner_text("#verify-title") == "Not verified: page_text", what
    detail = str(
        opened.page.evaluate(
            "Array.from(document.querySelectorAll('#verify-checks li'))"
            ".filter(li => li.textContent.includes('page_text'))"
            ".map(li => li.querySelector('.detail').textContent)[0]"
        )
    )
    assert words in detail, (what, detail)


def test_the_wrapped_banner_no_longer_shows_pass_under_verified(page: str, open_html: Any) -> None:
    """The 0.3.0 swap, as a person sees it: the box never says Verified over the PASS."""
    opened = open_html(_wrapped_banner(page))
    opened.settled()
    title = opened.page.inner_text("#verify-title")
    assert title.startswith("Not verified"), title
    assert "elements with the id \u201ctamper-note\u201d" in opened.page.inner_text(
        "#verify-checks"
    )
