"""The ranking block's part of a signed record: one test record per rule, the counts."""

from __future__ import annotations

from typing import Any

from respai.ranking.audit import TEST_ID, RankingResult, RuleResult
from respai.ranking.stats import EXPOSURE_INTERVAL, RATE_INTERVAL
from respai.record.predicate import RankingDetails, TestRecord, test_record

__all__ = ["CONDITIONS", "guarantee", "ranking_counts", "ranking_run_start", "ranking_tests"]

#: When a ranking rule's guarantee holds, as the record and the docs state it.
CONDITIONS = (
    "the lists are independent draws from the lists the verdict speaks about (items within "
    "a list may depend on each other in any way)",
    "every group deciding a verdict has at least min_cell items (100 by default) in at "
    "least min_lists lists (20 by default): the measured coverage of the intervals is at "
    "or above nominal there; a group below cannot decide a PASS or a FAIL",
    "the intervals are large-sample (Korn-Graubard for the top-k rates; a widened delta "
    "method on the log scale for the exposure ratio): their coverage is measured in "
    "simulation, not exact",
    "items without a position (or score, or weight) are left out; a group with more than "
    "max_missing of them cannot PASS",
)


def guarantee(r: RuleResult) -> str:
    """The rule's guarantee, in one sentence (its conditions are :data:`CONDITIONS`)."""
    return (
        f"each group's interval at {r.confidence:.4g} (the rule's alpha shared by its "
        f"{len(r.groups)} groups, Bonferroni), so P(a wrong PASS or a wrong FAIL of this "
        "rule) <= alpha under the conditions stated"
    )


def _details(res: RankingResult, r: RuleResult) -> RankingDetails:
    kind, x = r.rule.limit
    return {
        "rule": r.rule.id,
        "metric": r.rule.metric,
        "k": r.rule.k,
        "attribute": r.rule.attribute,
        "limit_kind": kind,
        "limit": x,
        "alpha": res.alpha,
        "alpha_source": res.alpha_source,
        "confidence": r.confidence,
        "weighted": res.weight is not None,
        "groups": [g.to_dict() for g in r.groups],
        "bounds": None if r.bounds is None else list(r.bounds),
        "reason_code": r.code,
        "min_cell": res.block.min_cell,
        "min_lists": res.block.min_lists,
        "max_missing": res.block.max_missing,
        "guarantee": guarantee(r),
        "conditions": list(CONDITIONS),
    }


def _value(r: RuleResult) -> tuple[float | None, str | None]:
    """The rule's value: the estimate of what its limit bounds (``None`` with a reason)."""
    kind, _ = r.rule.limit
    vals = [g.estimate.value for g in r.groups]
    if any(v is None for v in vals) or not vals:
        return None, "some declared group has no ranked item"
    got = [v for v in vals if v is not None]
    if kind == "max_group_gap":
        return max(got) - min(got), None
    if kind == "min_group_ratio":
        top = max(got)
        return (None, "every group's value is 0") if top == 0 else (min(got) / top, None)
    return (min(got), None) if kind == "worst_group_min" else (max(got), None)


def ranking_tests(res: RankingResult) -> list[TestRecord]:
    """One ``ranking_rule`` test record per rule, in declared order."""
    out = []
    for r in res.rules:
        kind, x = r.rule.limit
        value, why = _value(r)
        method = RATE_INTERVAL if r.rule.metric == "top_k_rate" else EXPOSURE_INTERVAL
        out.append(
            test_record(
                test_id=TEST_ID,
                test_key=f"ranking:{r.rule.id}",
                grouping=[r.rule.attribute],
                value=value,
                value_meaning=f"{r.rule.measure}: {kind.replace('_', ' ')} over the groups",
                interval=None,
                threshold={"comparison": kind, "value": x, "source": "spec"},
                verdict=r.verdict.value,
                reason=r.reason,
                method=(
                    f"{r.rule.measure} per group, lists as clusters; {method}; simultaneous "
                    "over the groups (Bonferroni); decided by the verdict table"
                ),
                details=_details(res, r),
                supports=[],
                undefined_reason=why,
            )
        )
    return out


def ranking_counts(res: RankingResult) -> dict[str, Any]:
    """Every exact sum, per attribute: a verifier recomputes every number from these."""
    return {
        "decimals": res.block.decimals,
        "attributes": {
            attr: {
                "groups": {
                    lv: {g: s.to_json() for g, s in sorted(gs.items())}
                    for lv, gs in sums.groups.items()
                },
                "totals": {lv: t.to_json() for lv, t in sums.totals.items()},
                "missing": dict(sums.missing),
                "left_out": dict(sums.left_out),
            }
            for attr, sums in res.sums.items()
        },
    }


def ranking_run_start(res: RankingResult) -> dict[str, Any]:
    """The block's settings (and the weights' fingerprint) for the record's ``run_start``."""
    b = res.block
    out: dict[str, Any] = {
        "list": b.list,
        "position": b.position,
        "score": b.score,
        "ties": None if b.score is None else "average position of the tie",
        "attributes": {a: list(v) for a, v in b.attributes.items()},
        "attributes_from": b.attributes_source,
        "top_k": list(b.top_k),
        "exposure": "1 / log2(1 + position)",
        "decimals": b.decimals,
        "min_cell": b.min_cell,
        "min_lists": b.min_lists,
        "max_missing": b.max_missing,
        "alpha": res.alpha,
        "alpha_source": res.alpha_source,
        "weights": None,
    }
    if res.weights is not None:
        out["weights"] = dict(res.weights)
    return out
