"""The ``ll144:`` block of a spec, as :mod:`respai.blocks` registers it.

Everything ``respai evaluate`` does with an LL144 block goes through :data:`BLOCK`: its
parser, its part of a plan's criteria, the count pass it shares with the group rules (one
scan of the decisions for both), the audit, its record parts and its terminal lines.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from respai.blocks import Block, CaseColumns, Metric, ParseContext, RecordParts, RunContext
from respai.types import Verdict

if TYPE_CHECKING:
    from rich.console import Console

    from respai import engine
    from respai.ll144.audit import LL144Result
    from respai.ll144.scan import AuditData
    from respai.ll144.spec import LL144Spec
    from respai.load import CountPass, Inputs
    from respai.spec.parsed import Policy, Spec

__all__ = ["BLOCK", "LL144Block"]


class LL144Block(Block):
    """The NYC Local Law 144 bias audit declared by a spec's ``ll144:`` block."""

    name = "ll144"
    test_prefix = "ll144"
    suite = "respai.ll144"
    test_names = MappingProxyType({"ll144_impact_ratio": "LL144 impact ratio"})

    def parse(self, raw: Any, ctx: ParseContext) -> LL144Spec:
        """The block, checked against the spec's ``data:`` and ``system:``."""
        from respai.ll144.spec import _check_ll144_with_data, parse_ll144

        block = parse_ll144(raw, origin=ctx.origin)
        assert ctx.data is not None and ctx.system is not None  # parsed before the blocks
        return _check_ll144_with_data(ctx.checks, block, ctx.data, ctx.system)

    def criteria(self, declared: LL144Spec, policy: Policy | None) -> Any:
        """Every setting of the block, as plain values."""
        from respai.plan.criteria import criteria_values

        return criteria_values(declared)

    def case_columns(self, declared: LL144Spec) -> CaseColumns:
        """Sex and race (self-identified when joined), the decision or score, the stages."""
        ll = declared
        return CaseColumns(
            demographic=[ll.sex, ll.race],
            outputs=[c for c in (ll.selected, ll.score) if c] + list(ll.stages),
            text=[ll.sex, ll.race, *ll.stages, *([ll.selected] if ll.selected else [])],
        )

    def one_scan(
        self, spec: Spec, inputs: Inputs
    ) -> tuple[CountPass, Callable[[], AuditData | None]]:
        """The group rules' count pass, tallying the audit's counts in the same scan.

        Returns the count pass and a getter for the audit's counts. The LL144 columns and
        ids are checked first, before anything is scanned.
        """
        from respai import engine
        from respai.ll144.scan import plan_audit

        plan = plan_audit(spec, inputs)
        found: dict[str, AuditData] = {}

        def count(
            source: engine.Source,
            keys: Sequence[str],
            probability: str | None,
            bins: int,
            non_null: Sequence[str],
        ) -> engine.Cube:
            cube, rows = engine.count_cube_and_groups(
                plan.source,
                keys,
                probability,
                bins,
                non_null,
                plan.keys,
                value=plan.value,
                cube_left_only=inputs.joined is not None,
            )
            found["audit"] = plan.finish(rows)
            return cube

        return count, lambda: found.get("audit")

    def run(self, ctx: RunContext) -> LL144Result:
        """The audit, from the counts the shared scan tallied."""
        from respai.ll144.audit import run_ll144

        return run_ll144(ctx.spec, policy=ctx.policy, inputs=ctx.inputs, audit_data=ctx.shared)

    def verdicts(self, result: LL144Result) -> list[Verdict]:
        """MANUAL_REVIEW when the audit has tables: its findings are judged, not gated."""
        return [Verdict.MANUAL_REVIEW] if result.tables else []

    def record(self, result: LL144Result) -> RecordParts:
        """Its test records, ``run_start`` and ``counts`` parts, claims and caveats."""
        from respai.ll144.seal import (
            LL144_CLAIMS_DOES_NOT_STATE,
            LL144_CLAIMS_STATES,
            ll144_caveats,
            ll144_counts,
            ll144_run_start,
            ll144_tests,
        )

        return RecordParts(
            tests=list(ll144_tests(result)),
            run_start=ll144_run_start(result),
            counts=ll144_counts(result),
            claims={"states": LL144_CLAIMS_STATES, "does_not_state": LL144_CLAIMS_DOES_NOT_STATE},
            caveats=[f"LL144: {c}" for c in ll144_caveats(result)],
        )

    def terminal(self, result: LL144Result, console: Console) -> None:
        """The audit's tables, after a line on how its verdicts are recorded."""
        from rich.text import Text

        from respai.ll144.terminal import render_ll144

        console.print()
        console.print(
            Text(
                "ll144: every category's impact ratio is a test record with verdict "
                "MANUAL_REVIEW (the law sets no pass mark; an auditor judges the findings)."
            )
        )
        render_ll144(result, console)
        console.print()

    def to_json(self, result: LL144Result) -> Any:
        """The document ``respai ll144 --json`` prints."""
        return result.to_dict()

    def outcome_name(self, record: Mapping[str, Any]) -> str | None:
        """``LL144 impact ratio, sex x race: Female`` (the table and the category)."""
        details = record.get("details")
        table = details.get("table") if isinstance(details, Mapping) else None
        category = details.get("category") if isinstance(details, Mapping) else None
        if isinstance(table, str) and isinstance(category, str):
            return f"LL144 impact ratio, {table.replace('_x_', ' x ')}: {category}"
        key = record.get("test_key")
        return f"LL144 impact ratio {key.removeprefix('ll144:') if isinstance(key, str) else ''}"

    def metrics(self, record: Mapping[str, Any]) -> list[Metric]:
        """A category's selection (or scoring) rate and its impact ratio."""
        details = record.get("details")
        details = details if isinstance(details, Mapping) else {}
        table = str(details.get("table") or "").replace("_x_", " × ")
        label = f"{table}: {details.get('category') or ''}"
        undefined = record.get("undefined_reason")
        return [
            Metric(
                "ll144 rate",
                label,
                details.get("rate"),
                interval=details.get("rate_interval"),
                n=details.get("applicants"),
                undefined="no applicant in the category",
            ),
            Metric(
                "ll144 impact ratio",
                label,
                record.get("value"),
                n=details.get("applicants"),
                undefined=undefined if isinstance(undefined, str) else "",
            ),
        ]


#: The registered block (:data:`respai.blocks.BLOCKS`).
BLOCK = LL144Block()
