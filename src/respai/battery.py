"""The RESPAI test battery (seed 000), as pure functions of counts.

Each test yields a :class:`TestResult`: the value, its 95% interval, the threshold it
was compared with (and where that threshold came from), the decision rule, the verdict,
and the per-group numbers it was computed from. Undefined values are ``None`` with a
reason and read INSUFFICIENT_EVIDENCE.

Decision rules. ``estimate`` (the default): PASS when the estimate is on the right side
of the threshold, FAIL otherwise, and ``uncertain`` marks a verdict whose interval
crosses the threshold. ``interval`` (a policy may choose it per test): PASS when the
whole interval is on the right side, FAIL when the whole interval is on the wrong side,
INSUFFICIENT_EVIDENCE otherwise.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from respai import stats
from respai.counts import Cell, Counts, RankSums
from respai.types import Interval, Undefined, Verdict

__all__ = [
    "BATTERY",
    "DEFAULT_THRESHOLDS",
    "Decision",
    "TestResult",
    "Threshold",
    "decide",
    "run_battery",
]


class Decision(enum.StrEnum):
    """How a value is compared with its threshold."""

    ESTIMATE = "estimate"
    INTERVAL = "interval"


@dataclass(frozen=True, slots=True)
class Threshold:
    """A threshold: ``value`` compared with ``comparison`` (``>=`` or ``<=``)."""

    comparison: str
    value: float
    source: str
    decision: Decision = Decision.ESTIMATE

    def holds(self, x: float) -> bool:
        """Whether ``x`` is on the passing side."""
        return x >= self.value if self.comparison == ">=" else x <= self.value

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form for the record."""
        return {
            "comparison": self.comparison,
            "value": self.value,
            "source": self.source,
            "decision": self.decision.value,
        }


_SEED = "default (seed 000 methods table)"
#: Default thresholds and where they come from (seed 000's table).
DEFAULT_THRESHOLDS: dict[str, Threshold] = {
    "accuracy": Threshold(">=", 0.70, f"{_SEED}: floor for a usable screen"),
    "auc": Threshold(">=", 0.70, f"{_SEED}: floor for a usable screen"),
    "impact_ratio": Threshold(">=", 0.80, f"{_SEED}: four-fifths rule, 29 CFR 1607.4(D)"),
    "selection_rate_diff": Threshold("<=", 0.10, f"{_SEED}: convention"),
    "equal_opportunity_diff": Threshold("<=", 0.10, f"{_SEED}: convention"),
    "perturbation_stability": Threshold(">=", 0.90, f"{_SEED}: convention"),
    "completeness": Threshold(">=", 0.98, f"{_SEED}: data-adequacy floor"),
    "class_balance": Threshold(">=", 0.10, f"{_SEED}: data-adequacy floor"),
}
#: Every battery test, in report order.
BATTERY: tuple[str, ...] = tuple(DEFAULT_THRESHOLDS)
#: Tests computed once per attribute and per declared intersection.
PER_GROUPING = ("impact_ratio", "selection_rate_diff", "equal_opportunity_diff")


@dataclass(frozen=True, slots=True)
class TestResult:
    """One battery test's outcome."""

    test_id: str
    grouping: tuple[str, ...] | None
    value: float | None
    interval: Interval | None
    undefined: Undefined | None
    threshold: Threshold | None
    verdict: Verdict
    uncertain: bool
    reason: str
    method: str
    details: Mapping[str, Any] = field(default_factory=dict)

    @property
    def key(self) -> str:
        """``impact_ratio:sex`` for a per-grouping test, the test id otherwise."""
        return f"{self.test_id}:{'×'.join(self.grouping)}" if self.grouping else self.test_id


def decide(
    value: float | None, interval: Interval | None, threshold: Threshold
) -> tuple[Verdict, bool, str]:
    """Verdict, ``uncertain`` flag and a sentence for one value against a threshold.

    Examples
    --------
    >>> t = Threshold(">=", 0.8, "default")
    >>> decide(0.85, Interval(0.75, 0.9, "wilson", 0.95), t)[:2]
    (<Verdict.PASS: 'PASS'>, True)
    """
    if value is None:
        return Verdict.INSUFFICIENT_EVIDENCE, False, "the value is undefined"
    op, limit = threshold.comparison, threshold.value
    crosses = interval is not None and (
        interval.lo < limit < interval.hi
        or (threshold.holds(interval.lo) != threshold.holds(interval.hi))
    )
    if threshold.decision is Decision.INTERVAL:
        if interval is None:
            return (
                Verdict.INSUFFICIENT_EVIDENCE,
                False,
                "the interval decision needs an interval, and none is defined",
            )
        if threshold.holds(interval.lo) and threshold.holds(interval.hi):
            return Verdict.PASS, False, f"the whole interval is {op} {limit}"
        if not threshold.holds(interval.lo) and not threshold.holds(interval.hi):
            return Verdict.FAIL, False, f"the whole interval misses {op} {limit}"
        return (
            Verdict.INSUFFICIENT_EVIDENCE,
            True,
            f"the interval [{interval.lo:.4f}, {interval.hi:.4f}] crosses {limit}",
        )
    if threshold.holds(value):
        text = f"{value:.4f} {op} {limit}"
        return (
            Verdict.PASS,
            crosses,
            text + ("; uncertain: the interval crosses the threshold" if crosses else ""),
        )
    text = f"{value:.4f} is not {op} {limit}"
    return (
        Verdict.FAIL,
        crosses,
        text + ("; uncertain: the interval crosses the threshold" if crosses else ""),
    )


def _undefined(
    test_id: str,
    grouping: tuple[str, ...] | None,
    code: str,
    reason: str,
    threshold: Threshold,
    method: str,
    details: Mapping[str, Any] | None = None,
) -> TestResult:
    return TestResult(
        test_id,
        grouping,
        None,
        None,
        Undefined(code, reason),
        threshold,
        Verdict.INSUFFICIENT_EVIDENCE,
        False,
        reason,
        method,
        details or {},
    )


def _result(
    test_id: str,
    grouping: tuple[str, ...] | None,
    value: float,
    interval: Interval | None,
    threshold: Threshold,
    method: str,
    details: Mapping[str, Any],
) -> TestResult:
    verdict, uncertain, reason = decide(value, interval, threshold)
    return TestResult(
        test_id,
        grouping,
        value,
        interval,
        None,
        threshold,
        verdict,
        uncertain,
        reason,
        method,
        details,
    )


def _iv(iv: Interval | None) -> dict[str, Any] | None:
    if iv is None:
        return None
    return {"lo": iv.lo, "hi": iv.hi, "method": iv.method, "confidence": iv.confidence}


def accuracy(cell: Cell, threshold: Threshold) -> TestResult:
    """Share of cases with a prediction whose prediction equals the label (Wilson 95%)."""
    k, n = cell.tp + cell.tn, cell.predicted
    method = "share of cases with a prediction that match the label; 95% Wilson interval"
    details = {"correct": k, "with_prediction": n, "missing_prediction": cell.missing}
    if n == 0:
        return _undefined(
            "accuracy",
            None,
            "no_predictions",
            "no case has a prediction",
            threshold,
            method,
            details,
        )
    return _result(
        "accuracy", None, k / n, stats.wilson_interval(k, n), threshold, method, details
    )


def _auc_found(r: RankSums) -> tuple[float, Interval | None, float | None] | None:
    return stats.auc_from_rank_sums(
        r.positives, r.negatives, r.twice_u, r.positive_squares, r.negative_squares
    )


def _auc_entry(r: RankSums) -> dict[str, Any]:
    found = _auc_found(r)
    entry: dict[str, Any] = {"positives": r.positives, "negatives": r.negatives}
    if found is None:
        entry.update(
            value=None,
            interval=None,
            undefined_reason="needs cases labelled 0 and cases labelled 1 with a score",
        )
        return entry
    value, iv, se = found
    entry.update(value=value, interval=_iv(iv), standard_error=se)
    if iv is None:
        entry["interval_undefined_reason"] = "DeLong needs two or more of each label"
    return entry


def auc(counts: Counts, threshold: Threshold) -> TestResult:
    """AUC by rank (Mann-Whitney, ties half) overall, with per-group AUCs (DeLong 95%)."""
    method = (
        "AUC by rank, ties counted half (Mann-Whitney); 95% DeLong interval; "
        "per-group AUCs reported, the verdict reads the overall AUC"
    )
    if counts.overall_ranks is None:
        return _undefined(
            "auc", None, "no_score", "the spec names no score column", threshold, method
        )
    ranks = counts.overall_ranks
    overall = _auc_entry(ranks)
    per_group = {
        g.name: [
            {"group": " × ".join(key), **_auc_entry(r)}
            for key, r in (counts.ranks or {})[g.attributes].items()
        ]
        for g in counts.groupings.values()
    }
    details = {
        "overall": overall,
        "per_group": per_group,
        "cases_without_score": counts.total - ranks.positives - ranks.negatives,
    }
    if overall["value"] is None:
        return _undefined(
            "auc", None, "one_label", overall["undefined_reason"], threshold, method, details
        )
    found = _auc_found(ranks)
    assert found is not None
    return _result("auc", None, found[0], found[1], threshold, method, details)


def _rates(
    counts: Counts, grouping: tuple[str, ...], over: str, alpha: float
) -> list[dict[str, Any]]:
    g = counts.groupings[grouping]
    level = 1 - stats.bonferroni_alpha(alpha, len(g.groups))
    rows = []
    for key, cell in g.groups.items():
        if over == "selection":
            k, n = cell.tp + cell.fp, cell.predicted
        else:
            k, n = cell.tp, cell.tp + cell.fn
        rows.append(
            {
                "group": " × ".join(key),
                "cases": cell.n,
                "numerator": k,
                "denominator": n,
                "rate": stats.rate(k, n),
                "interval_95": _iv(stats.wilson_interval(k, n)),
                "interval_simultaneous": _iv(stats.wilson_interval(k, n, level)),
            }
        )
    return rows


def _spread(
    test_id: str, counts: Counts, grouping: tuple[str, ...], threshold: Threshold, alpha: float
) -> TestResult:
    over = "tpr" if test_id == "equal_opportunity_diff" else "selection"
    rows = _rates(counts, grouping, over, alpha)
    what = "true positive rate" if over == "tpr" else "selection rate"
    method = {
        "impact_ratio": "min selection rate / max selection rate",
        "selection_rate_diff": "max selection rate - min selection rate",
        "equal_opportunity_diff": "max true positive rate - min true positive rate",
    }[test_id] + (
        f" over the declared groups; rates over cases with a prediction; interval "
        f"from simultaneous Wilson intervals at 1 - {alpha}/G"
    )
    details = {"groups": rows, "rate": what}
    if len(rows) < 2:
        return _undefined(
            test_id,
            grouping,
            "one_group",
            "only one group is declared",
            threshold,
            method,
            details,
        )
    empty = [r["group"] for r in rows if r["rate"] is None]
    if empty:
        need = "cases labelled 1 with a prediction" if over == "tpr" else "cases"
        return _undefined(
            test_id,
            grouping,
            "empty_group",
            f"no {need} in group(s) {', '.join(empty)}",
            threshold,
            method,
            details,
        )
    rates = [float(r["rate"]) for r in rows]
    lows = [float(r["interval_simultaneous"]["lo"]) for r in rows]
    highs = [float(r["interval_simultaneous"]["hi"]) for r in rows]
    lo_min, hi_min = min(lows), min(highs)
    lo_max, hi_max = max(lows), max(highs)
    level = rows[0]["interval_simultaneous"]["confidence"]
    details = {
        **details,
        "min_group": rows[rates.index(min(rates))]["group"],
        "max_group": rows[rates.index(max(rates))]["group"],
    }
    if test_id == "impact_ratio":
        if max(rates) == 0:
            return _undefined(
                test_id,
                grouping,
                "no_selections",
                "no group has a selection, so the ratio is 0/0",
                threshold,
                method,
                details,
            )
        value = min(rates) / max(rates)
        lo = lo_min / hi_max if hi_max > 0 else 0.0
        hi = min(1.0, hi_min / lo_max) if lo_max > 0 else 1.0
    else:
        value = max(rates) - min(rates)
        lo, hi = max(0.0, lo_max - hi_min), hi_max - lo_min
    # the bounds hold whenever all G simultaneous intervals do: probability >= 1 - alpha
    interval = Interval(lo, hi, f"bounds from Wilson intervals at {level:.4g} each", 1 - alpha)
    return _result(test_id, grouping, value, interval, threshold, method, details)


def completeness(counts: Counts, threshold: Threshold) -> TestResult:
    """Share of non-empty cells among the columns the evaluation reads."""
    columns = dict(counts.null_cells)
    cells = counts.total * len(columns)
    empty = sum(columns.values())
    method = "non-empty cells / (cases × columns read); Wilson interval over cells"
    details = {
        "columns": len(columns),
        "cells": cells,
        "empty_cells": empty,
        "empty_by_column": columns,
    }
    if cells == 0:
        return _undefined(
            "completeness", None, "no_cells", "no cells to count", threshold, method, details
        )
    return _result(
        "completeness",
        None,
        (cells - empty) / cells,
        stats.wilson_interval(cells - empty, cells),
        threshold,
        method,
        details,
    )


def class_balance(cell: Cell, threshold: Threshold) -> TestResult:
    """Share of the minority label among all cases (Wilson 95%)."""
    minority = min(cell.positives, cell.negatives)
    method = "min(cases labelled 1, cases labelled 0) / cases; 95% Wilson interval"
    details = {"labelled_1": cell.positives, "labelled_0": cell.negatives}
    if cell.n == 0:
        return _undefined(
            "class_balance", None, "no_cases", "there are no cases", threshold, method, details
        )
    return _result(
        "class_balance",
        None,
        minority / cell.n,
        stats.wilson_interval(minority, cell.n),
        threshold,
        method,
        details,
    )


def perturbation_stability(threshold: Threshold) -> TestResult:
    """Without model access the test is informational and reads MANUAL_REVIEW."""
    reason = (
        "no model access: perturbation stability needs the model to re-run on noisy "
        "inputs, so it is reported as informational and left to manual review"
    )
    return TestResult(
        "perturbation_stability",
        None,
        None,
        None,
        Undefined("no_model_access", reason),
        threshold,
        Verdict.MANUAL_REVIEW,
        False,
        reason,
        "share of decisions unchanged under Gaussian noise (5% of each numeric "
        "feature's standard deviation, 5 trials)",
        {},
    )


def run_battery(
    counts: Counts, tests: Sequence[str], thresholds: Mapping[str, Threshold], alpha: float = 0.05
) -> tuple[TestResult, ...]:
    """Run the chosen battery tests in report order.

    Parameters
    ----------
    counts
        The counts of the engine pass (with the AUC's rank sums when a score is declared).
    tests
        Test ids from :data:`BATTERY`.
    thresholds
        Threshold per test id (defaults merged with the policy).
    alpha
        Error budget for the simultaneous intervals behind ratio and gap bounds.
    """
    out: list[TestResult] = []
    for test_id in BATTERY:
        if test_id not in tests:
            continue
        t = thresholds[test_id]
        if test_id == "accuracy":
            out.append(accuracy(counts.overall, t))
        elif test_id == "auc":
            out.append(auc(counts, t))
        elif test_id in PER_GROUPING:
            out.extend(_spread(test_id, counts, g, t, alpha) for g in counts.groupings)
        elif test_id == "completeness":
            out.append(completeness(counts, t))
        elif test_id == "class_balance":
            out.append(class_balance(counts.overall, t))
        else:
            out.append(perturbation_stability(t))
    return tuple(out)
