"""Binding the page's text to the signed payload.

Every text the report takes from the record is written through :class:`At`: a value of
the decoded Statement together with its JSON Pointer (RFC 6901) from the Statement's
root. :meth:`At.show` writes the value formatted by one of the named formats of
:mod:`respai.render.report.formats` inside an element that carries
``data-bind="<pointer>"`` and ``data-fmt="<format>"``, so the page's script can look the
value up in the *signed* payload, format it the same way and compare the result with
what the page shows. :meth:`At.show_key` does the same for an object member's name
(``data-of="key"``).

Text that is not bound is a fixed label of the renderer and must be one of
:data:`respai.render.report.labels.LABELS`; the page's script refuses any other.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from respai.render.escape import html_text
from respai.render.report.formats import FORMATS

__all__ = ["At", "pointer"]

Key = str | int


def pointer(path: tuple[Key, ...]) -> str:
    """The JSON Pointer of ``path`` (``~`` as ``~0``, ``/`` as ``~1``; ``""`` is the root).

    Examples
    --------
    >>> pointer(("predicate", "records", 3, "verdict"))
    '/predicate/records/3/verdict'
    >>> pointer(("a/b", "c~d"))
    '/a~1b/c~0d'
    """
    return "".join("/" + str(k).replace("~", "~0").replace("/", "~1") for k in path)


@dataclass(frozen=True, slots=True)
class At:
    """A value of the decoded Statement and where it is, read tolerantly.

    Attributes
    ----------
    value
        The JSON value, or ``None`` when the path does not exist (a missing member, an
        index past the end, a step into something that is not an object or a list).
    path
        The member names and list indexes from the Statement's root.
    json_pointer
        :func:`pointer` of ``path``, extended one step at a time as the page walks down
        (the root's is ``""``); give it whenever a ``path`` is given.
    """

    value: Any
    path: tuple[Key, ...] = ()
    json_pointer: str = ""

    def __getitem__(self, key: Key) -> At:
        """The member ``key`` of an object, or the element ``key`` of a list."""
        v = self.value
        child: Any = None
        if isinstance(key, str):
            # a parsed record's objects are dicts: the abstract check only for the rest
            if type(v) is dict or isinstance(v, Mapping):
                child = v.get(key)
        elif isinstance(v, list) and 0 <= key < len(v):
            child = v[key]
        step = str(key)
        if "~" in step or "/" in step:
            step = step.replace("~", "~0").replace("/", "~1")
        return At(child, (*self.path, key), f"{self.json_pointer}/{step}")

    def get(self, key: Key) -> Any:
        """The raw value of ``self[key]``."""
        return self[key].value

    def has(self, key: str) -> bool:
        """Whether the value is an object with the member ``key``."""
        return isinstance(self.value, Mapping) and key in self.value

    def elements(self) -> list[At]:
        """The elements of a list (none if the value is not a list)."""
        return [self[i] for i in range(len(self.value))] if isinstance(self.value, list) else []

    def items(self) -> list[tuple[str, At]]:
        """The members of an object, in the record's order (none if not an object)."""
        if not isinstance(self.value, Mapping):
            return []
        return [(k, self[k]) for k in self.value if isinstance(k, str)]

    def mapping(self) -> Mapping[str, Any]:
        """The value if it is an object, else an empty one."""
        return self.value if isinstance(self.value, Mapping) else {}

    def text(self, fmt: str = "text", arg: str | None = None) -> str:
        """The value as the page shows it (plain text, not yet escaped)."""
        return FORMATS[fmt](self.value, arg)

    def show(
        self,
        fmt: str = "text",
        arg: str | None = None,
        *,
        tag: str = "span",
        cls: str = "",
        attrs: str = "",
        bold_first_word: bool = False,
    ) -> str:
        """The value formatted by ``fmt``, in an element bound to its path (HTML).

        Parameters
        ----------
        fmt
            The name of a format in :data:`respai.render.report.formats.FORMATS`.
        arg
            The format's argument (``data-arg``), when it takes one.
        tag, cls, attrs
            The element, its class and any further (already escaped) attributes.
        bold_first_word
            Write the text's first word in ``<b>`` (the element's text is unchanged).
        """
        text = self.text(fmt, arg)
        element = self._element(text, fmt, arg, tag, cls, attrs, "")
        first, space, rest = text.partition(" ")
        if bold_first_word and space:
            opening = element[: element.index(">") + 1]
            return f"{opening}<b>{html_text(first)}</b> {html_text(rest)}</{tag}>"
        return element

    def show_key(self, fmt: str = "text", *, tag: str = "span", cls: str = "") -> str:
        """The member name this value sits under, formatted by ``fmt`` and bound (HTML)."""
        key = self.path[-1] if self.path else None
        return self._element(FORMATS[fmt](key, None), fmt, None, tag, cls, "", "key")

    def _element(
        self, text: str, fmt: str, arg: str | None, tag: str, cls: str, attrs: str, of: str
    ) -> str:
        parts = [f'data-bind="{html_text(self.json_pointer)}"', f'data-fmt="{fmt}"']
        if arg is not None:
            parts.append(f'data-arg="{html_text(arg)}"')
        if of:
            parts.append(f'data-of="{of}"')
        if cls:
            parts.insert(0, f'class="{cls}"')
        if attrs:
            parts.append(attrs)
        return f"<{tag} {' '.join(parts)}>{html_text(text)}</{tag}>"
