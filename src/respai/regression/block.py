"""The ``regression:`` block of a spec, as :mod:`respai.blocks` registers it.

Everything ``respai evaluate`` does with a regression block goes through :data:`BLOCK`:
its parser, its part of a plan's criteria, the columns it reads from the run's shared
cases file, its run (one count pass of exact sums, then pure functions of them), its
record parts, its terminal lines and its ``--json`` document.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from respai.blocks import Block, CaseColumns, Metric, ParseContext, RecordParts, RunContext

if TYPE_CHECKING:
    from rich.console import Console

    from respai.regression.audit import RegressionResult
    from respai.regression.spec import RegressionSpec
    from respai.spec.parsed import Policy
    from respai.types import Verdict

__all__ = ["BLOCK", "RegressionBlock"]


class RegressionBlock(Block):
    """Rules over a numeric target and prediction, declared by a spec's ``regression:``."""

    name = "regression"
    test_prefix = "regression_rule"
    suite = "respai.regression"
    test_names = MappingProxyType({"regression_rule": "Regression rule"})
    assesses_fairness = True

    def parse(self, raw: Any, ctx: ParseContext) -> RegressionSpec:
        """The block, its groups defaulting to the fairness block's attributes."""
        from respai.regression.spec import parse_regression

        return parse_regression(raw, fairness=ctx.fairness, origin=ctx.origin)

    def criteria(self, declared: RegressionSpec, policy: Policy | None) -> Any:
        """What decides the rules: columns, groups, bounds, grid, min_cell and the rules."""
        b = declared
        return {
            "target": b.target,
            "prediction": b.prediction,
            "attributes": {k: list(v) for k, v in b.attributes.items()},
            "decimals": b.decimals,
            "bounds": None
            if not b.bounded
            else {
                "target": [float(x) for x in b.target_bounds or ()],
                "prediction": [float(x) for x in b.prediction_bounds or ()],
            },
            "min_cell": b.min_cell,
            "max_missing": b.max_missing,
            "rules": [
                {"id": r.id, "metric": r.metric, "attribute": list(r.grouping), **r.threshold()}
                for r in b.rules
            ],
        }

    def case_columns(self, declared: RegressionSpec) -> CaseColumns:
        """The groups' columns (self-identified when joined), the target and prediction."""
        attrs = list(declared.used_attributes())
        return CaseColumns(
            demographic=attrs, outputs=[declared.target, declared.prediction], text=attrs
        )

    def run(self, ctx: RunContext) -> RegressionResult:
        """The block's sums counted once, then every number and verdict from them."""
        from respai.decision import resolve_alpha, resolve_max_missing
        from respai.regression.audit import count_cells, evaluate_counts
        from respai.run.family import run_family

        block: RegressionSpec = ctx.declared
        alpha, alpha_source = resolve_alpha(ctx.spec, ctx.policy)
        rule_alpha = None
        family = run_family(ctx.spec, ctx.policy)
        if family is not None:
            rule_alpha = float(family.level)
            alpha_source = (
                f"familywise bonferroni: each rule at alpha / m ({family.alpha:g} / {family.m})"
            )
        if block.max_missing is not None:
            max_missing, mm_source = block.max_missing, "spec (regression.max_missing)"
        else:
            max_missing, mm_source = resolve_max_missing(ctx.spec, ctx.policy)
        weight = ctx.spec.data.weight
        cells = count_cells(block, ctx.inputs.decided, weight)
        return evaluate_counts(
            block,
            cells,
            alpha=alpha,
            alpha_source=alpha_source,
            rule_alpha=rule_alpha,
            max_missing=max_missing,
            max_missing_source=mm_source,
            weight=weight,
        )

    def verdicts(self, result: RegressionResult) -> list[Verdict]:
        """One verdict per rule."""
        return [r.verdict for r in result.rules]

    def record(self, result: RegressionResult) -> RecordParts:
        """Its test records, ``run_start`` (with the weights' fingerprint) and ``counts``."""
        from respai.regression.seal import (
            regression_caveats,
            regression_counts,
            regression_run_start,
            regression_tests,
        )

        return RecordParts(
            tests=list(regression_tests(result)),
            run_start=regression_run_start(result),
            counts=regression_counts(result),
            caveats=[f"regression: {c}" for c in regression_caveats(result)],
        )

    def terminal(self, result: RegressionResult, console: Console) -> None:
        """The overall means, each rule's verdict and its groups' intervals."""
        from rich.text import Text

        from respai.regression.terminal import regression_lines
        from respai.render.escape import terminal_text

        console.print()
        for line in regression_lines(result):
            console.print(Text(terminal_text(line)))

    def to_json(self, result: RegressionResult) -> Any:
        """The block's document in ``respai evaluate --json``."""
        from respai.regression.seal import (
            group_dict,
            regression_run_start,
            regression_tests,
        )

        return {
            "kind": "respai.regression",
            "settings": regression_run_start(result),
            "overall": group_dict(result.overall),
            "rules": [dict(t) for t in regression_tests(result)],
            "verdict": result.verdict.value,
        }

    def report_section(self, predicate: Any, tests: Sequence[Any]) -> str:
        """Per rule: its verdict, reason, guarantee and its groups' values and intervals."""
        from respai.render.report.regression import regression_section

        return regression_section(predicate, tests)

    def outcome_name(self, record: Mapping[str, Any]) -> str | None:
        """``Regression rule <id> (<metric>)``."""
        details = record.get("details")
        if isinstance(details, Mapping):
            return f"Regression rule {details.get('rule')} ({details.get('metric')})"
        return None

    def metrics(self, record: Mapping[str, Any]) -> list[Metric]:
        """Each group's value with its interval, then the rule's value with its bounds."""
        details = record.get("details")
        details = details if isinstance(details, Mapping) else {}
        metric = str(details.get("metric") or "")
        grouping = record.get("grouping")
        out = [
            Metric(
                f"regression {metric.replace('_', ' ')}",
                Metric.slice_of(grouping, row.get("group")),
                row.get(metric),
                interval=row.get(f"{metric}_interval"),
                n=row.get("n"),
                undefined="no case with a target and a prediction",
            )
            for row in details.get("groups") or []
            if isinstance(row, Mapping)
        ]
        bounds = details.get("bounds")
        undefined = record.get("undefined_reason")
        out.append(
            Metric(
                f"regression rule {details.get('rule')}",
                " × ".join(str(a) for a in grouping) if isinstance(grouping, list) else "",
                record.get("value"),
                bounds=None if not isinstance(bounds, list) else (bounds[0], bounds[1]),
                undefined=undefined if isinstance(undefined, str) else "",
            )
        )
        return out


#: The registered block (:data:`respai.blocks.BLOCKS`).
BLOCK = RegressionBlock()
