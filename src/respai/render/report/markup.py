"""The report's two definition lists: the fact grid under the verdict and the key-value list."""

from __future__ import annotations

from collections.abc import Sequence

from respai.render.escape import html_text

__all__ = ["definition_list", "facts_grid"]


def facts_grid(rows: Sequence[tuple[str, str]]) -> str:
    """A definition grid; values are already-escaped HTML."""
    body = "".join(f"<div><dt>{html_text(k)}</dt><dd>{v}</dd></div>" for k, v in rows)
    return f'<dl class="facts">{body}</dl>'


def definition_list(rows: Sequence[tuple[str, str]]) -> str:
    """A key-value list; keys are text, values are already-escaped HTML."""
    body = "".join(f"<dt>{html_text(k)}</dt><dd>{v}</dd>" for k, v in rows)
    return f'<dl class="kv">{body}</dl>'
