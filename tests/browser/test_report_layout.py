"""A report reads "Verified" only when its parts are where and how the renderer puts them.

Each bound text is checked against its own value; these edits, found by the third attack
round after the whole-document check, kept every bound text right and still showed a
person something else: markup hidden inside a bound element, a bound verdict drawn
outside its chart, a test's section dressed as the run's banner, a PASS colour around a
FAIL, a verdict count left out, a chart's limit line bound to another number, a chart
dressed as a legend, ARIA that reads PASS, a banner hidden from print, a <noscript> of
the page's own. Each must now read "Not verified: page_text".
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from respai.render.report import render_report

MadeRecord = Any  # conftest.MadeRecord

WORD = '<div class="word" data-bind="/predicate/verdict" data-fmt="verdict">FAIL</div>'
FAKE_IMG = (
    '<img src="data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmci'
    'IHdpZHRoPSIxNTAiIGhlaWdodD0iNDQiPjx0ZXh0IHk9IjMwIj5QQVNTPC90ZXh0Pjwvc3ZnPg==" '
    'width="150" height="44">'
)


def _one(pattern: str, html: str) -> re.Match[str]:
    found = re.search(pattern, html, re.S)
    assert found is not None, pattern
    return found


def _banner_span(html: str) -> tuple[int, int]:
    start = html.index('<section class="banner')
    return start, html.index("</section>", start) + len("</section>")


def _section(html: str, k: int) -> tuple[int, int]:
    start = html.index(f'<section class="test-section" id="test-{k}"')
    return start, html.index("</section>", start) + len("</section>")


def _pass_test(html: str) -> int:
    """The number of the first test section whose verdict is PASS."""
    found = _one(r'data-bind="/predicate/records/(\d+)/verdict" data-fmt="verdict">PASS<', html)
    return int(found.group(1))


def _fake_banner_moved(html: str) -> str:
    """A PASS test's section dressed as the banner at the top; the real banner at the end."""
    k = _pass_test(html)
    start, end = _section(html, k)
    fake = (
        f'<section class="test-section banner v-PASS" id="test-{k}" '
        f'data-record="/predicate/records/{k}"><div class="label">Verdict</div>'
        f'<div class="word" data-bind="/predicate/records/{k}/verdict" data-fmt="verdict">'
        "PASS</div></section>"
    )
    html = html[:start] + html[end:]
    b_start, b_end = _banner_span(html)
    banner = html[b_start:b_end]
    html = html[:b_start] + fake + html[b_end:]
    return html.replace("\n</main>", banner + "\n</main>", 1)


def _limit_moved(html: str) -> str:
    line = _one(
        r'<line class="limit" x1="[0-9.]+" (y1="[0-9.]+") x2="[0-9.]+" (y2="[0-9.]+") '
        r'data-limit="([^"]+)" data-limit-fmt="([^"]+)"/>',
        html,
    )
    other = _one(r'data-x1="(/predicate/records/\d+/details/groups/\d+/[a-z_]+/lo)"', html)
    return html.replace(
        line.group(0),
        f'<line class="limit" x1="210.0" {line.group(1)} x2="210.0" {line.group(2)} '
        f'data-limit="{other.group(1)}" data-limit-fmt="auc_limit"/>',
        1,
    )


def _edits(html: str) -> list[tuple[str, str, str]]:
    """(what, edited page, words the page_text detail must hold)."""
    b_start, b_end = _banner_span(html)
    badge = _one(
        r'<span class="badge v-FAIL" (data-bind="/predicate/records/\d+/verdict" '
        r'data-fmt="verdict")>FAIL</span>',
        html,
    )
    count = _one(r'<span class="count v-FAIL" [^>]*><b>\d+</b> FAIL</span>', html)
    return [
        (
            "markup hidden inside the banner's bound word",
            html.replace(WORD, WORD.replace(">FAIL<", f"><span hidden>FAIL</span>{FAKE_IMG}<"), 1),
            "inside the text of",
        ),
        (
            "the word in a noscript with an image beside it",
            html.replace(
                WORD, WORD.replace(">FAIL<", '><noscript>FAIL</noscript><img alt="PASS"><')
            ),
            "inside the text of",
        ),
        (
            "the banner's word drawn far outside a legend key",
            html.replace(
                WORD,
                '<div class="word"><span class="legend"><svg class="key" viewBox="0 0 22 12" '
                'width="22" height="12"><text x="5000" y="10" data-bind="/predicate/verdict" '
                'data-fmt="verdict">FAIL</text></svg></span></div>',
                1,
            ),
            "the page",
        ),
        ("a test's section dressed as the banner", _fake_banner_moved(html), "the page"),
        (
            "a FAIL badge wrapped in PASS colours",
            html.replace(
                badge.group(0),
                f'<span class="badge v-PASS"><span {badge.group(1)}>FAIL</span></span>',
                1,
            ),
            "badge",
        ),
        ("a verdict count left out", html.replace(count.group(0), "", 1), "count each of"),
        ("a limit line bound to another number", _limit_moved(html), "limit line"),
        (
            "a chart dressed as a legend key",
            html.replace(
                '<figure class="chart"><svg ', '<figure class="chart legend"><svg class="key" ', 1
            ),
            "the page",
        ),
        (
            "ARIA reading PASS",
            html.replace(
                WORD,
                WORD.replace('class="word"', 'class="word" role="img" aria-label="Verdict: PASS"'),
                1,
            ),
            "aria-label",
        ),
        (
            "the banner hidden from print",
            html[:b_start]
            + html[b_start:b_end].replace('class="banner', 'class="no-print banner', 1)
            + html[b_end:],
            "no-print",
        ),
        (
            "a noscript banner of the page's own",
            html[:b_start]
            + '<noscript><section class="banner v-PASS"><div class="word">PASS</div>'
            + "</section></noscript>"
            + html[b_start:],
            "the page",
        ),
        (
            "a legend key holding other marks",
            html.replace(
                '<line class="limit" x1="11" y1="0" x2="11" y2="12"/>',
                '<line class="limit" x1="11" y1="0" x2="11" y2="12"/><use href="#verdict"/>',
                1,
            ),
            "legend",
        ),
    ]


EDITS = 12  # how many _edits() makes; a test holds the two equal


@pytest.fixture(scope="module")
def page(loan_record: MadeRecord) -> str:
    return render_report(loan_record.envelope, loan_record.public_key_raw)


def test_every_edit_is_tested(page: str) -> None:
    edits = _edits(page)
    assert len(edits) == EDITS
    assert all(edited != page for _, edited, _ in edits)


@pytest.mark.parametrize("k", range(EDITS))
def test_a_part_out_of_its_place_is_not_verified(k: int, page: str, open_html: Any) -> None:
    what, edited, words = _edits(page)[k]
    opened = open_html(edited, f"layout{k}.html")
    assert opened.settled() == ("false", "page_text"), what
    detail = str(
        opened.page.evaluate(
            "Array.from(document.querySelectorAll('#verify-checks li'))"
            ".filter(li => li.textContent.includes('page_text'))"
            ".map(li => li.querySelector('.detail').textContent)[0]"
        )
    )
    assert words in detail, (what, detail)
