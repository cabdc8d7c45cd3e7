r"""The one escaper of every page and document respai writes.

Every string that comes from a record, a spec or a data file and ends up in HTML or
Markdown goes through this module: :func:`html_text` for HTML element content and quoted
attribute values (the evidence report, the LL144 summary page, the sample page) and
:func:`markdown_text` for Markdown (the LL144 summary, the evidence-pack documents), with
:func:`markdown_code` for a value shown in backticks. No
other module calls :func:`html.escape`; ``tests/render/test_escape.py`` checks that.

Text for a terminal goes through :func:`terminal_text`: control characters, escape
sequences and bidi controls from a spec, a data file or a record are shown escaped
(``\x1b``, ``\u202e``), so they can neither move the cursor, clear the screen nor
reverse a name.
"""

from __future__ import annotations

import html
import re
import unicodedata

__all__ = ["html_text", "markdown_code", "markdown_text", "terminal_text"]

#: Unicode categories shown escaped on a terminal: controls (C0, DEL, C1), format
#: characters (the bidi embeddings, overrides and isolates, the marks U+200E, U+200F
#: and U+061C, zero-width characters), surrogates, and the line and paragraph
#: separators U+2028 and U+2029.
_UNSAFE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
#: The short escapes Python's ``unicode_escape`` uses, kept for the familiar ones.
_SHORT_ESCAPES = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}

#: Line endings in CommonMark (a lone CR is one too): each would end a table row.
_LINE_ENDINGS = ("\r\n", "\r", "\n")


def html_text(value: object) -> str:
    """Escape ``value`` as text for HTML element content or a quoted attribute value.

    Parameters
    ----------
    value
        Any value; it is shown as ``str(value)``.

    Returns
    -------
    str
        The text with ``&``, ``<``, ``>``, ``"`` and ``'`` written as character
        references, so it can neither open an element nor close an attribute.

    Examples
    --------
    >>> html_text('<a href="x">R&D</a>')
    '&lt;a href=&quot;x&quot;&gt;R&amp;D&lt;/a&gt;'
    >>> html_text(0.8)
    '0.8'
    """
    return html.escape(str(value), quote=True)


#: ``&`` that would start a character reference (``&amp;``, ``&#60;``, ``&#x3c;``).
_ENTITY_START = re.compile(r"&(?=#[0-9]{1,7};|#[xX][0-9a-fA-F]{1,6};|[A-Za-z][A-Za-z0-9]*;)")
#: ``<`` that would start raw HTML or an autolink (a tag, ``</``, ``<!``, ``<?``).
_HTML_START = re.compile(r"<(?=[A-Za-z/!?])")
#: A backslash before ASCII punctuation: Markdown would read it as an escape.
_BACKSLASH = re.compile(r"\\(?=[!-/:-@\[-`{-~])")
#: What starts a block when the text starts a line: a quote, an ATX heading, a list
#: item (its marker then a space or the end), a thematic break, a code fence. Text such
#: as ``0.300``, ``-0.2`` or ``#1`` starts none.
_LINE_START = re.compile(
    r"^(?P<lead>[ \t]*)(?:"
    r"(?P<quote>>)"
    r"|(?P<head>#)(?=#{0,5}(?:[ \t]|$))"
    r"|(?P<bullet>[-+*])(?=[ \t]|$)"
    r"|(?P<num>[0-9]{1,9})(?P<delim>[.)])(?=[ \t]|$)"
    r"|(?P<rule>[-*_])(?=(?:[ \t]*(?P=rule)){2,}[ \t]*$)"
    r"|(?P<fence>[`~])(?=(?P=fence){2})"
    r")"
)


def markdown_text(value: object) -> str:
    r"""Escape ``value`` as text for Markdown, a table cell included, kept on one line.

    The result is plain Markdown, without character references: a backslash escape
    goes before a ``<`` that would open raw HTML or an autolink (``\<b>``), an ``&``
    that would start a character reference (``\&amp;``), a backslash that would
    escape the next character, a ``|`` (it would end a table cell) and a character
    that would start a heading, quote or list item at the start of the text; every
    line ending becomes a space (it would end the table row or the list item). Text
    such as ``score >= 0.5`` or ``p <= 0.05`` is left as it is. Emphasis and link
    characters are not escaped. For text inside backticks use :func:`markdown_code`
    (a code span shows backslashes as they are).

    Parameters
    ----------
    value
        Any value; it is shown as ``str(value)``.

    Returns
    -------
    str
        The escaped text, on one line.

    Examples
    --------
    >>> markdown_text("<b>a|b</b>\r\nc")
    '\\<b>a\\|b\\</b> c'
    >>> markdown_text("score >= 0.5 & p <= 0.05")
    'score >= 0.5 & p <= 0.05'
    >>> markdown_text("R&amp;D")
    'R\\&amp;D'
    """
    text = str(value)
    for ending in _LINE_ENDINGS:
        text = text.replace(ending, " ")
    text = _BACKSLASH.sub(r"\\\\", text)
    text = _ENTITY_START.sub(r"\\&", text)
    text = _HTML_START.sub(r"\\<", text)
    text = text.replace("|", "\\|")
    return _LINE_START.sub(_escape_line_start, text, count=1)


def _escape_line_start(match: re.Match[str]) -> str:
    lead = match.group("lead")
    if match.group("num") is not None:
        return f"{lead}{match.group('num')}\\{match.group('delim')}"
    return f"{lead}\\{match.group(0)[len(lead) :]}"


def markdown_code(value: object) -> str:
    """``value`` as a Markdown code span, backticks included, kept on one line.

    Inside a code span nothing is interpreted (no HTML, no character reference, no
    escape), so the text is kept as it is; the fence is a run of backticks longer than
    any in the text, and every line ending becomes a space. Not for a table cell: a
    ``|`` in it would still end the cell.

    Parameters
    ----------
    value
        Any value; it is shown as ``str(value)``.

    Returns
    -------
    str
        The code span.

    Examples
    --------
    >>> markdown_code("score >= 0.5")
    '`score >= 0.5`'
    >>> markdown_code("a`b")
    '``a`b``'
    """
    text = str(value)
    for ending in _LINE_ENDINGS:
        text = text.replace(ending, " ")
    longest = max((len(run) for run in re.findall("`+", text)), default=0)
    fence = "`" * (longest + 1)
    if text.startswith("`") or text.endswith("`") or (text.startswith(" ") and text.strip()):
        text = f" {text} "
    return f"{fence}{text}{fence}"


def _escaped(char: str) -> str:
    if char in _SHORT_ESCAPES:
        return _SHORT_ESCAPES[char]
    code = ord(char)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def terminal_text(value: object, *, keep_newlines: bool = False) -> str:
    r"""Show ``value`` on a terminal with every control and format character escaped.

    Every C0 and C1 control character (ESC, and so every escape sequence, included),
    DEL, the Unicode bidi controls (U+202A-U+202E, U+2066-U+2069, U+200E, U+200F,
    U+061C) and the other format characters, surrogates and line or paragraph
    separators are written as Python-style escapes: ``\t``, ``\n``, ``\r``, ``\xNN``,
    ``\uNNNN`` or ``\UNNNNNNNN``. Printable text, non-ASCII letters included, is
    unchanged, and a backslash is left as it is, so text escaped once is not escaped
    again.

    Parameters
    ----------
    value
        Any value; it is shown as ``str(value)``.
    keep_newlines
        Keep ``"\n"`` as a line break (for a block of lines built by respai itself);
        by default it is escaped too, so a value cannot start a line of its own.

    Returns
    -------
    str
        The text, safe to write to a terminal.

    Examples
    --------
    >>> terminal_text("\x1b[2Jverdict: PASS")
    '\\x1b[2Jverdict: PASS'
    >>> terminal_text("admin\u202eexe.txt")
    'admin\\u202eexe.txt'
    >>> terminal_text("Zoë, 女性")
    'Zoë, 女性'
    >>> terminal_text("a\nb"), terminal_text("a\nb", keep_newlines=True)
    ('a\\nb', 'a\nb')
    """
    text = str(value)
    if text.isprintable():
        return text
    return "".join(
        _escaped(c)
        if unicodedata.category(c) in _UNSAFE_CATEGORIES and not (keep_newlines and c == "\n")
        else c
        for c in text
    )
