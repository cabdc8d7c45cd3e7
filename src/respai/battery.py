"""The RESPAI test battery (seed 000), as pure functions of counts, and its registry.

Each test is one :class:`BatteryTest` entry in :data:`REGISTRY`: its id, display name,
the kind of details it reports, its default threshold and where that comes from, the
:mod:`respai.metrics` rate it reads, its section on the methods page, and the function
that computes it from counts. :func:`run_battery` runs the chosen entries in registry
order; nothing else lists the tests. :class:`TestId` names every test a record can carry,
the battery's and the ones beside it (group rules, calibration, LL144).

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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from respai import metrics, stats
from respai.counts import Cell, Counts, RankSums
from respai.metrics import RateDef
from respai.types import Interval, Undefined, Verdict

__all__ = [
    "BATTERY",
    "DEFAULT_THRESHOLDS",
    "PER_GROUPING",
    "REGISTRY",
    "TEST_NAMES",
    "BatteryTest",
    "Decision",
    "DetailsKind",
    "Scope",
    "TestId",
    "TestResult",
    "Threshold",
    "decide",
    "run_battery",
]

#: The methods page every battery test's anchor is on, relative to the docs root.
DOCS_PAGE = "methods/battery.md"


class TestId(enum.StrEnum):
    """Every test id a record can carry: the battery's, then the tests beside it.

    The control mapping (``controls.yaml``) maps exactly these ids to clauses.
    """

    __test__ = False  # not a pytest test class

    ACCURACY = "accuracy"
    AUC = "auc"
    IMPACT_RATIO = "impact_ratio"
    SELECTION_RATE_DIFF = "selection_rate_diff"
    EQUAL_OPPORTUNITY_DIFF = "equal_opportunity_diff"
    PERTURBATION_STABILITY = "perturbation_stability"
    COMPLETENESS = "completeness"
    CLASS_BALANCE = "class_balance"
    GROUP_RULE = "group_rule"
    CALIBRATION = "calibration"
    LL144_IMPACT_RATIO = "ll144_impact_ratio"


class DetailsKind(enum.StrEnum):
    """What a battery test's ``details`` hold, so a renderer knows how to show them.

    The fields of each kind are defined once, as a type in :mod:`respai.record.model`
    (:data:`~respai.record.model.DETAILS_TYPES`), which the record's schema is generated
    from; a test checks that every test of one kind has the same details type.
    """

    MATCHES = "matches"  #: record.model.AccuracyDetails
    RANKS = "ranks"  #: record.model.AucDetails
    GROUP_RATES = "group_rates"  #: record.model.SpreadDetails
    CELLS = "cells"  #: record.model.CompletenessDetails
    LABELS = "labels"  #: record.model.ClassBalanceDetails
    STABILITY = "stability"  #: record.model.StabilityDetails


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
        str(test_id),
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
        str(test_id),
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
    k, n = metrics.ACCURACY.fraction(cell)
    method = "share of cases with a prediction that match the label; 95% Wilson interval"
    details = {"correct": k, "with_prediction": n, "missing_prediction": cell.missing}
    if n == 0:
        return _undefined(
            TestId.ACCURACY,
            None,
            "no_predictions",
            "no case has a prediction",
            threshold,
            method,
            details,
        )
    return _result(
        TestId.ACCURACY, None, k / n, stats.wilson_interval(k, n), threshold, method, details
    )


#: The fewest cases of each label (with a score) whose AUC a verdict may read. Below it
#: the AUC reads INSUFFICIENT_EVIDENCE whatever the decision rule; the value and its
#: interval are still reported. Why 10: see methods/battery.md#auc.
AUC_MIN_PER_LABEL = 10


def _auc_found(r: RankSums) -> tuple[float, Interval, float | None] | None:
    """The AUC, its Newcombe score interval and DeLong's standard error (or ``None``)."""
    found = stats.auc_from_rank_sums(
        r.positives, r.negatives, r.twice_u, r.positive_squares, r.negative_squares
    )
    interval = stats.auc_score_interval(r.positives, r.negatives, r.twice_u)
    if found is None or interval is None:
        return None
    return found[0], interval, found[2]


def _auc_short(r: RankSums) -> str | None:
    """Why an AUC from these cases is too few to decide on, or ``None``."""
    if r.positives >= AUC_MIN_PER_LABEL and r.negatives >= AUC_MIN_PER_LABEL:
        return None
    return (
        f"an AUC verdict needs at least {AUC_MIN_PER_LABEL} cases of each label with a "
        f"score, and there are {r.positives} labelled 1 and {r.negatives} labelled 0"
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
    if se is None:
        entry["standard_error_undefined_reason"] = "DeLong needs two or more of each label"
    short = _auc_short(r)
    if short is not None:
        entry["insufficient_reason"] = short
    return entry


def auc(counts: Counts, threshold: Threshold) -> TestResult:
    """AUC by rank (Mann-Whitney, ties half) overall, per group too (Newcombe score 95%).

    The verdict reads the overall AUC; with fewer than :data:`AUC_MIN_PER_LABEL` cases of
    either label it is INSUFFICIENT_EVIDENCE, the value and interval still reported.
    """
    method = (
        "AUC by rank, ties counted half (Mann-Whitney); 95% Newcombe score interval "
        f"(2006, method 5); at least {AUC_MIN_PER_LABEL} cases of each label for a "
        "verdict; per-group AUCs reported, the verdict reads the overall AUC"
    )
    if counts.overall_ranks is None:
        return _undefined(
            TestId.AUC, None, "no_score", "the spec names no score column", threshold, method
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
        "interval_method": stats.AUC_SCORE_METHOD,
        "interval_reference": stats.AUC_SCORE_REFERENCE,
        "minimum_per_label": AUC_MIN_PER_LABEL,
    }
    if overall["value"] is None:
        return _undefined(
            TestId.AUC, None, "one_label", overall["undefined_reason"], threshold, method, details
        )
    found = _auc_found(ranks)
    assert found is not None
    short = _auc_short(ranks)
    if short is not None:
        return TestResult(
            TestId.AUC.value,
            None,
            found[0],
            found[1],
            None,
            threshold,
            Verdict.INSUFFICIENT_EVIDENCE,
            False,
            short,
            method,
            details,
        )
    return _result(TestId.AUC, None, found[0], found[1], threshold, method, details)


def _rates(
    counts: Counts, grouping: tuple[str, ...], rate: RateDef, alpha: float
) -> list[dict[str, Any]]:
    g = counts.groupings[grouping]
    level = 1 - stats.bonferroni_alpha(alpha, len(g.groups))
    rows = []
    for key, cell in g.groups.items():
        k, n = rate.fraction(cell)
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


def _spread(entry: BatteryTest, scope: Scope, *, ratio: bool) -> TestResult:
    """Ratio (``min / max``) or difference (``max - min``) of a rate over the groups."""
    test_id, threshold, alpha = entry.id, scope.threshold, scope.alpha
    grouping = scope.grouping
    rate = entry.metric
    assert grouping is not None and rate is not None
    rows = _rates(scope.counts, grouping, rate, alpha)
    what = rate.name
    formula = f"min {what} / max {what}" if ratio else f"max {what} - min {what}"
    method = formula + (
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
        return _undefined(
            test_id,
            grouping,
            "empty_group",
            f"no {rate.over} in group(s) {', '.join(empty)}",
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
    if ratio:
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
            TestId.COMPLETENESS,
            None,
            "no_cells",
            "no cells to count",
            threshold,
            method,
            details,
        )
    return _result(
        TestId.COMPLETENESS,
        None,
        (cells - empty) / cells,
        stats.wilson_interval(cells - empty, cells),
        threshold,
        method,
        details,
    )


def class_balance(cell: Cell, threshold: Threshold) -> TestResult:
    """Share of the minority label among all cases (Wilson 95%)."""
    minority, n = metrics.MINORITY_SHARE.fraction(cell)
    method = "min(cases labelled 1, cases labelled 0) / cases; 95% Wilson interval"
    details = {"labelled_1": cell.positives, "labelled_0": cell.negatives}
    if n == 0:
        return _undefined(
            TestId.CLASS_BALANCE,
            None,
            "no_cases",
            "there are no cases",
            threshold,
            method,
            details,
        )
    return _result(
        TestId.CLASS_BALANCE,
        None,
        minority / n,
        stats.wilson_interval(minority, n),
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
        TestId.PERTURBATION_STABILITY.value,
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


# -- the registry -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Scope:
    """What one run of a battery test reads.

    ``grouping`` is the attribute or intersection of a per-grouping test, ``None`` for a
    test over the whole file; ``alpha`` is the error budget of the simultaneous intervals.
    """

    counts: Counts
    threshold: Threshold
    alpha: float
    grouping: tuple[str, ...] | None = None


@dataclass(frozen=True, slots=True)
class BatteryTest:
    """One battery test: everything the battery, the report and the docs need to know.

    Parameters
    ----------
    id
        The test id in records, specs, policies and the control mapping.
    name
        The display name, e.g. ``"Impact ratio"``.
    details
        What the result's ``details`` hold.
    default
        The default threshold, its direction (``>=`` or ``<=``) and its source.
    metric
        The :mod:`respai.metrics` rate the test reads, or ``None`` (AUC reads ranks,
        completeness empty cells, perturbation stability the model).
    per_grouping
        Computed once per attribute and per declared intersection, not once overall.
    heading
        The section of the methods page that defines the test (its anchor).
    compute
        The test from this entry and a :class:`Scope`.
    """

    id: TestId
    name: str
    details: DetailsKind
    default: Threshold
    metric: RateDef | None
    per_grouping: bool
    heading: str
    compute: Callable[[BatteryTest, Scope], TestResult]

    @property
    def anchor(self) -> str:
        """The test's section on the methods page, e.g. ``methods/battery.md#auc``."""
        return f"{DOCS_PAGE}#{self.heading}"

    def run(self, counts: Counts, threshold: Threshold, alpha: float) -> tuple[TestResult, ...]:
        """The test's results: one per grouping for a per-grouping test, else one."""
        if not self.per_grouping:
            return (self.compute(self, Scope(counts, threshold, alpha)),)
        return tuple(
            self.compute(self, Scope(counts, threshold, alpha, g)) for g in counts.groupings
        )


_SEED = "default (seed 000 methods table)"


def _threshold(comparison: str, value: float, why: str) -> Threshold:
    return Threshold(comparison, value, f"{_SEED}: {why}")


_USABLE = "floor for a usable screen"
_ADEQUACY = "data-adequacy floor"

#: Every battery test by id, in report order.
REGISTRY: Mapping[str, BatteryTest] = MappingProxyType(
    {
        t.id.value: t
        for t in (
            BatteryTest(
                id=TestId.ACCURACY,
                name="Accuracy",
                details=DetailsKind.MATCHES,
                default=_threshold(">=", 0.70, _USABLE),
                metric=metrics.ACCURACY,
                per_grouping=False,
                heading="accuracy",
                compute=lambda _, s: accuracy(s.counts.overall, s.threshold),
            ),
            BatteryTest(
                id=TestId.AUC,
                name="AUC",
                details=DetailsKind.RANKS,
                default=_threshold(">=", 0.70, _USABLE),
                metric=None,
                per_grouping=False,
                heading="auc",
                compute=lambda _, s: auc(s.counts, s.threshold),
            ),
            BatteryTest(
                id=TestId.IMPACT_RATIO,
                name="Impact ratio",
                details=DetailsKind.GROUP_RATES,
                default=_threshold(">=", 0.80, "four-fifths rule, 29 CFR 1607.4(D)"),
                metric=metrics.SELECTION_RATE,
                per_grouping=True,
                heading="group-spreads",
                compute=lambda e, s: _spread(e, s, ratio=True),
            ),
            BatteryTest(
                id=TestId.SELECTION_RATE_DIFF,
                name="Selection-rate difference",
                details=DetailsKind.GROUP_RATES,
                default=_threshold("<=", 0.10, "convention"),
                metric=metrics.SELECTION_RATE,
                per_grouping=True,
                heading="group-spreads",
                compute=lambda e, s: _spread(e, s, ratio=False),
            ),
            BatteryTest(
                id=TestId.EQUAL_OPPORTUNITY_DIFF,
                name="Equal-opportunity difference",
                details=DetailsKind.GROUP_RATES,
                default=_threshold("<=", 0.10, "convention"),
                metric=metrics.TPR,
                per_grouping=True,
                heading="group-spreads",
                compute=lambda e, s: _spread(e, s, ratio=False),
            ),
            BatteryTest(
                id=TestId.PERTURBATION_STABILITY,
                name="Perturbation stability",
                details=DetailsKind.STABILITY,
                default=_threshold(">=", 0.90, "convention"),
                metric=None,
                per_grouping=False,
                heading="perturbation-stability",
                compute=lambda _, s: perturbation_stability(s.threshold),
            ),
            BatteryTest(
                id=TestId.COMPLETENESS,
                name="Completeness",
                details=DetailsKind.CELLS,
                default=_threshold(">=", 0.98, _ADEQUACY),
                metric=None,
                per_grouping=False,
                heading="completeness",
                compute=lambda _, s: completeness(s.counts, s.threshold),
            ),
            BatteryTest(
                id=TestId.CLASS_BALANCE,
                name="Class balance",
                details=DetailsKind.LABELS,
                default=_threshold(">=", 0.10, _ADEQUACY),
                metric=metrics.MINORITY_SHARE,
                per_grouping=False,
                heading="class-balance",
                compute=lambda _, s: class_balance(s.counts.overall, s.threshold),
            ),
        )
    }
)
#: Every battery test id, in report order.
BATTERY: tuple[str, ...] = tuple(REGISTRY)
#: Default thresholds and where they come from (seed 000's table).
DEFAULT_THRESHOLDS: dict[str, Threshold] = {t.id.value: t.default for t in REGISTRY.values()}
#: Tests computed once per attribute and per declared intersection.
PER_GROUPING: tuple[str, ...] = tuple(t.id.value for t in REGISTRY.values() if t.per_grouping)
#: The display name of every test id a record can carry (for reports and their scripts).
TEST_NAMES: Mapping[str, str] = MappingProxyType(
    {
        **{t.id.value: t.name for t in REGISTRY.values()},
        TestId.GROUP_RULE.value: "Group rule",
        TestId.CALIBRATION.value: "Calibration",
        TestId.LL144_IMPACT_RATIO.value: "LL144 impact ratio",
    }
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

    Examples
    --------
    >>> from respai.counts import Row, build_counts
    >>> c = build_counts([Row(("a",), (None,), 1, 1, None, 9)], {"g": ["a"]}, [("g",)], None)
    >>> [r.key for r in run_battery(c, ["accuracy", "impact_ratio"], DEFAULT_THRESHOLDS)]
    ['accuracy', 'impact_ratio:g']
    """
    chosen = set(tests)
    out: list[TestResult] = []
    for test in REGISTRY.values():
        if test.id in chosen:
            out.extend(test.run(counts, thresholds[test.id], alpha))
    return tuple(out)
