"""Run a spec's ``ranking:`` block on the run's cases: count, estimate, decide.

Each rule's alpha is shared among its attribute's groups (Bonferroni: simultaneous
intervals at ``1 - alpha / G``). A rule is decided by the verdict table
(:func:`respai.decision.verdict_table`):

- FAIL when the intervals of the groups with enough evidence prove the limit broken
  (a group is *evidenced* when it has at least ``max(min_cell, 1)`` items, appears in at
  least ``min_lists`` lists, and its interval is defined); small groups never excuse it;
- INSUFFICIENT_EVIDENCE when some group is over ``max_missing`` (items of the group in a
  list without a position or score, or a weight), or is not evidenced, or the
  intervals straddle the limit;
- PASS only when every declared group is evidenced and the intervals prove the limit.

Missing positions are left out of the estimates, and a group whose share of them exceeds
``max_missing`` cannot PASS.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from respai.decision import max_gap_bounds, verdict_table
from respai.engine.ranking_sums import GroupSums, RankingSums, ranking_sums
from respai.exact import decimal
from respai.ranking.spec import RankingRule, RankingSpec
from respai.ranking.stats import Estimate, exposure_ratio, top_k_rate
from respai.types import Interval, Verdict, worst

__all__ = ["TEST_ID", "GroupRow", "RankingResult", "RuleResult", "decide_rule", "rule_result"]

#: The record's test id of a ranking rule.
TEST_ID = "ranking_rule"


@dataclass(frozen=True, slots=True)
class GroupRow:
    """One group's numbers for one rule: the weighted estimate, the unweighted counts."""

    group: str
    items: int
    lists: int
    missing: int
    estimate: Estimate
    unweighted: float | None
    evidenced: bool
    over_missing: bool

    def to_dict(self) -> dict[str, Any]:
        """The row as in the record's details and ``--json``."""
        e = self.estimate
        return {
            "group": self.group,
            "items": self.items,
            "lists": self.lists,
            "missing": self.missing,
            "value": e.value,
            "unweighted_value": self.unweighted,
            "se": e.se,
            "df": e.df,
            "interval": Interval.json_or_none(e.interval),
            "undefined_reason": e.undefined or e.no_interval,
            "evidenced": self.evidenced,
            "over_max_missing": self.over_missing,
        }


@dataclass(frozen=True, slots=True)
class RuleResult:
    """A rule's groups, bounds, verdict and reason."""

    rule: RankingRule
    confidence: float
    groups: tuple[GroupRow, ...]
    bounds: tuple[float, float | None] | None
    verdict: Verdict
    code: str
    reason: str


@dataclass(frozen=True, slots=True)
class RankingResult:
    """The block's outcome: the sums per attribute and one :class:`RuleResult` per rule."""

    block: RankingSpec
    sums: dict[str, RankingSums]
    rules: tuple[RuleResult, ...]
    alpha: float
    alpha_source: str
    weight: str | None
    weights: dict[str, Any] | None = None

    @property
    def verdict(self) -> Verdict:
        """The worst verdict over the rules."""
        return worst(r.verdict for r in self.rules)


def _estimate(rule: RankingRule, sums: RankingSums, level: str, g: str, conf: float) -> Estimate:
    s = sums.groups[level].get(g)
    if s is None:
        return Estimate(None, None, None, 0, "the group has no ranked item")
    if rule.metric == "top_k_rate":
        assert rule.k is not None
        return top_k_rate(s, rule.k, conf, sums.groups["count"][g].n)
    return exposure_ratio(s, sums.totals[level], conf)


def rule_result(
    rule: RankingRule, block: RankingSpec, sums: RankingSums, alpha: float
) -> RuleResult:
    """Estimate every group of the rule's attribute and decide the rule (counts only)."""
    groups = block.attributes[rule.attribute]
    confidence = 1.0 - alpha / max(1, len(groups))
    level = "weight" if "weight" in sums.groups else "count"
    rows = []
    for g in groups:
        est = _estimate(rule, sums, level, g, confidence)
        counted = sums.groups["count"].get(g)
        items = 0 if counted is None else counted.n
        lists = 0 if counted is None else counted.lists
        plain = (
            _estimate(rule, sums, "count", g, confidence).value if level == "weight" else est.value
        )
        missing = sums.missing.get(g, 0)
        over = bool(missing) and Fraction(missing, missing + items) > decimal(block.max_missing)
        evidenced = (
            items >= max(block.min_cell, 1)
            and lists >= block.min_lists
            and est.interval is not None
        )
        rows.append(GroupRow(g, items, lists, missing, est, plain, evidenced, over))
    bounds, verdict, code, reason = decide_rule(rule, rows, block.min_lists)
    return RuleResult(rule, confidence, tuple(rows), bounds, verdict, code, reason)


def _limits(
    rule: RankingRule, intervals: list[Interval]
) -> tuple[tuple[float, float | None] | None, bool, bool]:
    """``(bounds, broken, held)`` of the rule's limit over ``intervals`` (floats)."""
    kind, x = rule.limit
    if kind == "max_group_gap":
        if len(intervals) < 2:
            return None, False, False
        lo, hi = max_gap_bounds(intervals)
        return (lo, hi), lo > x, hi <= x
    if kind == "min_group_ratio":
        if len(intervals) < 2:
            return None, False, False
        from respai.decision import ratio_bounds

        lo_r, hi_r = ratio_bounds(intervals, None)
        return (lo_r, hi_r), hi_r is not None and hi_r < x, lo_r >= x
    los, his = [iv.lo for iv in intervals], [iv.hi for iv in intervals]
    if not intervals:
        return None, False, False
    if kind == "worst_group_min":
        return (min(los), min(his)), min(his) < x, min(los) >= x
    return (max(los), max(his)), max(los) > x, max(his) <= x


def decide_rule(
    rule: RankingRule, rows: list[GroupRow], min_lists: int
) -> tuple[tuple[float, float | None] | None, Verdict, str, str]:
    """The rule's bounds, verdict, reason code and reason, from its groups' intervals."""
    kind, x = rule.limit
    evidenced = [r for r in rows if r.evidenced]
    ivs = [r.estimate.interval for r in evidenced if r.estimate.interval is not None]
    bounds, broken, _ = _limits(rule, ivs)
    held = False
    if len(evidenced) == len(rows):
        _, _, held = _limits(rule, ivs)
    over = [r for r in rows if r.over_missing]
    weak = [r for r in rows if not r.evidenced]
    verdict, code = verdict_table(broken=broken, held=held, missing=bool(over), small=bool(weak))
    what = f"{rule.measure} {kind.replace('_', ' ')} {x:g}"
    shown = (
        "undefined"
        if bounds is None
        else (f"[{bounds[0]:.4f}, {'undefined' if bounds[1] is None else f'{bounds[1]:.4f}'}]")
    )
    if code == "threshold_exceeded":
        reason = f"the evidenced groups' intervals prove {what} broken (bounds {shown})"
    elif code == "too_many_missing":
        named = ", ".join(f"{r.group} {r.missing} of {r.missing + r.items}" for r in over[:5])
        reason = (
            f"{len(over)} group(s) have more than max_missing of their items without a "
            f"position ({named}); the rule cannot pass"
        )
    elif code == "small_cell":
        named = ", ".join(f"{r.group} ({r.items} items, {r.lists} lists)" for r in weak[:5])
        reason = (
            f"{len(weak)} group(s) lack the evidence to decide ({named}): each needs at "
            f"least min_cell items, {min_lists} lists (the coverage condition) and a "
            "defined interval"
        )
    elif code == "within_threshold":
        reason = f"the simultaneous intervals prove {what} holds (bounds {shown})"
    else:
        reason = f"the intervals straddle {what} (bounds {shown}): more lists are needed"
    return bounds, verdict, code, reason


def run_ranking(
    block: RankingSpec,
    source: Any,
    *,
    alpha: float,
    alpha_source: str,
    weight: str | None = None,
) -> RankingResult:
    """Count every attribute the rules read and decide every rule."""
    sums: dict[str, RankingSums] = {}
    for attr in dict.fromkeys(r.attribute for r in block.rules):
        sums[attr] = ranking_sums(
            source,
            list_col=block.list,
            order=block.order_column,
            by_score=block.score is not None,
            attribute=attr,
            groups=block.attributes[attr],
            top_k=block.top_k,
            decimals=block.decimals,
            weight=weight,
        )
    from respai.engine.ranking_sums import weight_sums

    rules = tuple(rule_result(r, block, sums[r.attribute], alpha) for r in block.rules)
    weights = None if weight is None else weight_sums(source, weight, block.decimals)
    return RankingResult(block, sums, rules, alpha, alpha_source, weight, weights)


def recompute(counts: dict[str, Any], block: RankingSpec, alpha: float) -> list[RuleResult]:
    """Every rule's numbers again from the record's ``counts.ranking`` (a verifier's path)."""
    from respai.engine.ranking_sums import ListTotals

    out = []
    for rule in block.rules:
        part = counts["attributes"][rule.attribute]
        sums = RankingSums(
            groups={
                lv: {g: GroupSums.from_json(v) for g, v in gs.items()}
                for lv, gs in part["groups"].items()
            },
            totals={lv: ListTotals.from_json(v) for lv, v in part["totals"].items()},
            missing=dict(part["missing"]),
            left_out=dict(part["left_out"]),
        )
        out.append(rule_result(rule, block, sums, alpha))
    return out
