"""The one escaper of every page and document respai writes.

Every string that comes from a record, a spec or a data file and ends up in HTML or
Markdown goes through this module: :func:`html_text` for HTML element content and quoted
attribute values (the evidence report, the LL144 summary page, the sample page) and
:func:`markdown_text` for Markdown (the LL144 summary, the evidence-pack documents). No
other module calls :func:`html.escape`; ``tests/render/test_escape.py`` checks that.
"""

from __future__ import annotations

import html

__all__ = ["html_text", "markdown_text"]

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


def markdown_text(value: object) -> str:
    r"""Escape ``value`` as text for Markdown, a table cell included, kept on one line.

    ``&``, ``<`` and ``>`` become character references (a Markdown renderer passes raw
    HTML through), ``|`` becomes ``\|`` (it would end a table cell) and every line ending
    becomes a space (it would end the table row or the list item). Quotes are left as
    they are: Markdown text is not inside an attribute.

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
    '&lt;b&gt;a\\|b&lt;/b&gt; c'
    """
    text = html.escape(str(value), quote=False).replace("|", "\\|")
    for ending in _LINE_ENDINGS:
        text = text.replace(ending, " ")
    return text
