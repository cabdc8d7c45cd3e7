"""The text of a rendered report as its script checks it: bound elements and loose text.

:func:`page_text` walks ``<main>`` the way ``report.js`` does: it skips ``<noscript>`` and
the elements the script writes (:data:`~respai.render.report.verification.SCRIPT_OWNED`),
gives every element with ``data-bind`` as one :class:`Bound` (its whole text, children
included) and every other non-blank text node as loose text, which must be a fixed label
(:data:`~respai.render.report.labels.LABELS`). Tests use it to require that every visible
text is bound or a label, and that every bound text is its value's format.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser

from respai.render.report.verification import SCRIPT_OWNED

__all__ = ["Bound", "PageText", "page_text"]

_VOID = frozenset(
    {
        "area", "base", "br", "col", "embed", "hr", "img",
        "input", "link", "meta", "source", "track", "wbr",
    }
)  # fmt: skip


@dataclass
class Bound:
    """One bound element: its attributes and its whole text."""

    pointer: str
    fmt: str
    arg: str | None
    of_key: bool
    tag: str
    classes: tuple[str, ...]
    record: str | None
    text: str = ""


@dataclass
class PageText:
    """What :func:`page_text` found in ``<main>``."""

    bound: list[Bound] = field(default_factory=list)
    loose: list[str] = field(default_factory=list)
    tags: set[str] = field(default_factory=set)
    attributes: set[str] = field(default_factory=set)
    hrefs: set[str] = field(default_factory=set)


class _Walker(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found = PageText()
        self.stack: list[str] = []
        self.in_main = False
        self.skip_depth: int | None = None
        self.bound_at: list[tuple[int, Bound]] = []
        self.svg_depth = 0
        self.records: list[tuple[int, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: (v or "") for k, v in attrs}
        if tag == "main":
            self.in_main = True
        if self.in_main and self.skip_depth is None:
            if not self.svg_depth:
                self.found.tags.add(tag)
            self.found.attributes.update(k.lower() for k in a)
            if "href" in a:
                self.found.hrefs.add(a["href"])
        if tag == "svg":
            self.svg_depth += 1
        if tag in _VOID:
            return
        self.stack.append(tag)
        depth = len(self.stack)
        if not self.in_main or self.skip_depth is not None:
            return
        if tag == "noscript" or a.get("id") in SCRIPT_OWNED:
            self.skip_depth = depth
            return
        if "data-record" in a:
            self.records.append((depth, a["data-record"]))
        if "data-bind" in a and not self.bound_at:
            b = Bound(
                pointer=a["data-bind"],
                fmt=a.get("data-fmt", ""),
                arg=a.get("data-arg") if "data-arg" in a else None,
                of_key=a.get("data-of") == "key",
                tag=tag,
                classes=tuple(a.get("class", "").split()),
                record=self.records[-1][1] if self.records else None,
            )
            self.bound_at.append((depth, b))
            self.found.bound.append(b)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag not in _VOID:
            self.handle_starttag(tag, attrs)
            self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        if tag in _VOID or tag not in self.stack:
            return
        depth = len(self.stack) - self.stack[::-1].index(tag)
        if tag == "svg":
            self.svg_depth -= 1
        del self.stack[depth - 1 :]
        if self.skip_depth is not None and depth <= self.skip_depth:
            self.skip_depth = None
        while self.bound_at and self.bound_at[-1][0] >= depth:
            self.bound_at.pop()
        while self.records and self.records[-1][0] >= depth:
            self.records.pop()
        if tag == "main":
            self.in_main = False

    def handle_data(self, data: str) -> None:
        if not self.in_main or self.skip_depth is not None:
            return
        if self.bound_at:
            self.bound_at[-1][1].text += data
        elif data.strip():
            self.found.loose.append(data)


def page_text(html: str) -> PageText:
    """The bound elements and the loose text nodes of a report's ``<main>``."""
    walker = _Walker()
    walker.feed(html)
    walker.close()
    return walker.found
