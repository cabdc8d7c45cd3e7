"""What the record states, what it does not state, and its caveats."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from respai.render.escape import html_text
from respai.render.report.fields import as_dict, as_list

__all__ = ["claims_section"]


def claims_section(predicate: Mapping[str, Any]) -> str:
    """The record's claims (what it states and does not state) and its caveats."""
    claims = as_dict(predicate.get("claims"))

    def items(values: object) -> str:
        return "".join(f"<li>{html_text(v)}</li>" for v in as_list(values)) or "<li>—</li>"

    caveats = "".join(f"<li>{html_text(c)}</li>" for c in as_list(predicate.get("caveats")))
    return (
        '<div class="claims">'
        f"<div><h3>This record states</h3><ul>{items(claims.get('states'))}</ul></div>"
        f"<div><h3>This record does not state</h3><ul>{items(claims.get('does_not_state'))}"
        "</ul></div></div>"
        f'<h3 class="caveats-head">Caveats</h3><ul class="caveats">{caveats or "<li>—</li>"}</ul>'
    )
