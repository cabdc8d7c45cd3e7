"""The regression section of a record's report: per rule, its groups' values and intervals.

For each ``regression_rule`` test record: the rule's name, verdict and reason, then a table
of its groups (the group, its cases with a prediction, the rule's metric and its interval).
Laid out by :mod:`respai.render.report.block_rules`.
"""

from __future__ import annotations

from collections.abc import Sequence

from respai.render.report.bind import At
from respai.render.report.block_rules import rules_section

__all__ = ["regression_section"]


def _fields(details: At, g: At) -> tuple[At, At, At]:
    """A group's cases with a prediction, its value of the rule's metric and its interval."""
    metric = details.get("metric")
    if not isinstance(metric, str):
        return g["n"], g["_"], g["_"]
    return g["n"], g[metric], g[f"{metric}_interval"]


def regression_section(predicate: At, tests: Sequence[At]) -> str:
    """The section: one block per ``regression_rule`` test record, in record order."""
    return rules_section("regression", tests, _fields)
