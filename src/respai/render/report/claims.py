"""What the record states, what it does not state, and its caveats."""

from __future__ import annotations

from respai.render.report.bind import At

__all__ = ["claims_section"]


def _items(values: At) -> str:
    return "".join(v.show("text0", tag="li") for v in values.elements()) or "<li>—</li>"


def claims_section(predicate: At) -> str:
    """The record's claims (what it states and does not state) and its caveats."""
    claims = predicate["claims"]
    return (
        '<div class="claims">'
        f"<div><h3>This record states</h3><ul>{_items(claims['states'])}</ul></div>"
        f"<div><h3>This record does not state</h3><ul>{_items(claims['does_not_state'])}"
        "</ul></div></div>"
        f'<h3 class="caveats-head">Caveats</h3><ul class="caveats">'
        f"{_items(predicate['caveats'])}</ul>"
    )
