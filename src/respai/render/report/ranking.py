"""The ranking section of a record's report: per rule, its groups' values and intervals.

For each ``ranking_rule`` test record: the rule's key, verdict, reason and guarantee, then a
table of its groups (the group, its items, its value and interval), laid out by
:mod:`respai.render.report.block_rules`.
"""

from __future__ import annotations

from collections.abc import Sequence

from respai.render.report.bind import At
from respai.render.report.block_rules import rules_section

__all__ = ["ranking_section"]


def _fields(details: At, g: At) -> tuple[At, At, At]:
    """A group's items, its value and its interval."""
    return g["items"], g["value"], g["interval"]


def ranking_section(predicate: At, tests: Sequence[At]) -> str:
    """The section: one block per ``ranking_rule`` test record, in record order."""
    return rules_section("ranking", tests, _fields)
