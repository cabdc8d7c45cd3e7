"""The ``ranking:`` block of a spec, as :mod:`respai.blocks` registers it.

Everything ``respai evaluate`` does with ranked lists goes through :data:`BLOCK`: its
parser, its part of a plan's criteria, the columns it reads from the run's shared cases
file, the sums and the rules, its record parts, terminal lines and ``--json`` document.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from respai.blocks import Block, CaseColumns, Metric, ParseContext, RecordParts, RunContext

if TYPE_CHECKING:
    from rich.console import Console

    from respai.ranking.audit import RankingResult
    from respai.ranking.spec import RankingSpec
    from respai.spec.parsed import Policy
    from respai.types import Verdict

__all__ = ["BLOCK", "RankingBlock"]


class RankingBlock(Block):
    """Top-k rates and exposure by group over ranked lists, declared by ``ranking:``."""

    name = "ranking"
    test_prefix = "ranking_rule"
    suite = "respai.ranking"
    test_names = MappingProxyType({"ranking_rule": "Ranking rule"})
    assesses_fairness = True

    def parse(self, raw: Any, ctx: ParseContext) -> RankingSpec:
        """The block, its attributes the ``fairness:`` block's when it declares none."""
        from respai.ranking.spec import parse_ranking

        fairness = None if ctx.fairness is None else ctx.fairness.attributes
        return parse_ranking(raw, origin=ctx.origin, fairness_attributes=fairness, data=ctx.data)

    def criteria(self, declared: RankingSpec, policy: Policy | None) -> Any:
        """Every setting that decides the rules."""
        d = declared
        return {
            "list": d.list,
            "position": d.position,
            "score": d.score,
            "attributes": {a: list(v) for a, v in d.attributes.items()},
            "top_k": list(d.top_k),
            "exposure": d.exposure,
            "decimals": d.decimals,
            "min_cell": d.min_cell,
            "min_lists": d.min_lists,
            "max_missing": d.max_missing,
            "rules": [
                {"id": r.id, "metric": r.metric, "k": r.k, "attribute": r.attribute}
                | {"limit": list(r.limit)}
                for r in d.rules
            ],
        }

    def case_columns(self, declared: RankingSpec) -> CaseColumns:
        """The groups (demographic), the list id and position or score (outputs)."""
        attrs = list(declared.attributes)
        return CaseColumns(
            demographic=attrs,
            outputs=[declared.list, declared.order_column],
            text=[*attrs, declared.list],
        )

    def run(self, ctx: RunContext) -> RankingResult:
        """The sums over the run's cases, then every rule decided on them."""
        from respai.decision import resolve_alpha
        from respai.ranking.audit import run_ranking

        fs = None if ctx.fairness is None else ctx.fairness.spec
        if fs is not None and fs.familywise is not None and fs.family_size is not None:
            alpha = float(fs.rule_alpha)
            source = f"familywise bonferroni: alpha / m ({fs.alpha:g} / {fs.family})"
        else:
            alpha, source = resolve_alpha(ctx.spec, ctx.policy)
        return run_ranking(
            ctx.declared,
            ctx.inputs.decided,  # with a join: the cases file's rows, self-ID joined in
            alpha=alpha,
            alpha_source=source,
            weight=ctx.spec.data.weight,
        )

    def verdicts(self, result: RankingResult) -> list[Verdict]:
        """One verdict per rule."""
        return [r.verdict for r in result.rules]

    def record(self, result: RankingResult) -> RecordParts:
        """Its test records, ``run_start`` and ``counts`` parts and caveats."""
        from respai.ranking.seal import ranking_counts, ranking_run_start, ranking_tests

        caveats = [
            "ranking: intervals treat each list as one unit; they are large-sample and hold "
            f"from {result.block.min_lists} lists per group on (measured coverage, "
            "docs/methods/ranking.md)"
        ]
        return RecordParts(
            tests=list(ranking_tests(result)),
            run_start=ranking_run_start(result),
            counts=ranking_counts(result),
            caveats=caveats,
        )

    def terminal(self, result: RankingResult, console: Console) -> None:
        """One table per rule: each group's value, interval, items and lists."""
        from rich.text import Text

        from respai.render.escape import terminal_text

        console.print()
        for line in ranking_lines(result):
            console.print(Text(terminal_text(line)))

    def to_json(self, result: RankingResult) -> Any:
        """The block's rules with every group's numbers."""
        from respai.ranking.seal import CONDITIONS, guarantee, ranking_counts, ranking_run_start

        return {
            "settings": ranking_run_start(result),
            "rules": [
                {
                    "id": r.rule.id,
                    "measure": r.rule.measure,
                    "attribute": r.rule.attribute,
                    "limit": list(r.rule.limit),
                    "confidence": r.confidence,
                    "groups": [g.to_dict() for g in r.groups],
                    "bounds": None if r.bounds is None else list(r.bounds),
                    "verdict": r.verdict.value,
                    "reason": r.reason,
                    "guarantee": guarantee(r),
                    "conditions": list(CONDITIONS),
                }
                for r in result.rules
            ],
            "counts": ranking_counts(result),
            "verdict": result.verdict.value,
        }

    def report_section(self, predicate: Any, tests: Sequence[Any]) -> str:
        """Per rule: its verdict, reason, guarantee and its groups' values and intervals."""
        from respai.render.report.ranking import ranking_section

        return ranking_section(predicate, tests)

    def outcome_name(self, record: Mapping[str, Any]) -> str | None:
        """``Ranking rule top10 (top_10_rate, sex)``."""
        details = record.get("details")
        d = details if isinstance(details, Mapping) else {}
        k = d.get("k")
        measure = f"top_{k}_rate" if k is not None else str(d.get("metric") or "")
        return f"Ranking rule {d.get('rule') or ''} ({measure}, {d.get('attribute') or ''})"

    def metrics(self, record: Mapping[str, Any]) -> list[Metric]:
        """Each group's value with its interval, then the rule's value."""
        details = record.get("details")
        d = details if isinstance(details, Mapping) else {}
        k = d.get("k")
        measure = f"top {k} rate" if k is not None else "exposure ratio"
        attr = str(d.get("attribute") or "")
        out = [
            Metric(
                f"ranking {measure}",
                f"{attr}: {row.get('group')}",
                row.get("value"),
                interval=row.get("interval"),
                n=row.get("items"),
                undefined=str(row.get("undefined_reason") or ""),
            )
            for row in d.get("groups") or []
            if isinstance(row, Mapping)
        ]
        why = record.get("undefined_reason")
        out.append(
            Metric(
                f"ranking {measure} ({str(d.get('limit_kind') or '').replace('_', ' ')})",
                attr,
                record.get("value"),
                undefined=why if isinstance(why, str) else "",
            )
        )
        return out


def ranking_lines(result: RankingResult) -> list[str]:
    """The terminal lines of the block: settings, one table per rule, the verdicts."""
    b = result.block
    weighted = f", weighted by '{result.weight}'" if result.weight else ""
    lines = [
        f"ranking: lists '{b.list}', ordered by {'position' if b.position else 'score'} "
        f"'{b.order_column}'{weighted}; alpha {result.alpha:g} ({result.alpha_source})"
    ]
    for r in result.rules:
        lines.append("")
        kind, x = r.rule.limit
        lines.append(
            f"{r.rule.id}: {r.rule.measure} by {r.rule.attribute}, {kind.replace('_', ' ')} "
            f"{x:g}, intervals at {r.confidence:.4g}"
        )
        lines.append(f"{'group':<20} {'items':>7} {'lists':>6} {'value':>8}  interval")
        for g in r.groups:
            e = g.estimate
            v = "—" if e.value is None else f"{e.value:.4f}"
            iv = "—" if e.interval is None else f"[{e.interval.lo:.4f}, {e.interval.hi:.4f}]"
            lines.append(f"{g.group:<20} {g.items:>7} {g.lists:>6} {v:>8}  {iv}")
        lines.append(f"{r.rule.id}: {r.verdict.value}: {r.reason}")
    lines.append("")
    lines.append(
        f"guarantee: each rule's groups' intervals are simultaneous at its alpha; a group "
        f"decides only with at least {b.min_cell} items in at least {b.min_lists} lists "
        "(the measured coverage conditions; lists independent, items within a list not)"
    )
    return lines


#: The registered block (:data:`respai.blocks.BLOCKS`).
BLOCK = RankingBlock()
