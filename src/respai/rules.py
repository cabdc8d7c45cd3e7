"""Group rules: the decision table for PASS, FAIL and INSUFFICIENT_EVIDENCE.

Each rule reads one attribute or declared intersection. Every group's rate gets a
Clopper-Pearson interval at ``alpha / G`` (G = number of declared groups in the rule), so
all G intervals hold at once with probability at least ``1 - alpha`` (Bonferroni), and
every pairwise difference is bounded from them at no extra cost. Cases without a
prediction stay in their group and only widen its interval: the lower bound counts them
as non-events, the upper bound as events.

Decision, in order (:func:`respai.decision.verdict_table`):

1. more than ``max_left_out`` of the file left out of the rule -> INSUFFICIENT_EVIDENCE;
2. the intervals prove the rule broken, with every case without a prediction counted
   against the rule (:func:`respai.decision.adverse_ends`) -> FAIL;
3. a group with more than ``max_missing`` of its cases without a prediction ->
   INSUFFICIENT_EVIDENCE;
4. a group with fewer than ``min_cell`` cases with a prediction -> INSUFFICIENT_EVIDENCE;
5. the intervals prove the rule holds -> PASS;
6. otherwise (an interval straddles the threshold) -> INSUFFICIENT_EVIDENCE.

Abstaining never improves a verdict: a PASS needs every way the missing predictions
could have gone to pass (the widened intervals), and a FAIL stands when some way fails
(the adverse ends), so blanking predictions can turn a PASS into INSUFFICIENT_EVIDENCE
or FAIL, and INSUFFICIENT_EVIDENCE into FAIL, never the other way.

A gap rule (``max_group_gap``) bounds the largest ``|rate_i - rate_j|`` over every pair,
or with ``reference`` over the pairs of a group and the reference group. A ratio rule
(``min_group_ratio``) bounds the smallest ``rate_i / rate_j``: over every pair (the lowest
rate to the highest), or with ``reference`` of each group's rate to the reference's. The
bounds of a ratio come from the two intervals, ``lo = lo_i / hi_j`` and
``hi = hi_i / lo_j``; when the denominator's rate may be 0 (its lower bound is 0: for the
highest rate, every group's lower bound is 0) the ratio has no upper bound, and a rule
that is not already decided is INSUFFICIENT_EVIDENCE (``ratio_undefined``), after the
small-cell step. An ``equalized_odds`` rule is two gap rules, on ``false_positive`` and
``false_negative``; its verdict is the worse of the two and both are reported.

Every comparison with a threshold is exact (:mod:`respai.exact`): an interval end is
compared through the binomial tail at the threshold, a share of counts as a fraction, a
difference or ratio of two ends as :class:`respai.exact.Difference` or
:class:`respai.exact.Quotient`.

The group rates, their bounds and the verdict table are :mod:`respai.decision`'s, which
the battery, the monitor and the paired tests share; this module applies them to a rule
and words the reasons.

This module is pure: it reads counts and imports no dataframe library.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction

from respai import decision, exact, stats, weights
from respai.counts import Cell, Counts
from respai.decision import GroupRate
from respai.metrics import group_counts
from respai.spec.parsed import FairnessSpec, Rate, Rule
from respai.types import Verdict, worst
from respai.weights import WeightedCounts

__all__ = [
    "RuleResult",
    "evaluate_rule",
    "guarantee",
    "guarantee_line",
    "interval_method",
    "observed",
    "rate_counts",
]


@dataclass(frozen=True, slots=True)
class RuleResult:
    """The verdict of one rule and everything it was decided from."""

    rule: Rule
    verdict: Verdict
    reason_code: str
    reason: str
    #: Every declared group's rate, in declared order (a :class:`~respai.decision.GroupRates`
    #: of columns from 1,000 groups, a tuple below).
    groups: Sequence[GroupRate]
    alpha: float
    alpha_per_group: float
    min_cell: int
    gap_bounds: tuple[float, float] | None
    left_out: Mapping[str, int]
    left_out_share: float
    max_left_out: float
    max_left_out_source: str
    #: The share of a group's cases without a prediction above which it cannot pass.
    max_missing: float = 0.02
    max_missing_source: str = "default"
    #: The groups over ``max_missing``.
    over_missing: tuple[str, ...] = ()
    #: Bounds on the smallest ratio (a ratio rule); the upper one is ``None`` when undefined.
    ratio_bounds: tuple[float, float | None] | None = None
    #: The two gap decisions of an ``equalized_odds`` rule (false positive, false negative).
    parts: tuple[RuleResult, ...] = ()
    #: The level of a wrong FAIL (``alpha``; half of it for each equalized-odds part).
    fail_alpha: float = 0.05
    #: The share of each group's interval a FAIL is proven from (``fail_alpha / G``).
    fail_alpha_per_group: float = 0.025
    #: How many tests share the run's alpha (``familywise: bonferroni``): the rules, and
    #: under ``respai evaluate`` every verdict-deciding test of the run; 1 without it.
    family: int = 1
    #: Whether the rule was decided on weighted rates (``data.weight``).
    weighted: bool = False

    @property
    def method(self) -> str:
        """How the rule decides PASS: ``simultaneous`` or ``pairwise``."""
        return self.rule.method if self.rule.kind != "worst_group" else "simultaneous"

    @property
    def interval_method(self) -> str:
        """How the rule's intervals and verdict are built, as the record states it."""
        return interval_method(self)

    @property
    def guarantee(self) -> str:
        """What the rule's verdict promises, as the record states it."""
        return guarantee(self)


def rate_counts(rate: Rate, cell: Cell) -> tuple[int, int, int]:
    """``(cases, events, missing)`` of ``rate`` in one group's confusion counts.

    The rate's definition is its :mod:`respai.metrics` entry (:attr:`Rate.metric`):
    ``events`` is its numerator, ``missing`` the cases of its population without a
    prediction, and ``cases`` its denominator plus ``missing``.

    Examples
    --------
    >>> rate_counts(Rate.FALSE_NEGATIVE, Cell(tp=8, fn=2, missing_pos=1, tn=5))
    (11, 2, 1)
    """
    metric = rate.metric
    events, with_prediction = metric.fraction(cell)
    missing = metric.missing_count(cell)
    return with_prediction + missing, events, missing


def _fmt(x: float) -> str:
    return f"{x:.4f}"


def observed(r: RuleResult) -> tuple[float | None, str | None]:
    """The statistic a rule's threshold is about, from the point estimates, or a reason.

    The largest gap (against the reference when the rule names one), the smallest ratio,
    or the worst group's rate; for ``equalized_odds`` the larger of the two gaps.
    """
    if r.parts:
        values = [observed(p) for p in r.parts]
        for v, why in values:
            if v is None:
                return None, why
        return max(v for v, _ in values if v is not None), None
    rates = [g.rate for g in r.groups]
    if any(x is None for x in rates):
        return None, "some declared group has no case with a prediction"
    defined = [float(x) for x in rates if x is not None]
    rule = r.rule
    if rule.kind == "worst_group":
        return (min(defined) if rule.worst_min is not None else max(defined)), None
    ref = _reference_index(r.groups, rule)
    pairs = decision.pairs_for(len(defined), ref)
    if rule.kind == "max_group_gap":
        if pairs is None:  # over every pair: the highest rate minus the lowest
            return max(defined) - min(defined), None
        return max(abs(defined[i] - defined[j]) for i, j in pairs), None
    if ref is None:
        if max(defined) == 0:
            return None, "every group has a rate of 0, so the ratio is undefined"
        return min(defined) / max(defined), None
    if defined[ref] == 0:
        return None, "the reference group has a rate of 0, so the ratio is undefined"
    return min(defined[i] / defined[ref] for i in range(len(defined)) if i != ref), None


def _reference_index(groups: Sequence[GroupRate], rule: Rule) -> int | None:
    if rule.reference is None:
        return None
    keys = [g.key for g in groups]
    return keys.index(rule.reference)


def evaluate_rule(
    rule: Rule, spec: FairnessSpec, counts: Counts, weighted: WeightedCounts | None = None
) -> RuleResult:
    """Decide one rule from the counts.

    Parameters
    ----------
    rule
        The rule (with any policy override already applied).
    spec
        The declaration: ``alpha``, ``min_cell`` and ``max_left_out`` come from here
        unless the rule sets its own ``max_left_out``; with ``familywise: bonferroni``
        each of the run's ``m`` tests is decided at ``alpha / m``
        (:attr:`FairnessSpec.rule_alpha`).
    counts
        The counts of the one engine pass.
    weighted
        The weights' sums (``data.weight``): the rule is then decided on the weighted
        rates and their Korn-Graubard intervals (:mod:`respai.weights`).
    """
    alpha = spec.rule_alpha
    if rule.equalized_odds:
        return _equalized_odds(rule, spec, counts, alpha, weighted)
    return _decide(rule, spec, counts, alpha, alpha, weighted)


def _as_float(share: Fraction, spec: FairnessSpec) -> float:
    """The float of an exact alpha: the spec's own float when it is the spec's alpha.

    So a rule decided at the spec's alpha shows exactly the numbers it always has.
    """
    return spec.alpha if share == exact.decimal(spec.alpha) else float(share)


def _weighted_groups(
    rule: Rule,
    weighted: WeightedCounts,
    plain: list[GroupRate],
    alpha_share: float,
    min_cell: int,
) -> list[weights.WeightedGroupRate]:
    """The groups' weighted rates and Korn-Graubard intervals at ``alpha_share`` each."""
    sums = weighted.sums.groupings[rule.attributes].groups
    squares = weighted.squares.groupings[rule.attributes].groups
    out = []
    for g in plain:
        w = rate_counts(rule.rate, sums[g.key])
        w2 = rate_counts(rule.rate, squares[g.key])
        out.append(
            weights.weighted_group_rate(g.key, g, w, (w2[0], w2[0] - w2[2]), alpha_share, min_cell)
        )
    return out


def _decide(
    rule: Rule,
    spec: FairnessSpec,
    counts: Counts,
    alpha: Fraction,
    fail_alpha: Fraction,
    weighted: WeightedCounts | None = None,
) -> RuleResult:
    """One rule (or one part of an equalized-odds rule) at its own alphas.

    ``alpha`` is the rule's level for a wrong PASS, ``fail_alpha`` for a wrong FAIL
    (half of it for each part of an equalized-odds rule). A FAIL is always proven from
    the simultaneous intervals at ``fail_alpha / G`` with the missing decisions counted
    against the rule; a PASS from the intervals at ``alpha / G`` (``simultaneous``) or,
    for ``method: pairwise``, from each group's interval at ``alpha`` (each pair's
    one-sided test at ``alpha``: an intersection-union test).
    """
    grouping = counts.groupings[rule.attributes]
    n_groups = len(grouping.groups)
    pairwise = rule.method == "pairwise" and rule.kind != "worst_group"
    alpha_f = _as_float(alpha, spec)
    # the share of each group's two-sided interval that decides a PASS, and a FAIL
    share = alpha if pairwise else alpha / n_groups
    fail_share = fail_alpha / n_groups
    alpha_g = alpha_f if pairwise else stats.bonferroni_alpha(alpha_f, n_groups)
    fail_g = (
        alpha_g
        if fail_share == alpha / n_groups and not pairwise
        else stats.bonferroni_alpha(_as_float(fail_alpha, spec), n_groups)
    )
    per_group = group_counts(rule.rate.metric, grouping.groups)
    groups = decision.group_rates(per_group, alpha_g, spec.min_cell)
    fgroups = (
        groups if fail_share == share else decision.group_rates(per_group, fail_g, spec.min_cell)
    )
    wgroups: list[weights.WeightedGroupRate] = []
    if weighted is not None:  # decided on the weighted rates (data.weight)
        wgroups = _weighted_groups(rule, weighted, groups, alpha_g, spec.min_cell)
        fwgroups = (
            wgroups
            if fgroups is groups
            else _weighted_groups(rule, weighted, fgroups, fail_g, spec.min_cell)
        )
        groups, fgroups = list(wgroups), list(fwgroups)
    intervals = [g.interval for g in groups]
    # every comparison with a threshold is exact (respai.exact): an end at the limit meets it
    los, his = (
        decision.exact_ends(groups, share)
        if weighted is None
        else weights.exact_ends(wgroups, alpha_g)
    )
    # a FAIL is proven with the missing predictions counted against the rule (adverse ends)
    missing_any = any(g.missing for g in groups)
    w_intervals = [g.interval for g in fgroups]  # the FAIL side's intervals, widened
    if weighted is not None:
        fw = [g for g in fgroups if isinstance(g, weights.WeightedGroupRate)]
        f_intervals = weights.adverse_intervals(fw, fail_g)
        f_los, f_his = weights.adverse_ends(fw, fail_g)
    elif missing_any:
        f_intervals = decision.adverse_intervals(fgroups, fail_g)
        f_los, f_his = decision.adverse_ends(fgroups, fail_share)
    elif fgroups is groups:
        f_intervals, f_los, f_his = intervals, los, his
    else:
        f_intervals = w_intervals
        f_los, f_his = decision.exact_ends(fgroups, fail_share)
    counted = " (the cases without a prediction counted against the rule)" if missing_any else ""
    ref = _reference_index(groups, rule)
    against = "" if ref is None else f" against {groups[ref].label}"
    by_pair = f" (each pair's one-sided test at {float(alpha):.4g}, pairwise)" if pairwise else ""

    bounds: tuple[float, float] | None = None
    ratio: tuple[float, float | None] | None = None
    undefined: str | None = None
    if rule.max_group_gap is not None:
        pairs = decision.pairs_for(n_groups, ref)
        if pairs is None:
            bounds = (
                decision.max_gap_bounds(w_intervals)[0],
                decision.max_gap_bounds(intervals)[1],
            )
            f_low = decision.max_gap_bounds(f_intervals)[0]
        else:
            bounds = (
                decision.reference_gap_bounds(w_intervals, pairs)[0],
                decision.reference_gap_bounds(intervals, pairs)[1],
            )
            f_low = decision.reference_gap_bounds(f_intervals, pairs)[0]
        limit = rule.max_group_gap
        q = exact.decimal(limit)
        proven_broken = decision.some_gap_above(f_los, f_his, f_low, q, pairs)
        proven_held = decision.every_gap_within(his, los, bounds[1], q, pairs)
        broken_text = (
            f"the smallest possible largest gap{against} {_fmt(f_low)}{counted} is above "
            f"max_group_gap {limit}"
        )
        held_text = (
            f"every gap{against} is at most {_fmt(bounds[1])}{by_pair}, within "
            f"max_group_gap {limit}"
        )
        open_text = (
            f"the largest gap{against} lies between {_fmt(max(bounds[0], 0.0))} and "
            f"{_fmt(bounds[1])}{by_pair}, which straddles max_group_gap {limit}"
        )
    elif rule.min_group_ratio is not None:
        pairs = None if ref is None else [(i, ref) for i in range(n_groups) if i != ref]
        ratio = (
            decision.ratio_bounds(intervals, pairs)[0],
            decision.ratio_bounds(w_intervals, pairs)[1],
        )
        f_high = decision.ratio_bounds(f_intervals, pairs)[1] if missing_any else ratio[1]
        limit = rule.min_group_ratio
        q = exact.decimal(limit)
        proven_broken = decision.some_ratio_below(f_his, f_los, q, pairs, f_intervals)
        proven_held = decision.every_ratio_at_least(los, his, q, pairs, intervals)
        to = "the highest group's rate" if ref is None else f"the rate of {groups[ref].label}"
        broken_text = (
            f"the largest possible smallest ratio to {to} "
            f"{_fmt(f_high if f_high is not None else math.inf)}{counted} is below "
            f"min_group_ratio {limit}"
        )
        held_text = (
            f"every ratio to {to} is at least {_fmt(ratio[0])}{by_pair}, "
            f"at or above min_group_ratio {limit}"
        )
        high = "no upper bound" if ratio[1] is None else _fmt(ratio[1])
        open_text = (
            f"the smallest ratio to {to} lies between {_fmt(ratio[0])} and "
            f"{high}{by_pair}, which straddles min_group_ratio {limit}"
        )
        denominators = [los[ref]] if ref is not None else los
        if not any(decision.positive(b) for b in denominators):
            undefined = (
                f"the rate of the reference group {groups[ref].label} may be 0 (its interval's "
                "lower bound is 0), so the ratio to it has no upper bound"
                if ref is not None
                else "every group's rate may be 0 (each interval's lower bound is 0), so the "
                "ratio to the highest rate has no upper bound"
            ) + "; more cases with a prediction would bound it"
    elif rule.worst_min is not None:
        limit = rule.worst_min
        highs = [iv.hi for iv in f_intervals]
        proven_broken = decision.worst_group_decided(
            f_los, f_his, exact.decimal(limit), minimum=True
        )[0]
        proven_held = decision.worst_group_decided(los, his, exact.decimal(limit), minimum=True)[1]
        worst_group = groups[highs.index(min(highs))].label
        broken_text = f"group {worst_group} lies wholly below the minimum {limit}{counted}"
        held_text = f"every group's interval is at or above the minimum {limit}"
        open_text = f"some group's interval straddles the minimum {limit}"
    else:
        assert rule.worst_max is not None
        limit = rule.worst_max
        lows = [iv.lo for iv in f_intervals]
        proven_broken = decision.worst_group_decided(
            f_los, f_his, exact.decimal(limit), minimum=False
        )[0]
        proven_held = decision.worst_group_decided(los, his, exact.decimal(limit), minimum=False)[
            1
        ]
        worst_group = groups[lows.index(max(lows))].label
        broken_text = f"group {worst_group} lies wholly above the maximum {limit}{counted}"
        held_text = f"every group's interval is at or below the maximum {limit}"
        open_text = f"some group's interval straddles the maximum {limit}"

    left_share = grouping.left_out_total / counts.total if counts.total else 0.0
    if rule.max_left_out is not None:
        max_left, max_left_source = rule.max_left_out, rule.max_left_out_source
    else:
        max_left = spec.max_left_out
        max_left_source = spec.sources.get("max_left_out", "spec")
    small = [g.label for g in groups if g.small]
    if rule.max_missing is not None:
        max_missing, max_missing_source = rule.max_missing, rule.max_missing_source
    else:
        max_missing = spec.max_missing
        max_missing_source = spec.sources.get("max_missing", "spec")
    over = decision.over_max_missing(groups, max_missing)

    left_exact = exact.fraction(grouping.left_out_total, counts.total) or Fraction(0)
    verdict, code = decision.verdict_table(
        broken=proven_broken,
        held=proven_held,
        left_out=exact.meets(left_exact, ">", exact.decimal(max_left)),
        missing=bool(over),
        small=bool(small),
        undefined=undefined is not None,
    )
    if code == "too_many_left_out":
        reason = (
            f"{grouping.left_out_total} of {counts.total} cases "
            f"({left_share:.1%}) are left out, more than max_left_out {max_left:.0%}; "
            "the kept cases may not stand for the rest"
        )
        if proven_broken:
            reason += f" (on the kept cases, {broken_text})"
    elif code == "too_many_missing":
        reason = decision.missing_reason(over, max_missing, "prediction")
    elif code == "small_cell":
        reason = (
            f"{len(small)} group(s) have fewer than min_cell {spec.min_cell} cases "
            f"with a prediction ({', '.join(small[:5])}"
            f"{', ...' if len(small) > 5 else ''}); the largest gap could be there"
        )
    elif code == "ratio_undefined" and undefined is not None:
        reason = undefined
    else:
        reason = {"threshold_exceeded": broken_text, "within_threshold": held_text}.get(
            code, open_text
        )

    return RuleResult(
        rule=rule,
        verdict=verdict,
        reason_code=code,
        reason=reason,
        groups=decision.kept_rates(groups),
        alpha=alpha_f,
        alpha_per_group=alpha_g,
        fail_alpha=_as_float(fail_alpha, spec),
        fail_alpha_per_group=fail_g,
        family=spec.family,
        min_cell=spec.min_cell,
        gap_bounds=bounds,
        left_out=grouping.left_out,
        left_out_share=left_share,
        max_left_out=max_left,
        max_left_out_source=max_left_source,
        max_missing=max_missing,
        max_missing_source=max_missing_source,
        over_missing=tuple(g.label for g in over),
        ratio_bounds=ratio,
        weighted=weighted is not None,
    )


def _equalized_odds(
    rule: Rule,
    spec: FairnessSpec,
    counts: Counts,
    alpha: Fraction,
    weighted: WeightedCounts | None = None,
) -> RuleResult:
    """Both gap decisions of an ``equalized_odds`` rule, and the worse of the two.

    The rule FAILs when either part fails (a union), so each part proves a FAIL at
    ``alpha / 2`` (Bonferroni over the two): a wrong FAIL of the rule stays at most
    ``alpha``. It PASSes only when both parts pass (an intersection), so each part's PASS
    is decided at ``alpha`` (intersection-union: a wrong PASS needs the broken part to
    pass, at most ``alpha``).

    The result carries the worse part's groups, bounds and reason code (the false
    positive part on a tie), a reason naming both, and both parts in ``parts``.
    """
    parts = tuple(
        _decide(
            replace(rule, rate=rate, equalized_odds=False),
            spec,
            counts,
            alpha,
            alpha / 2,
            weighted,
        )
        for rate in rule.rates
    )
    verdict = worst(p.verdict for p in parts)
    base = next(p for p in parts if p.verdict is verdict)
    reason = "; ".join(f"{p.rule.rate.value}: {p.verdict.value}, {p.reason}" for p in parts)
    return replace(base, rule=rule, verdict=verdict, reason=reason, parts=parts)


def _pct(x: float) -> str:
    return f"{x:.4g}"


def interval_method(r: RuleResult) -> str:
    """How a rule's intervals and verdict are built (the record's ``interval_method``).

    The default wording is the one engine 0.3 signed; a pairwise rule and an
    equalized-odds rule say how they differ.
    """
    text = (
        "clopper-pearson, Bonferroni over the rule's declared groups; "
        "missing predictions counted at their worst"
    )
    if r.method == "pairwise":
        text = (
            "pairwise: clopper-pearson at 1 - alpha per group, each pair's one-sided test at "
            "alpha for a PASS (intersection-union test, Berger 1982); a FAIL from the "
            "clopper-pearson intervals Bonferroni over the rule's declared groups, the "
            "missing predictions counted against the rule"
        )
    if r.rule.equalized_odds:
        text += (
            "; equalized odds: each of the two error rates proves a FAIL at alpha / 2 "
            "(Bonferroni over the two parts) and a PASS at alpha (both must pass)"
        )
    if r.weighted:
        text = text.replace("clopper-pearson", "korn-graubard (weighted)")
        text += "; decided on weighted rates (data.weight): " + weights.CONDITIONS
    return text


def guarantee_line(r: RuleResult) -> str:
    """The guarantee in a few words, for the terminal (the record has :func:`guarantee`).

    Examples
    --------
    >>> from respai.metrics import Rate
    >>> rule = Rule(id="r", rate=Rate.SELECTION, attributes=("g",), max_group_gap=0.1)
    >>> r = RuleResult(rule, Verdict.PASS, "", "", (), 0.05, 0.025, 30, None, {}, 0.0, 0.1, "")
    >>> guarantee_line(r)
    'a wrong PASS or a wrong FAIL of this rule at most 0.05 (no correction across rules)'
    """
    how = " (each pair tested at alpha)" if r.method == "pairwise" else ""
    odds = ", each error rate failing at alpha / 2" if r.rule.equalized_odds else ""
    across = (
        f"the run's {r.family} tests together at most {_pct(r.alpha * r.family)}"
        if r.family > 1
        else "no correction across rules"
    )
    level = _pct(r.alpha)
    return f"a wrong PASS or a wrong FAIL of this rule at most {level}{how}{odds} ({across})"


def guarantee(r: RuleResult) -> str:
    """What a rule's verdict promises: its wrong-PASS and wrong-FAIL levels, per rule.

    Mirrors the battery's ``threshold.guarantee``: a PASS or a FAIL is wrong no more often
    than the stated level, for this rule on its own (the run's verdict is the worst of its
    rules; ``familywise: bonferroni`` makes the level hold for every rule at once).
    """
    a = _pct(r.alpha)
    rule = r.rule
    if rule.kind == "worst_group":
        claim = "every group's rate within the bound"
    elif rule.kind == "max_group_gap":
        claim = "every gap within max_group_gap"
    else:
        claim = "every ratio at or above min_group_ratio"
    if r.method == "pairwise":
        how = "each pair's one-sided test at alpha must pass (intersection-union)"
    else:
        how = "the group intervals hold together with probability at least 1 - alpha"
    text = (
        f"decided on the whole interval, per rule: a PASS is wrong (not {claim}) with "
        f"probability at most {a}, a FAIL is wrong ({claim}) with probability at most "
        f"{a}; {how}"
    )
    if rule.equalized_odds:
        text += "; each error rate fails at alpha / 2, so either failing stays within alpha"
    if r.family > 1:
        text += (
            f"; family-wise: the run's {r.family} verdict-deciding tests share alpha "
            f"{_pct(r.alpha * r.family)} (Bonferroni), so any wrong verdict among them has "
            f"probability at most {_pct(r.alpha * r.family)}"
        )
    else:
        text += "; the run's verdict, the worst of its rules, has no correction across them"
    if r.weighted:
        text += (
            "; the rates are weighted (data.weight) and the level holds as far as the "
            "Korn-Graubard intervals hold their level (see interval_method)"
        )
    return text
