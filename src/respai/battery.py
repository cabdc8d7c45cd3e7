"""The RESPAI test battery, as pure functions of counts, and its registry.

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

Decision rules. ``interval`` (the default since engine 0.4.0): PASS when the whole
interval is on the right side, FAIL when the whole interval is on the wrong side,
INSUFFICIENT_EVIDENCE otherwise, so a wrong PASS or a wrong FAIL is no more likely than
the interval's miss rate. ``estimate`` (a policy may choose it per test): a *screening*
verdict with no error guarantee, PASS when the estimate is on the right side of the
threshold, FAIL otherwise, and ``uncertain`` marks a verdict whose interval crosses the
threshold; its reason and its threshold's ``guarantee`` say so wherever it is shown.
Every comparison is exact (:mod:`respai.exact`).

A case without a decision never improves a verdict: a test that reads decisions carries
its :class:`ValueRange` over every way the missing decisions could have gone; the
estimate rule reads its worst end; under the interval rule a PASS needs the interval
with them at their worst on each side to pass, and a FAIL is proven from the ends with
every one of them counted against the test (:func:`respai.decision.adverse_ends`). A
group over ``max_missing`` cases without a decision keeps a spread test from passing. A
group under ``min_cell`` cases with a decision cannot decide a PASS, and cannot launder
a FAIL (see :func:`_small_cells`).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from types import MappingProxyType
from typing import Any

from respai import decision, exact, metrics, stats
from respai.counts import Cell, Counts, RankSums
from respai.decision import GroupRate
from respai.errors import SpecError
from respai.metrics import RateDef
from respai.spec.parsed import DEFAULT_MAX_MISSING, DEFAULT_MIN_CELL, Policy, Spec
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
    "ValueRange",
    "battery_plan",
    "decide",
    "run_battery",
    "thresholds_for",
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
    MISSING_DECISIONS = "missing_decisions"
    COMPLETENESS = "completeness"
    CLASS_BALANCE = "class_balance"
    GROUP_RULE = "group_rule"
    CALIBRATION = "calibration"
    LL144_IMPACT_RATIO = "ll144_impact_ratio"


class DetailsKind(enum.StrEnum):
    """What a battery test's ``details`` hold, so a renderer knows how to show them.

    The fields of each kind are defined once, as a type in :mod:`respai.record.predicate`
    (:data:`~respai.record.predicate.DETAILS_TYPES`), which the record's schema is generated
    from; a test checks that every test of one kind has the same details type.
    """

    MATCHES = "matches"  #: record.predicate.AccuracyDetails
    RANKS = "ranks"  #: record.predicate.AucDetails
    GROUP_RATES = "group_rates"  #: record.predicate.SpreadDetails
    CELLS = "cells"  #: record.predicate.CompletenessDetails
    LABELS = "labels"  #: record.predicate.ClassBalanceDetails
    STABILITY = "stability"  #: record.predicate.StabilityDetails
    DECISIONS = "decisions"  #: record.predicate.MissingDecisionsDetails


class Decision(enum.StrEnum):
    """How a value is compared with its threshold."""

    ESTIMATE = "estimate"
    INTERVAL = "interval"


#: What each decision rule promises (the record's ``threshold.guarantee``).
GUARANTEES: Mapping[Decision, str] = MappingProxyType(
    {
        Decision.INTERVAL: (
            "decided on the whole interval: a PASS or a FAIL is wrong no more often than "
            "the interval misses"
        ),
        Decision.ESTIMATE: (
            "screening verdict: decided on the estimate's side of the threshold, with no "
            "error guarantee (at a true value on the threshold it is a coin flip)"
        ),
    }
)
#: The words an estimate-decided verdict's reason starts with.
SCREENING = "screening verdict on the estimate, no error guarantee: "


@dataclass(frozen=True, slots=True)
class Threshold:
    """A threshold: ``value`` compared with ``comparison`` (``>=`` or ``<=``).

    ``value`` is the number as written (a YAML float is the decimal it spells); every
    comparison reads it exactly, as :attr:`exact` (see :mod:`respai.exact`).
    """

    comparison: str
    value: float
    source: str
    decision: Decision = Decision.INTERVAL
    #: under ``familywise: bonferroni``: ``(m, alpha)``, the run's family size and alpha
    #: (each member decided at ``alpha / m``); ``None`` without it
    family: tuple[int, float] | None = None

    @property
    def as_fraction(self) -> Fraction:
        """The threshold as the exact decimal it was written as (``0.8`` is ``4/5``)."""
        return exact.decimal(self.value)

    def holds(self, x: float | Fraction) -> bool:
        """Whether ``x`` is on the passing side, compared exactly.

        A float is read as the shortest decimal that rounds to it (:func:`exact.decimal`),
        which is the exact value for one division of counts (the float of 7/10 is 0.7);
        a value built from several operations should be passed as a Fraction.
        """
        q = x if isinstance(x, Fraction) else exact.decimal(x)
        return exact.meets(q, self.comparison, self.as_fraction)

    def bound_holds(self, bound: exact.Bound) -> bool:
        """Whether an interval endpoint is on the passing side, decided as its kind allows."""
        return exact.bound_meets(bound, self.comparison, self.as_fraction)

    @property
    def guarantee(self) -> str:
        """What the decision rule promises, as the record states it.

        Under ``familywise: bonferroni`` it names the test's level and the family's.

        Examples
        --------
        >>> Threshold(">=", 0.7, "default", family=(10, 0.05)).guarantee.split("; ")[1][:61]
        'family-wise (Bonferroni): decided at alpha / m = 0.005 (inter'
        """
        text = GUARANTEES[self.decision]
        if self.family is None:
            return text
        m, alpha = self.family
        if self.decision is Decision.ESTIMATE:
            return (
                f"{text}; outside the run's family-wise control (a screening verdict has no "
                "error level to share)"
            )
        share = float(exact.decimal(alpha) / m)
        return (
            f"{text}; family-wise (Bonferroni): decided at alpha / m = {share:.4g} (interval "
            f"at {_level(1 - share)}), one of the run's {m} verdict-deciding tests, so any "
            f"wrong verdict among them has probability at most {alpha:.4g}"
        )

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form for the record."""
        return {
            "comparison": self.comparison,
            "value": self.value,
            "source": self.source,
            "decision": self.decision.value,
            "guarantee": self.guarantee,
        }


@dataclass(frozen=True, slots=True)
class ValueRange:
    """A value over every way the cases without a decision could have gone.

    ``worst`` is the least favourable value (the lowest accuracy or impact ratio, the
    largest difference), ``best`` the most favourable; both equal the value when every
    case has a decision. The estimate rule decides on ``worst``.
    """

    worst: float
    best: float
    cases_without_decision: int

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form for the record."""
        return {
            "worst": self.worst,
            "best": self.best,
            "cases_without_decision": self.cases_without_decision,
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
    #: for a test that reads decisions: the value with the missing ones at worst and best
    value_range: ValueRange | None = None

    @property
    def key(self) -> str:
        """``impact_ratio:sex`` for a per-grouping test, the test id otherwise."""
        return f"{self.test_id}:{'×'.join(self.grouping)}" if self.grouping else self.test_id


def _fmt(x: float | Fraction) -> str:
    return f"{float(x):.4f}"


def _level(confidence: float) -> str:
    """A confidence as the methods state it: ``95%``, ``99.5%``, ``99.29%``.

    Examples
    --------
    >>> _level(0.95), _level(0.995), _level(1 - 0.05 / 7)
    ('95%', '99.5%', '99.29%')
    """
    return f"{confidence * 100:.4g}%"


def _alpha_text(alpha: float | Fraction) -> str:
    """An alpha as a method sentence shows it (a float as written, a share to 4 digits)."""
    return str(alpha) if isinstance(alpha, float) else f"{float(alpha):.4g}"


def decide(
    value: float | Fraction | None,
    interval: Interval | None,
    threshold: Threshold,
    *,
    worst: Fraction | None = None,
    bounds: tuple[exact.Bound, exact.Bound] | None = None,
    broken: tuple[bool, float] | None = None,
) -> tuple[Verdict, bool, str]:
    """Verdict, ``uncertain`` flag and a sentence for one value against a threshold.

    Parameters
    ----------
    value
        The estimate, or ``None`` when undefined.
    interval
        Its interval, or ``None``.
    threshold
        The threshold and decision rule.
    worst
        The value the estimate rule decides on: the least favourable value over the
        cases without a decision (:class:`ValueRange`); ``value`` itself when omitted.
    bounds
        The interval's ends as :class:`respai.exact.Bound` objects, so that an end at the
        threshold is decided exactly; read from ``interval`` (as floats) when omitted.
    broken
        For the interval rule when some case has no decision: whether the interval's
        binding end, with every such case counted against the test, misses the threshold
        (a FAIL), and that end as a float for the reason. Without it the FAIL reads
        ``bounds``.

    Every comparison is exact (:mod:`respai.exact`): a value equal to the threshold
    meets it. An estimate-decided verdict's reason starts with :data:`SCREENING`.

    Examples
    --------
    >>> t = Threshold(">=", 0.8, "default")
    >>> decide(0.85, Interval(0.75, 0.9, "wilson", 0.95), t)[:2]
    (<Verdict.INSUFFICIENT_EVIDENCE: 'INSUFFICIENT_EVIDENCE'>, True)
    >>> e = Threshold(">=", 0.8, "default", Decision.ESTIMATE)
    >>> decide(0.85, Interval(0.75, 0.9, "wilson", 0.95), e)[:2]
    (<Verdict.PASS: 'PASS'>, True)
    >>> decide(Fraction(4, 5), None, e)[0]
    <Verdict.PASS: 'PASS'>
    """
    if value is None:
        return Verdict.INSUFFICIENT_EVIDENCE, False, "the value is undefined"
    op, limit = threshold.comparison, threshold.value
    if bounds is None and interval is not None:
        bounds = (exact.Approx(interval.lo), exact.Approx(interval.hi))
    lo_holds = hi_holds = False
    if bounds is not None:
        lo_holds, hi_holds = threshold.bound_holds(bounds[0]), threshold.bound_holds(bounds[1])
    crosses = bounds is not None and lo_holds != hi_holds
    if threshold.decision is Decision.INTERVAL:
        if bounds is None:
            return (
                Verdict.INSUFFICIENT_EVIDENCE,
                False,
                "the interval decision needs an interval, and none is defined",
            )
        verdict, _ = decision.verdict_table(
            broken=(not lo_holds and not hi_holds) if broken is None else broken[0],
            held=lo_holds and hi_holds,
        )
        if verdict is Verdict.PASS:
            return verdict, False, f"the whole interval is {op} {limit}"
        if verdict is Verdict.FAIL and broken is not None and (lo_holds or hi_holds):
            side = "upper" if op.startswith(">") else "lower"
            return (
                verdict,
                False,
                f"with the cases without a decision counted against the test, the "
                f"interval's {side} end {_fmt(broken[1])} misses {op} {limit}",
            )
        if verdict is Verdict.FAIL:
            return verdict, False, f"the whole interval misses {op} {limit}"
        return (
            verdict,
            True,
            f"the interval [{_fmt(bounds[0].value)}, {_fmt(bounds[1].value)}] crosses {limit}",
        )
    estimate = value if isinstance(value, Fraction) else exact.decimal(value)
    decided = estimate if worst is None else worst
    if decided == estimate:
        subject = _fmt(estimate)
    else:  # the cases without a decision counted at their worst
        subject = (
            f"the worst case with the cases without a decision counted against it, "
            f"{_fmt(decided)} ({_fmt(estimate)} over the cases with a decision),"
        )
    note = "; uncertain: the interval crosses the threshold" if crosses else ""
    if threshold.holds(decided):
        return Verdict.PASS, crosses, f"{SCREENING}{subject} {op} {limit}{note}"
    return Verdict.FAIL, crosses, f"{SCREENING}{subject} is not {op} {limit}{note}"


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
    value: float | Fraction,
    interval: Interval | None,
    threshold: Threshold,
    method: str,
    details: Mapping[str, Any],
    *,
    worst: Fraction | None = None,
    best: Fraction | None = None,
    missing: int | None = None,
    bounds: tuple[exact.Bound, exact.Bound] | None = None,
    reported: float | None = None,
    broken: tuple[bool, float] | None = None,
) -> TestResult:
    """A decided result; ``worst``/``best``/``missing`` for a test that reads decisions.

    ``value`` is decided on exactly; ``reported`` is the float the record shows, when it
    should be the plain float arithmetic a reader repeats (``min(k/n) / max(k/n)``)
    rather than the correctly rounded exact value (they can differ in the last bit).
    """
    verdict, uncertain, reason = decide(
        value, interval, threshold, worst=worst, bounds=bounds, broken=broken
    )
    value_range = None
    if missing is not None:
        estimate = value if isinstance(value, Fraction) else exact.decimal(value)
        value_range = ValueRange(
            float(estimate if worst is None else worst),
            float(estimate if best is None else best),
            missing,
        )
    return TestResult(
        str(test_id),
        grouping,
        float(value) if reported is None else reported,
        interval,
        None,
        threshold,
        verdict,
        uncertain,
        reason,
        method,
        details,
        value_range,
    )


def _iv(iv: Interval | None) -> dict[str, Any] | None:
    if iv is None:
        return None
    return {"lo": iv.lo, "hi": iv.hi, "method": iv.method, "confidence": iv.confidence}


def _without_estimate(result: TestResult, code: str, why: str) -> TestResult:
    """``result`` decided on its worst case, its estimate undefined (``why``).

    When every decision of a group (or of the file) is missing, the estimate over the
    decided cases is undefined, but the worst case is not: the verdict can still FAIL (so
    blanking every decision never escapes a FAIL) and can never PASS.
    """
    if result.verdict is Verdict.FAIL:
        verdict, reason = Verdict.FAIL, f"{why}; it fails with them counted against it: "
    else:
        verdict, reason = Verdict.INSUFFICIENT_EVIDENCE, f"{why}, so it cannot pass: "
    return replace(
        result,
        value=None,
        undefined=Undefined(code, why),
        verdict=verdict,
        uncertain=False,
        reason=reason + result.reason,
    )


def _adverse_wilson(
    k: int, missing: int, n: int, threshold: Threshold, confidence: float = 0.95
) -> tuple[bool, float] | None:
    """Whether a share's interval misses its threshold with the missing cases against it.

    For a ``>=`` threshold the upper end of ``k`` events in ``n`` (every missing case a
    non-event), for ``<=`` the lower end of ``k + missing``; ``None`` without a missing
    case (the interval decides as it is).
    """
    if missing == 0:
        return None
    if threshold.comparison.startswith(">"):
        end: exact.Bound = exact.Wilson(k, n, confidence, "hi")
    else:
        end = exact.Wilson(k + missing, n, confidence, "lo")
    return not threshold.bound_holds(end), end.value


def _wilson_widened(
    k: int, missing: int, n: int, confidence: float = 0.95
) -> tuple[Interval, tuple[exact.Bound, exact.Bound]]:
    """Wilson interval of ``k`` in ``n`` with ``missing`` cases at their worst each side.

    At ``confidence`` (95% unless a family-wise policy shares alpha over the run's tests).

    ``n`` counts every case, the ``missing`` ones included: the lower end is Wilson's for
    ``k`` events (every missing case a non-event), the upper end for ``k + missing``.
    """
    lo = stats.wilson_interval(k, n, confidence)
    hi = stats.wilson_interval(k + missing, n, confidence)
    assert lo is not None and hi is not None
    interval = Interval(lo.lo, hi.hi, lo.method, lo.confidence)
    return interval, (
        exact.Wilson(k, n, confidence, "lo"),
        exact.Wilson(k + missing, n, confidence, "hi"),
    )


def accuracy(cell: Cell, threshold: Threshold, confidence: float = 0.95) -> TestResult:
    """Share of cases with a prediction whose prediction equals the label (Wilson interval).

    The interval is at ``confidence`` (95% unless a family-wise policy shares alpha).

    A case without a prediction can never help: the verdict reads the worst case, every
    such case counted as wrong (``correct / cases``), and the interval runs from Wilson's
    lower end with them wrong to its upper end with them right.
    """
    k, n = metrics.ACCURACY.fraction(cell)
    missing = metrics.ACCURACY.missing_count(cell)
    method = (
        "share of cases with a prediction that match the label; verdict on the worst case "
        f"(cases without a prediction counted as wrong); {_level(confidence)} Wilson "
        "interval, cases without a prediction at their worst on each side"
    )
    details = {"correct": k, "with_prediction": n, "missing_prediction": missing}
    total = n + missing
    if total == 0:
        return _undefined(
            TestId.ACCURACY,
            None,
            "no_predictions",
            "there are no cases",
            threshold,
            method,
            details,
        )
    interval, bounds = _wilson_widened(k, missing, total, confidence)
    result = _result(
        TestId.ACCURACY,
        None,
        Fraction(k, n) if n else Fraction(k, total),
        interval,
        threshold,
        method,
        details,
        worst=Fraction(k, total),
        best=Fraction(k + missing, total),
        missing=missing,
        bounds=bounds,
        broken=_adverse_wilson(k, missing, total, threshold, confidence),
    )
    if n == 0:  # every case lacks a prediction: decided on the worst case
        return _without_estimate(result, "no_predictions", "no case has a prediction")
    return result


#: The fewest cases of each label (with a score) whose AUC a verdict may read. Below it
#: the AUC reads INSUFFICIENT_EVIDENCE whatever the decision rule; the value and its
#: interval are still reported. Why 10: see methods/battery.md#auc.
AUC_MIN_PER_LABEL = 10

PER_GROUP_ROWS_MAX = 1000
"""A grouping with more declared groups than this gets no per-group rows in a test's
details (``groups`` of a spread test, ``per_group`` of the AUC): its record writes the
counts as columns and derives the rows from them (the same number as
:data:`respai.record.compact.COMPACT_MIN_GROUPS`), so they are not computed. The verdict,
bounds, worst groups and reasons are computed from every group as before."""


def _auc_found(
    r: RankSums, confidence: float = 0.95
) -> tuple[float, Interval, float | None] | None:
    """The AUC, its interval (:func:`respai.stats.auc_interval`) and DeLong's error."""
    sums = (r.positives, r.negatives, r.twice_u, r.positive_squares, r.negative_squares)
    found = stats.auc_from_rank_sums(*sums)
    interval = stats.auc_interval(*sums, confidence=confidence)
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


def _auc_entry(r: RankSums, confidence: float = 0.95) -> dict[str, Any]:
    found = _auc_found(r, confidence)
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


def auc(counts: Counts, threshold: Threshold, confidence: float = 0.95) -> TestResult:
    """AUC by rank (Mann-Whitney, ties half) overall and per group, with an interval.

    The interval is at ``confidence`` (95% unless a family-wise policy shares alpha).

    The interval is :func:`respai.stats.auc_interval` (the widest of Newcombe's score
    interval, DeLong's on the logit scale and, when the smaller label expects fewer than
    5 cases on the wrong side, the distribution-free bound). The verdict reads the
    overall AUC; with fewer than :data:`AUC_MIN_PER_LABEL` cases of either label it is
    INSUFFICIENT_EVIDENCE, the value and interval still reported.
    """
    method = (
        f"AUC by rank, ties counted half (Mann-Whitney); {_level(confidence)} interval: the "
        "widest of "
        "Newcombe's score interval (2006, method 5) and DeLong's on the logit scale with a "
        "t quantile, and, when min(m, n) * min(AUC, 1 - AUC) < "
        f"{stats.AUC_BOUND_COUNT}, the score interval at the largest variance any scores "
        "allow (Birnbaum-Klose); at least "
        f"{AUC_MIN_PER_LABEL} cases of each label for a verdict; per-group AUCs reported, "
        "the verdict reads the overall AUC"
    )
    if counts.overall_ranks is None:
        return _undefined(
            TestId.AUC, None, "no_score", "the spec names no score column", threshold, method
        )
    ranks = counts.overall_ranks
    overall = _auc_entry(ranks, confidence)
    per_group = {
        g.name: [
            {"group": " × ".join(key), **_auc_entry(r, confidence)}
            for key, r in (counts.ranks or {})[g.attributes].items()
        ]
        if len(g.groups) <= PER_GROUP_ROWS_MAX
        else []  # the record derives these from the counts' rank sums
        for g in counts.groupings.values()
    }
    details = {
        "overall": overall,
        "per_group": per_group,
        "cases_without_score": counts.total - ranks.positives - ranks.negatives,
        "interval_method": stats.AUC_INTERVAL_METHOD,
        "interval_reference": stats.AUC_INTERVAL_REFERENCE,
        "minimum_per_label": AUC_MIN_PER_LABEL,
    }
    if overall["value"] is None:
        return _undefined(
            TestId.AUC, None, "one_label", overall["undefined_reason"], threshold, method, details
        )
    found = _auc_found(ranks, confidence)
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


def _group_rates(
    counts: Counts,
    grouping: tuple[str, ...],
    rate: RateDef,
    alpha: float | Fraction,
    min_cell: int,
) -> tuple[list[GroupRate], list[dict[str, Any]], Fraction]:
    """Each declared group's rate, its rows for the record, and the exact per-group alpha."""
    g = counts.groupings[grouping]
    alpha_g = exact.decimal(alpha) / len(g.groups)
    counted = metrics.group_counts(rate, g.groups)
    found = decision.group_rates(counted, float(alpha_g), min_cell)
    if len(found) > PER_GROUP_ROWS_MAX:  # the record derives the rows from the counts
        return found, [], alpha_g
    rows = []
    for cell, group in zip(g.groups.values(), found, strict=True):
        k, m = group.events, group.missing
        n = group.cases - m
        rows.append(
            {
                "group": group.label,
                "cases": cell.n,
                "numerator": k,
                "denominator": n,
                "missing_decisions": m,
                "rate": group.rate,
                "rate_range": None if n + m == 0 else {"lo": k / (n + m), "hi": (k + m) / (n + m)},
                "interval_95": _iv(stats.wilson_interval(k, n)),
                "interval_simultaneous": None if n + m == 0 else _iv(group.interval),
                "small_cell": group.small,
            }
        )
    return found, rows, alpha_g


def _some(labels: Sequence[str]) -> str:
    """The first five group names, and how many there are when there are more.

    A reason is one line in a terminal and in the record: with 100,000 groups, the
    whole list would be a line of a megabyte.

    >>> _some(["a", "b"]), _some([f"g{i}" for i in range(7)])
    ('a, b', 'g0, g1, g2, g3, g4, ... (7 in all)')
    """
    return ", ".join(labels[:5]) + (f", ... ({len(labels)} in all)" if len(labels) > 5 else "")


def _spread(entry: BatteryTest, scope: Scope, *, ratio: bool) -> TestResult:
    """Ratio (``min / max``) or difference (``max - min``) of a rate over the groups.

    The estimate is over the cases with a decision; the estimate rule reads the worst
    case over every way the missing decisions could have gone. The interval is built from
    simultaneous Clopper-Pearson intervals at ``alpha / G`` with the missing decisions at
    their worst (as the group rules'); the interval rule's FAIL is proven from the ends
    with every missing decision counted against the test (over pairs of distinct groups,
    :func:`respai.decision.adverse_ends`). A group over ``max_missing`` cases without a
    decision keeps the test from passing. A group under ``min_cell`` cases with a
    decision is shown and flagged, keeps the test from passing, and cannot make it fail
    alone (:func:`_small_cells`).
    """
    test_id, threshold, alpha = entry.id, scope.threshold, scope.alpha
    grouping = scope.grouping
    rate = entry.metric
    assert grouping is not None and rate is not None
    groups, rows, alpha_g = _group_rates(scope.counts, grouping, rate, alpha, scope.min_cell)
    level = 1 - float(alpha_g)
    what = rate.name
    formula = f"min {what} / max {what}" if ratio else f"max {what} - min {what}"
    method = formula + (
        " over the declared groups; rates over cases with a prediction; interval from "
        f"simultaneous Clopper-Pearson intervals at 1 - {_alpha_text(alpha)}/G, cases without a "
        "prediction at their worst (counted against the test for a FAIL); the estimate "
        "rule reads the worst case"
    )
    small = [g.label for g in groups if g.small]
    over = decision.over_max_missing(groups, scope.max_missing)
    details: dict[str, Any] = {
        "groups": rows,
        "rate": what,
        "min_cell": scope.min_cell,
        "small_cells": small,
        "max_missing": scope.max_missing,
        "over_max_missing": [g.label for g in over],
    }
    if len(groups) < 2:
        return _undefined(
            test_id,
            grouping,
            "one_group",
            "only one group is declared",
            threshold,
            method,
            details,
        )
    empty = [g.label for g in groups if g.cases == 0]
    if empty:
        return _undefined(
            test_id,
            grouping,
            "empty_group",
            f"no {rate.over} in group(s) {_some(empty)}, nor any without one",
            threshold,
            method,
            details,
        )
    undecided = [g.label for g in groups if g.with_prediction == 0]
    estimate_undefined: tuple[str, str] | None = None
    if undecided:
        estimate_undefined = (
            "empty_group",
            f"no {rate.over} in group(s) {_some(undecided)}",
        )
        value: Fraction | None = None
        reported: float | None = None
    else:
        rates = [Fraction(g.events, g.with_prediction) for g in groups]
        floats = [g.events / g.with_prediction for g in groups]  # what a reader recomputes
        details |= {
            "min_group": groups[rates.index(min(rates))].label,
            "max_group": groups[rates.index(max(rates))].label,
        }
        if ratio and max(rates) == 0:
            estimate_undefined = (
                "no_selections",
                "no group has a selection among its decided cases, so the ratio is 0/0",
            )
            value, reported = None, None
        elif ratio:
            value, reported = min(rates) / max(rates), min(floats) / max(floats)
        else:
            value, reported = max(rates) - min(rates), max(floats) - min(floats)
    if ratio:
        found = decision.ratio_range(groups)
        if found is None:  # no event and no missing decision anywhere
            return _undefined(
                test_id,
                grouping,
                "no_selections",
                "no group has a selection, so the ratio is 0/0",
                threshold,
                method,
                details,
            )
        worst, best = found
    else:
        worst, best = decision.diff_range(groups)
    los, his = decision.exact_ends(groups, alpha_g)
    lo, hi = decision.spread_bounds(los, his, ratio=ratio)
    # the bounds hold whenever all G simultaneous intervals do: probability >= 1 - alpha
    interval = Interval(
        lo.value,
        hi.value,
        f"bounds from Clopper-Pearson intervals at {level:.4g} each, "
        "cases without a prediction at their worst",
        1 - float(alpha),
    )
    result = _result(
        test_id,
        grouping,
        worst if value is None else value,
        interval,
        threshold,
        method,
        details,
        worst=worst,
        best=best,
        missing=sum(g.missing for g in groups),
        bounds=(lo, hi),
        reported=reported,
        broken=_adverse_spread(groups, alpha_g, threshold, ratio=ratio),
    )
    if over:
        result = _over_missing(result, over, scope.max_missing)
    if small:
        result = _small_cells(result, groups, small, ratio=ratio, min_cell=scope.min_cell)
    if estimate_undefined is not None:
        return _without_estimate(result, *estimate_undefined)
    return result


def _adverse_spread(
    groups: Sequence[GroupRate], alpha_g: Fraction, threshold: Threshold, *, ratio: bool
) -> tuple[bool, float] | None:
    """Whether a spread's interval misses its threshold with the missing ones against it.

    ``None`` without a missing decision (the interval decides as it is). The binding end
    is over pairs of distinct groups, each group's ends from
    :func:`respai.decision.adverse_ends`: the largest gap's lower bound
    ``max lo_i - hi_j`` for a ``<=`` difference, the smallest ratio's upper bound
    ``min hi_i / lo_j`` for a ``>=`` ratio.
    """
    if not any(g.missing for g in groups):
        return None
    f_los, f_his = decision.adverse_ends(groups, alpha_g)
    f_intervals = decision.adverse_intervals(groups, float(alpha_g))
    limit = threshold.as_fraction
    if ratio:
        high = decision.ratio_bounds(f_intervals, None)[1]
        if threshold.comparison.startswith(">"):
            broken = decision.some_ratio_below(f_his, f_los, limit, None, f_intervals)
            return broken, (1.0 if high is None else min(high, 1.0))
        return False, 0.0  # a ratio held to a maximum: not a threshold the battery sets
    low = decision.max_gap_bounds(f_intervals)[0]
    if threshold.comparison.startswith("<"):
        return decision.some_gap_above(f_los, f_his, low, limit, None), max(low, 0.0)
    return False, 0.0  # a difference held to a minimum: not a threshold the battery sets


def _over_missing(result: TestResult, over: Sequence[GroupRate], max_missing: float) -> TestResult:
    """A spread verdict with groups over ``max_missing``: it cannot pass (a FAIL stands)."""
    why = decision.missing_reason(over, max_missing, "prediction")
    if result.verdict is Verdict.PASS:
        return replace(
            result, verdict=Verdict.INSUFFICIENT_EVIDENCE, reason=f"{why} ({result.reason})"
        )
    if result.verdict is Verdict.FAIL:
        return result
    return replace(result, reason=f"{result.reason}; {why}")


def _small_cells(
    result: TestResult,
    groups: Sequence[GroupRate],
    small: Sequence[str],
    *,
    ratio: bool,
    min_cell: int,
) -> TestResult:
    """The verdict of a spread test with groups under ``min_cell``, as the group rules do.

    A small cell cannot decide a PASS: it becomes INSUFFICIENT_EVIDENCE. Under the
    interval rule a FAIL stands (the small cells' wide intervals only widen the bounds,
    and the FAIL is proven with the missing decisions against it). Under the estimate
    rule a FAIL stands when it does not rest on the groups with fewer than ``min_cell``
    *cases*: when every group has ``min_cell`` cases, or the groups that do fail on their
    own at their worst. Cases, not decided cases: a group pushed under ``min_cell`` by
    blanking its decisions is still counted, so blanking decisions never turns a FAIL
    into INSUFFICIENT_EVIDENCE.
    """
    threshold = result.threshold
    assert threshold is not None
    names = ", ".join(small[:5]) + (", ..." if len(small) > 5 else "")
    under = (
        f"{len(small)} group(s) have fewer than min_cell {min_cell} cases with a "
        f"prediction ({names})"
    )
    estimate_fail = result.verdict is Verdict.FAIL and threshold.decision is Decision.ESTIMATE
    found = None
    few = [g for g in groups if decision.is_small(g.cases, min_cell)]
    if estimate_fail and few:
        large = [g for g in groups if not decision.is_small(g.cases, min_cell)]
        if len(large) >= 2:
            found = decision.ratio_range(large) if ratio else decision.diff_range(large)
    # under the interval rule the small cells' wide intervals only widen the bounds
    fail_stands = (
        not estimate_fail or not few or (found is not None and not threshold.holds(found[0]))
    )
    verdict = decision.with_small_cells(result.verdict, fail_stands=fail_stands)
    if estimate_fail and found is not None and fail_stands:
        reason = (
            f"{result.reason}; the groups with at least min_cell cases fail on their own "
            f"(worst case {_fmt(found[0])}); {under}"
        )
    elif estimate_fail and few and not fail_stands:
        reason = f"{under}, and the failure rests on them: {result.reason}"
    elif result.verdict is Verdict.PASS:
        reason = f"{under}, so the test cannot pass ({result.reason})"
    else:
        reason = f"{result.reason}; {under}"
    return replace(result, verdict=verdict, reason=reason)


def completeness(counts: Counts, threshold: Threshold, confidence: float = 0.95) -> TestResult:
    """Share of non-empty cells among the columns the evaluation reads.

    A data-quality measure over every column read; missing decisions are judged by
    :func:`missing_decisions` on their own.
    """
    columns = dict(counts.null_cells)
    cells = counts.total * len(columns)
    empty = sum(columns.values())
    level = "" if confidence == 0.95 else f"{_level(confidence)} "
    method = f"non-empty cells / (cases × columns read); {level}Wilson interval over cells"
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
    interval, bounds = _wilson_widened(cells - empty, 0, cells, confidence)
    return _result(
        TestId.COMPLETENESS,
        None,
        Fraction(cells - empty, cells),
        interval,
        threshold,
        method,
        details,
        bounds=bounds,
    )


def missing_decisions(cell: Cell, threshold: Threshold, confidence: float = 0.95) -> TestResult:
    """Share of all cases that have no decision (prediction), with a Wilson interval."""
    missing, n = cell.missing, cell.n
    method = f"cases without a prediction / cases; {_level(confidence)} Wilson interval"
    details = {
        "cases": n,
        "without_decision": missing,
        "without_decision_label_1": cell.missing_pos,
        "without_decision_label_0": cell.missing_neg,
    }
    return _share_of_cases(
        TestId.MISSING_DECISIONS, missing, n, threshold, method, details, confidence
    )


def class_balance(cell: Cell, threshold: Threshold, confidence: float = 0.95) -> TestResult:
    """Share of the minority label among all cases (Wilson interval at ``confidence``)."""
    minority, n = metrics.MINORITY_SHARE.fraction(cell)
    method = (
        f"min(cases labelled 1, cases labelled 0) / cases; {_level(confidence)} Wilson interval"
    )
    details = {"labelled_1": cell.positives, "labelled_0": cell.negatives}
    return _share_of_cases(
        TestId.CLASS_BALANCE, minority, n, threshold, method, details, confidence
    )


def _share_of_cases(
    test_id: TestId,
    k: int,
    n: int,
    threshold: Threshold,
    method: str,
    details: dict[str, Any],
    confidence: float = 0.95,
) -> TestResult:
    """A whole-file test whose value is ``k`` of the ``n`` cases (undefined without cases)."""
    if n == 0:
        return _undefined(
            test_id, None, "no_cases", "there are no cases", threshold, method, details
        )
    interval, bounds = _wilson_widened(k, 0, n, confidence)
    return _result(
        test_id, None, Fraction(k, n), interval, threshold, method, details, bounds=bounds
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
    test over the whole file; ``alpha`` is the error budget of the simultaneous intervals
    (a float, or the exact share ``alpha / m`` of a family-wise run); ``min_cell`` the
    fewest cases with a decision a group needs to decide a spread test; ``max_missing``
    the largest share of a group's cases without a decision that still lets a spread test
    pass; ``confidence`` the level of the other tests' intervals (Wilson, AUC).
    """

    counts: Counts
    threshold: Threshold
    alpha: float | Fraction
    grouping: tuple[str, ...] | None = None
    min_cell: int = DEFAULT_MIN_CELL
    max_missing: float = DEFAULT_MAX_MISSING
    confidence: float = 0.95


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

    def run(
        self,
        counts: Counts,
        threshold: Threshold,
        alpha: float | Fraction,
        min_cell: int = DEFAULT_MIN_CELL,
        max_missing: float = DEFAULT_MAX_MISSING,
        confidence: float = 0.95,
    ) -> tuple[TestResult, ...]:
        """The test's results: one per grouping for a per-grouping test, else one."""
        if not self.per_grouping:
            scope = Scope(counts, threshold, alpha, None, min_cell, max_missing, confidence)
            return (self.compute(self, scope),)
        return tuple(
            self.compute(
                self, Scope(counts, threshold, alpha, g, min_cell, max_missing, confidence)
            )
            for g in counts.groupings
        )


_SEED = "respai default"


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
                compute=lambda _, s: accuracy(s.counts.overall, s.threshold, s.confidence),
            ),
            BatteryTest(
                id=TestId.AUC,
                name="AUC",
                details=DetailsKind.RANKS,
                default=_threshold(">=", 0.70, _USABLE),
                metric=None,
                per_grouping=False,
                heading="auc",
                compute=lambda _, s: auc(s.counts, s.threshold, s.confidence),
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
                id=TestId.MISSING_DECISIONS,
                name="Missing decisions",
                details=DetailsKind.DECISIONS,
                default=_threshold("<=", 0.02, _ADEQUACY),
                metric=None,
                per_grouping=False,
                heading="missing-decisions",
                compute=lambda _, s: missing_decisions(
                    s.counts.overall, s.threshold, s.confidence
                ),
            ),
            BatteryTest(
                id=TestId.COMPLETENESS,
                name="Completeness",
                details=DetailsKind.CELLS,
                default=_threshold(">=", 0.98, _ADEQUACY),
                metric=None,
                per_grouping=False,
                heading="completeness",
                compute=lambda _, s: completeness(s.counts, s.threshold, s.confidence),
            ),
            BatteryTest(
                id=TestId.CLASS_BALANCE,
                name="Class balance",
                details=DetailsKind.LABELS,
                default=_threshold(">=", 0.10, _ADEQUACY),
                metric=metrics.MINORITY_SHARE,
                per_grouping=False,
                heading="class-balance",
                compute=lambda _, s: class_balance(s.counts.overall, s.threshold, s.confidence),
            ),
        )
    }
)
#: Every battery test id, in report order.
BATTERY: tuple[str, ...] = tuple(REGISTRY)
#: Default thresholds and where they come from (the methods page's table).
DEFAULT_THRESHOLDS: dict[str, Threshold] = {t.id.value: t.default for t in REGISTRY.values()}
#: Tests computed once per attribute and per declared intersection.
PER_GROUPING: tuple[str, ...] = tuple(t.id.value for t in REGISTRY.values() if t.per_grouping)
#: The display name of every battery test id (every block's: :func:`respai.blocks.test_names`).
TEST_NAMES: Mapping[str, str] = MappingProxyType({t.id.value: t.name for t in REGISTRY.values()})


def run_battery(
    counts: Counts,
    tests: Sequence[str],
    thresholds: Mapping[str, Threshold],
    alpha: float | Fraction = 0.05,
    min_cell: int = DEFAULT_MIN_CELL,
    max_missing: float = DEFAULT_MAX_MISSING,
    confidence: float = 0.95,
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
        Error budget for the simultaneous intervals behind ratio and gap bounds: the
        run's alpha, or its exact share ``alpha / m`` under ``familywise: bonferroni``.
    min_cell
        The fewest cases with a decision a group needs for a per-group test to pass
        (the fairness block's or policy's ``min_cell``, as for the group rules).
    max_missing
        The largest share of a group's cases (of a rate's population) without a decision
        that still lets a per-group test pass (the fairness block's or policy's).
    confidence
        The level of every other test's interval (Wilson, AUC): 95%, or ``1 - alpha / m``
        under ``familywise: bonferroni``.

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
            out.extend(
                test.run(counts, thresholds[test.id], alpha, min_cell, max_missing, confidence)
            )
    return tuple(out)


# --- what a run of a spec measures ------------------------------------------------------


def thresholds_for(policy: Policy | None) -> dict[str, Threshold]:
    """The default thresholds with a policy's per-test overrides applied."""
    out = dict(DEFAULT_THRESHOLDS)
    if policy is None:
        return out
    for test_id, override in policy.tests.items():
        base = out[test_id]
        out[test_id] = Threshold(
            comparison=base.comparison,
            value=override.get("threshold", base.value),
            source=policy.source if override else base.source,
            decision=Decision(override.get("decision", base.decision.value)),
        )
    return out


def battery_plan(parsed: Spec) -> tuple[str | None, tuple[str, ...]]:
    """The score column and the battery tests a run of ``parsed`` measures.

    Without a listed ``evaluation.tests`` the default battery runs, leaving the AUC out
    when there is no score column. Reads no data (``respai plan`` seals the same list).

    Raises
    ------
    respai.errors.SpecError
        When ``evaluation.tests`` lists ``auc`` and there is no score column, or the spec
        has no ``fairness:`` block.
    """
    ev = parsed.evaluation
    score = (ev.score if ev else None) or parsed.fairness.probability
    if ev is None or not ev.explicit_tests:
        # without a score column the default battery leaves AUC out (and says so)
        return score, tuple(BATTERY if score else (t for t in BATTERY if t != TestId.AUC))
    if TestId.AUC in ev.tests and score is None:
        origin = str(parsed.path) if parsed.path else "spec"
        raise SpecError(
            f"{origin}: evaluation.tests: lists auc, but there is no score column.",
            "Set evaluation.score (or fairness.probability), or remove auc.",
        )
    return score, tuple(ev.tests)
