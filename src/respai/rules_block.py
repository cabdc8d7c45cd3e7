"""The group rules of ``fairness.rules`` as :mod:`respai.blocks` registers them.

``fairness:`` is the spec's first frame block: it names the cases file, the label,
prediction and attribute columns, the groups, and the rules. Every command reads it, so
the runner counts it before any block runs (one pass: :func:`respai.run.group_rules.run_rules`,
which ``respai fairness`` runs too, decides the rules on those counts), and this block's
result is that count pass's :class:`~respai.results.FairnessResult`. The block gives the
rules' part of a plan's criteria, their verdicts, test records, terminal lines, names and
reasons in exports, and measured values in a CycloneDX BOM.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from respai.blocks import Block, CaseColumns, Metric, ParseContext, RecordParts, RunContext
from respai.record.reading import as_dict, text

if TYPE_CHECKING:
    from rich.console import Console

    from respai.record.predicate import TestRecord
    from respai.results import FairnessResult
    from respai.rules import RuleResult
    from respai.spec.parsed import FairnessSpec, Policy, Spec
    from respai.types import Verdict

__all__ = ["BLOCK", "RulesBlock"]

#: What a rule's value is, by the rule's kind.
_VALUE_MEANING = {
    "max_group_gap": "largest gap between group rates",
    "min_group_ratio": "smallest ratio of a group's rate to the reference rate",
    "worst_group": "worst group rate",
}


class RulesBlock(Block):
    """The declared group rules: each rate's gap, ratio or worst group, per grouping."""

    name = "fairness"
    kind = "rule"
    test_prefix = "group_rule"
    suite = "respai.rules"
    frame = True
    assesses_fairness = True
    test_names = MappingProxyType({"group_rule": "Group rule", "calibration": "Calibration"})

    def parse(self, raw: Any, ctx: ParseContext) -> FairnessSpec:
        """The ``fairness:`` block (with ``cases``, ``format``, ``delimiter`` from ``data:``)."""
        from respai.spec.fairness import parse_fairness

        return parse_fairness(raw, base_dir=ctx.base_dir, origin=ctx.origin)

    def declared(self, spec: Spec) -> FairnessSpec | None:
        """The spec's ``fairness:`` block (``None``: an LL144-only or paired-only spec)."""
        return spec.fairness_block

    def criteria(self, declared: FairnessSpec, policy: Policy | None) -> Any:
        """The block in force once the policy is applied: columns, groups, every rule."""
        from respai.plan.criteria import fairness_criteria
        from respai.spec.policy import apply_policy

        return fairness_criteria(apply_policy(declared, policy))

    def case_columns(self, declared: FairnessSpec) -> CaseColumns:
        """The attributes (self-identified when joined), label, prediction, probability, unit."""
        fb = declared
        return CaseColumns(
            demographic=list(fb.attributes),
            outputs=[fb.label, fb.prediction, *(c for c in (fb.probability, fb.unit) if c)],
            text=[*fb.attributes, fb.label, fb.prediction, *([fb.unit] if fb.unit else [])],
        )

    def run(self, ctx: RunContext) -> FairnessResult:
        """The count pass's result: the rules were decided on its counts."""
        assert ctx.fairness is not None  # the runner counts before any block runs
        return ctx.fairness

    def verdicts(self, result: FairnessResult) -> list[Verdict]:
        """One verdict per declared rule."""
        return [r.verdict for r in result.rules]

    def record(self, result: FairnessResult) -> RecordParts:
        """A test record per rule (the count pass's own caveats are the run's)."""
        return RecordParts(tests=[_rule_record(r) for r in result.rules])

    def terminal(self, result: FairnessResult, console: Console) -> None:
        """One line per rule with its verdict and reason."""
        from respai.render.terminal import render_rule_lines

        render_rule_lines(result.rules, console)

    def outcome_name(self, record: Mapping[str, Any]) -> str:
        """``Group rule <id>``."""
        return f"Group rule {text(record.get('test_key')).removeprefix('rule:')}"

    def outcome_reason(self, record: Mapping[str, Any]) -> str | None:
        """The rule's own reason, from its details."""
        details = record.get("details")
        if not isinstance(details, Mapping):
            return None
        return text(details.get("reason")) or None

    def metrics(self, record: Mapping[str, Any]) -> list[Metric]:
        """Each group's rate (Bonferroni-adjusted interval) and the largest gap's bounds."""
        from respai.blocks import group_rule_metrics

        details = as_dict(record.get("details"))
        where = f"rule {text(details.get('id'))}"
        return group_rule_metrics(
            record, where, "no case in the group has a prediction", record.get("value")
        )


def _rule_record(r: RuleResult) -> TestRecord:
    from respai.battery import TestId
    from respai.controls import load_controls
    from respai.record.compact import COMPACT_MIN_GROUPS
    from respai.record.predicate import test_record
    from respai.results import rule_dict
    from respai.rules import observed

    value, undefined = observed(r)
    # over a compact grouping the record derives the per-group rows from the counts
    detail = rule_dict(r, group_rows=len(r.groups) <= COMPACT_MIN_GROUPS)
    return test_record(
        test_id=TestId.GROUP_RULE,
        test_key=f"rule:{r.rule.id}",
        grouping=list(r.rule.attributes),
        value=value,
        value_meaning=_VALUE_MEANING[r.rule.kind],
        interval=None,
        threshold=detail["threshold"],
        verdict=r.verdict.value,
        reason=r.reason,
        method=detail["interval_method"],
        details=detail,
        supports=[c.to_dict() for c in load_controls().for_test(TestId.GROUP_RULE)],
        undefined_reason=undefined,
    )


#: The registered block (:data:`respai.blocks.BLOCKS`).
BLOCK = RulesBlock()
