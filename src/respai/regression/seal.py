"""The regression block's part of a signed record: one test record per rule, and settings.

Built through the record's one constructor (:func:`respai.record.predicate.test_record`).
The ``counts`` part holds every integer sum (:func:`respai.regression.audit.counts_of`), so
a verifier recomputes every number with :func:`respai.regression.audit.evaluate_counts`.
"""

from __future__ import annotations

from typing import Any

from respai.record.predicate import RegressionDetails, TestRecord, test_record
from respai.regression.audit import (
    SHOWN,
    TEST_ID,
    GroupStats,
    RegressionResult,
    RuleResult,
    counts_of,
)
from respai.regression.spec import METRICS
from respai.regression.stats import method_name
from respai.types import Interval

__all__ = [
    "MISSING_POLICY_BOUNDED",
    "MISSING_POLICY_UNBOUNDED",
    "group_dict",
    "missing_policy",
    "regression_caveats",
    "regression_counts",
    "regression_run_start",
    "regression_tests",
]

#: How cases without a prediction are read, with declared bounds.
MISSING_POLICY_BOUNDED = (
    "cases with a target but no prediction are counted at their worst within the declared "
    "bounds (the interval a PASS reads puts them at the metric's lowest value for its lower "
    "end and at its highest for its upper end; a FAIL stands when some such completion "
    "proves it), and a group with more than max_missing of them cannot pass"
)
#: How cases without a prediction are read, without declared bounds.
MISSING_POLICY_UNBOUNDED = (
    "cases with a target but no prediction are left out of the means (no bounds are "
    "declared to count them at their worst), and a group with more than max_missing of "
    "them cannot pass"
)


def missing_policy(res: RegressionResult) -> str:
    """The sentence the record states on cases without a prediction."""
    return MISSING_POLICY_BOUNDED if res.block.bounded else MISSING_POLICY_UNBOUNDED


def group_dict(g: GroupStats, min_cell: int | None = None) -> dict[str, Any]:
    """One group's numbers, as the record's details and ``--json`` hold them."""
    out: dict[str, Any] = {
        "group": g.label,
        "rows": g.rows,
        "cases": g.cases,
        "n": g.n,
        "missing_prediction": g.missing,
        "missing_share": None if g.missing_share is None else float(g.missing_share),
    }
    if min_cell is not None:
        out["small"] = g.n < max(min_cell, 1)
    for name in SHOWN:
        out[name] = g.values.get(name)
        out[f"{name}_interval"] = Interval.json_or_none(g.intervals.get(name))
    m = g.moments["mean_target"]
    if m.weighted:
        out["weights"] = {
            "sum": str(m.sw) if m.sw > 2**53 else m.sw,
            "n_eff": m.n_eff,
        }
        out["unweighted"] = {
            name: None if g.n == 0 else g.moments[name].sx / (g.n * m.scale) for name in SHOWN
        }
    return out


def _details(res: RegressionResult, r: RuleResult) -> RegressionDetails:
    rule = r.rule
    limit = rule.max_gap if rule.max_gap is not None else rule.worst_min
    if limit is None:
        limit = rule.worst_max
    assert limit is not None
    return {
        "rule": rule.id,
        "metric": rule.metric,
        "kind": rule.kind,
        "limit": limit,
        "alpha": r.alpha,
        "alpha_per_group": r.alpha_per_group,
        "interval_method": method_name(bounded=res.block.bounded, weighted=res.weight is not None),
        "guarantee": r.guarantee,
        "missing_policy": missing_policy(res),
        "weighted": res.weight is not None,
        "bounds": None if r.bounds is None else list(r.bounds),
        "groups": [group_dict(g, res.block.min_cell) for g in r.groups],
        "left_out": dict(r.left_out),
        "small_groups": list(r.small),
        "over_max_missing": list(r.over_missing),
        "min_cell": res.block.min_cell,
        "max_missing": res.max_missing,
    }


def _meaning(r: RuleResult) -> str:
    what = METRICS[r.rule.metric]
    if r.rule.max_gap is not None:
        return f"largest difference between two groups' {what}"
    return f"{'largest' if r.rule.worst_max is not None else 'smallest'} group {what}"


def regression_tests(res: RegressionResult) -> list[TestRecord]:
    """One ``regression_rule`` test record per rule, in declared order."""
    out = []
    for r in res.rules:
        interval = (
            None
            if r.bounds is None
            else {
                "lo": r.bounds[0],
                "hi": r.bounds[1],
                "method": "bounds from the groups' simultaneous intervals",
                "confidence": 1 - r.alpha,
            }
        )
        out.append(
            test_record(
                test_id=TEST_ID,
                test_key=f"regression:{r.rule.id}",
                grouping=list(r.rule.grouping),
                value=r.value,
                value_meaning=_meaning(r),
                interval=interval,
                threshold=r.rule.threshold(),
                verdict=r.verdict.value,
                reason=r.reason,
                method=(
                    f"{METRICS[r.rule.metric]} per group; "
                    f"{method_name(bounded=res.block.bounded, weighted=res.weight is not None)}"
                    " intervals at the rule's alpha shared among its groups (Bonferroni); "
                    f"decided on the intervals against {r.rule.kind}"
                ),
                details=_details(res, r),
                supports=[],
                undefined_reason=None
                if r.value is not None
                else "fewer groups with a case than the rule compares",
            )
        )
    return out


def regression_run_start(res: RegressionResult) -> dict[str, Any]:
    """The block's settings for the record's ``run_start`` (weights' fingerprint included)."""
    b = res.block
    out: dict[str, Any] = {
        "target": b.target,
        "prediction": b.prediction,
        "attributes": {k: list(v) for k, v in b.attributes.items()},
        "attributes_from": b.attributes_from,
        "decimals": b.decimals,
        "bounds": None
        if not b.bounded
        else {
            "target": [float(x) for x in b.target_bounds or ()],
            "prediction": [float(x) for x in b.prediction_bounds or ()],
        },
        "min_cell": b.min_cell,
        "max_missing": res.max_missing,
        "max_missing_source": res.max_missing_source,
        "alpha": res.alpha,
        "alpha_source": res.alpha_source,
        "interval_method": method_name(bounded=b.bounded, weighted=res.weight is not None),
        "missing_policy": missing_policy(res),
        "overall": group_dict(res.overall),
    }
    if res.weights is not None:
        w = dict(res.weights)
        w["sum"] = str(w["sum"]) if w["sum"] > 2**53 else w["sum"]
        w["sum_squares"] = str(w["sum_squares"]) if w["sum_squares"] > 2**53 else w["sum_squares"]
        out["weights"] = w
    return out


def regression_counts(res: RegressionResult) -> dict[str, Any]:
    """The block's ``counts`` part: every cell's exact integer sums."""
    return counts_of(res)


def regression_caveats(res: RegressionResult) -> list[str]:
    """What a reader of the record must know about the block's intervals."""
    out = []
    if res.weight is not None:
        out.append(
            "weighted means (Hajek) with a linearized t-interval on Kish's n_eff - 1 degrees "
            "of freedom: approximate; the distribution-free bound is not used with weights"
        )
    elif not res.block.bounded:
        out.append(
            "Student's t-intervals assume each group's mean is close to normal; they "
            "under-cover for heavily skewed values in small groups (declare bounds for "
            "distribution-free intervals)"
        )
    return out
