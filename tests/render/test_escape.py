"""The one escaper: what html_text and markdown_text guarantee, and that nothing else escapes.

Every page and document respai writes (the evidence report, the LL144 summary, the sample
page, the pack's Markdown) escapes through ``respai.render.escape``; the scan below fails
when a module under ``src/respai`` calls ``html.escape`` (or an XML escaper) itself.
"""

from __future__ import annotations

import ast
import html
import re
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

import respai
from respai.render.escape import html_text, markdown_code, markdown_text

PKG = Path(respai.__file__).resolve().parent
ESCAPE_MODULE = PKG / "render" / "escape.py"

#: Modules whose escaping functions only ``render/escape.py`` may use.
ESCAPERS = {"html": {"escape"}, "xml.sax.saxutils": {"escape", "quoteattr"}}


# -- html_text --------------------------------------------------------------------------


@given(st.text())
def test_html_text_round_trips_and_leaves_no_markup_character(text: str) -> None:
    out = html_text(text)
    assert not set(out) & set("<>\"'")
    assert html.unescape(out) == text
    # every & that remains starts one of the five references html_text writes
    rest = out
    for ref in ("&amp;", "&lt;", "&gt;", "&quot;", "&#x27;"):
        rest = rest.replace(ref, "")
    assert "&" not in rest


def test_html_text_cannot_close_an_attribute_or_an_element() -> None:
    hostile = "\"><script>alert(1)</script><a title='x"
    page = f'<p title="{html_text(hostile)}">{html_text(hostile)}</p>'
    assert page.count("<") == 2 and page.count('"') == 2
    assert html_text(None) == "None" and html_text(0.8) == "0.8"


# -- markdown_text ----------------------------------------------------------------------


@given(st.lists(st.text(), min_size=1, max_size=5))
def test_markdown_cells_keep_their_table_row(cells: list[str]) -> None:
    row = "| " + " | ".join(markdown_text(c) for c in cells) + " |"
    assert "\n" not in row and "\r" not in row  # no CommonMark line ending survives
    unescaped = [
        i
        for i, ch in enumerate(row)
        if ch == "|" and (len(row[:i]) - len(row[:i].rstrip("\\"))) % 2 == 0
    ]
    assert len(unescaped) == len(cells) + 1  # only the separators split the row


#: Text a CommonMark renderer would read as markup if it were not escaped: HTML and
#: autolinks, character references, backslash escapes, table pipes, block starters.
_MARKUP = st.text(alphabet="ab1 <>&;#x/!?|\\.)-+=~`\r\n", max_size=30)


@given(_MARKUP)
@example("R&amp;D &#60; &#x3c;")
@example("<b>bold</b> <http://x.example> <!-- c -->")
@example("\\<b> \\& a\\|b")
@example("# heading")
@example("> quote")
@example("1. item")
@example("---")
@example("~~~")
def test_markdown_text_renders_as_exactly_its_text(text: str) -> None:
    markdown_it = pytest.importorskip("markdown_it")
    md = markdown_it.MarkdownIt("commonmark")
    escaped = markdown_text(text)
    reference = r"&(#[0-9]+|#[xX][0-9a-fA-F]+|[A-Za-z][A-Za-z0-9]*);"
    assert not re.search(reference, escaped.replace("\\&", ""))  # none but escaped ones
    expected = text.replace("\r\n", " ").replace("\r", " ").replace("\n", " ").strip()
    if text != text.lstrip() or "`" in text:  # indented code / code spans: not plain text
        return
    rendered = md.render(escaped)
    body = re.sub(r"</?p>", "", rendered)
    assert "<" not in body, (escaped, rendered)  # no tag, no autolink: text only
    shown = html.unescape(body).strip()
    assert shown == expected, (escaped, rendered)


def test_markdown_text_leaves_comparisons_readable() -> None:
    # the LL144 finding sentences and the pack's scope memo once showed "&lt;="
    for text in ("score >= 0.5", "p = 0.0124 <= 0.05", "a & b", "x > y < z"):
        assert markdown_text(text) == text


def test_markdown_code_keeps_its_text_inside_one_span() -> None:
    markdown_it = pytest.importorskip("markdown_it")
    md = markdown_it.MarkdownIt("commonmark")
    for text in ("score >= 0.5", "a`b", "``x", "<b>R&amp;D</b>", "a\r\nb"):
        rendered = md.renderInline(markdown_code(text))
        assert rendered.startswith("<code>") and rendered.endswith("</code>")
        inner = html.unescape(rendered[len("<code>") : -len("</code>")])
        assert inner.strip() == text.replace("\r\n", " ").strip()


@pytest.mark.parametrize("ending", ["\n", "\r\n", "\r"])
def test_markdown_text_puts_every_line_ending_on_one_line(ending: str) -> None:
    # a lone CR ends a line in CommonMark too: the LL144 summary's old escaper kept it
    assert markdown_text(f"a{ending}b") == "a b"


def test_markdown_text_escapes_html_and_pipes_but_not_quotes() -> None:
    assert markdown_text('<b>R&D</b> | "it\'s"') == '\\<b>R&D\\</b> \\| "it\'s"'
    assert markdown_text("&amp; &#60;") == "\\&amp; \\&#60;"  # no reference survives
    assert markdown_text(3) == "3"


# -- nothing else escapes ---------------------------------------------------------------


def escaper_uses(source: str) -> list[str]:
    """Every use of an escaping function of :data:`ESCAPERS` in ``source``, by line."""
    tree = ast.parse(source)
    bound: dict[str, str] = {}  # local name -> escaper module it is bound to
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name in ESCAPERS:
                    bound[alias.asname or alias.name] = alias.name
        elif isinstance(node, ast.ImportFrom) and node.module in ESCAPERS:
            found += [
                f"{node.lineno}: from {node.module} import {a.name}"
                for a in node.names
                if a.name in ESCAPERS[node.module] or a.name == "*"
            ]
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute):
            base = ast.unparse(node.value)
            module = bound.get(base)
            if module is not None and node.attr in ESCAPERS[module]:
                found.append(f"{node.lineno}: {base}.{node.attr}")
    return found


@pytest.mark.parametrize(
    "source",
    [
        "import html\nhtml.escape(x)",
        "import html as h\nesc = h.escape",
        "from html import escape\n",
        "from html import escape as e\n",
        "import xml.sax.saxutils\nxml.sax.saxutils.quoteattr(x)",
    ],
)
def test_the_scan_finds_a_direct_escape(source: str) -> None:
    assert escaper_uses(source)


def test_the_scan_allows_other_uses() -> None:
    assert escaper_uses("import html\nhtml.unescape(x)\nfrom x import escape\n") == []


def test_no_module_but_render_escape_calls_an_escaper_itself() -> None:
    offenders = {
        path.relative_to(PKG).as_posix(): uses
        for path in sorted(PKG.rglob("*.py"))
        if path != ESCAPE_MODULE and (uses := escaper_uses(path.read_text(encoding="utf-8")))
    }
    assert offenders == {}
    assert escaper_uses(ESCAPE_MODULE.read_text(encoding="utf-8"))  # the scan sees it there
