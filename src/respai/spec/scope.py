"""The ``scope:`` block: the scope memo an audit fixes before any data is seen.

Every key is optional text, copied as written: the decision point being audited, the
type of output it produces, the population, the time window, the categories compared,
the rule that makes a difference a finding, the auditor and their independence
statement. ``respai plan`` seals these with the rest of the criteria.
"""

from __future__ import annotations

from typing import Any

from respai.spec.checks import _check_keys, _Ctx, _mapping, _text
from respai.spec.parsed import ScopeSpec

__all__ = ["SCOPE_KEYS", "parse_scope"]

SCOPE_KEYS = (
    "decision_point",
    "output_type",
    "population",
    "window",
    "categories",
    "flag_rule",
    "auditor",
    "independence_statement",
)
"""The keys a ``scope:`` block may hold, in the order the plan lists them."""


def parse_scope(ctx: _Ctx, block: Any) -> ScopeSpec:
    """Validate the ``scope:`` block into a :class:`~respai.spec.parsed.ScopeSpec`.

    Raises
    ------
    respai.errors.SpecError
        For a block that is not a mapping, an unknown key (with "did you mean") or a
        value that is not text.
    """
    scope_block = _mapping(ctx, "scope", block if block is not None else {})
    _check_keys(ctx, "scope", scope_block, SCOPE_KEYS, ())
    return ScopeSpec(**{k: _text(ctx, f"scope.{k}", v) for k, v in scope_block.items()})
