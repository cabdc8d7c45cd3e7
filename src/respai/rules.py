"""Group rules: the decision table for PASS, FAIL and INSUFFICIENT_EVIDENCE.

Each rule reads one attribute or declared intersection. Every group's rate gets a
Clopper-Pearson interval at ``alpha / G`` (G = number of declared groups in the rule), so
all G intervals hold at once with probability at least ``1 - alpha`` (Bonferroni), and
every pairwise difference is bounded from them at no extra cost. Cases without a
prediction stay in their group and only widen its interval: the lower bound counts them
as non-events, the upper bound as events.

Decision, in order:

1. more than ``max_left_out`` of the file left out of the rule -> INSUFFICIENT_EVIDENCE;
2. the intervals prove the rule broken -> FAIL;
3. a group with fewer than ``min_cell`` cases with a prediction -> INSUFFICIENT_EVIDENCE;
4. the intervals prove the rule holds -> PASS;
5. otherwise (an interval straddles the threshold) -> INSUFFICIENT_EVIDENCE.

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

This module is pure: it reads counts and imports no dataframe library.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction

from respai import exact, stats
from respai.counts import Cell, Counts
from respai.spec.model import FairnessSpec, Rate, Rule
from respai.types import Interval, Verdict, worst

__all__ = ["GroupRate", "RuleResult", "evaluate_rule", "observed", "rate_counts"]


@dataclass(frozen=True, slots=True)
class GroupRate:
    """One group's rate in a rule.

    ``cases`` is the rate's population in the group (e.g. cases labelled 1 for
    ``false_negative``), ``events`` those with the counted outcome, ``missing`` those
    without a prediction. ``rate`` is ``events / (cases - missing)``, ``None`` when no
    case has a prediction. ``small`` marks a cell below ``min_cell``.
    """

    key: tuple[str, ...]
    cases: int
    events: int
    missing: int
    rate: float | None
    interval: Interval
    small: bool

    @property
    def with_prediction(self) -> int:
        """Cases in the population that have a prediction."""
        return self.cases - self.missing

    @property
    def label(self) -> str:
        """The group as text, e.g. ``female × over_60``."""
        return " × ".join(self.key)


@dataclass(frozen=True, slots=True)
class RuleResult:
    """The verdict of one rule and everything it was decided from."""

    rule: Rule
    verdict: Verdict
    reason_code: str
    reason: str
    groups: tuple[GroupRate, ...]
    alpha: float
    alpha_per_group: float
    min_cell: int
    gap_bounds: tuple[float, float] | None
    left_out: Mapping[str, int]
    left_out_share: float
    max_left_out: float
    max_left_out_source: str
    #: Bounds on the smallest ratio (a ratio rule); the upper one is ``None`` when undefined.
    ratio_bounds: tuple[float, float | None] | None = None
    #: The two gap decisions of an ``equalized_odds`` rule (false positive, false negative).
    parts: tuple[RuleResult, ...] = ()


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


def _ends(groups: Sequence[GroupRate], alpha_g: Fraction) -> tuple[list[exact.Bound], ...]:
    """Each group's interval ends as exact bounds (Clopper-Pearson, missing at worst)."""
    los: list[exact.Bound] = []
    his: list[exact.Bound] = []
    for g in groups:
        if g.cases == 0:  # an empty group's interval is [0, 1]
            los.append(exact.Exact(Fraction(0)))
            his.append(exact.Exact(Fraction(1)))
        else:
            los.append(exact.ClopperPearson(g.events, g.cases, alpha_g, "lo"))
            his.append(exact.ClopperPearson(g.events + g.missing, g.cases, alpha_g, "hi"))
    return los, his


#: A float gap bound this far from the limit decides without looking at the pairs.
_MARGIN = 1e-9


Pairs = Sequence[tuple[int, int]] | None
"""The ordered pairs ``(i, j)`` of groups a rule compares: a list, or ``None`` for every
pair of distinct groups. Every pair is never listed: with ``G`` groups that is ``G^2``
tuples (10^10 at 100,000 declared values), while every question asked of them here is
answered from the groups sorted by one end, in ``O(G log G)`` plus the pairs that come
within the margin of a limit."""


def _pairs(n_groups: int, ref: int | None) -> Pairs:
    """The ordered pairs ``(i, j)`` a rule compares.

    ``None`` (every ``i != j``) without a reference; with one, the ``2 (G - 1)`` pairs
    of a group and the reference, both ways (a ratio reads ``(i, ref)`` only).
    """
    if ref is None:
        return None
    return [(i, ref) for i in range(n_groups) if i != ref] + [
        (ref, j) for j in range(n_groups) if j != ref
    ]


def _pairs_from(
    xs: Sequence[float],
    ys: Sequence[float],
    keep: Callable[[float, float], bool],
    *,
    x_first: bool,
    y_first: bool,
    js: Sequence[int] | None = None,
) -> Iterator[tuple[int, int]]:
    """Every pair ``(i, j)``, ``i != j``, with ``keep(xs[i], ys[j])``, lazily.

    ``keep`` must be monotone: if it holds for ``(x, y)`` it holds for any ``x`` earlier
    in the order ``x_first`` gives (``True``: largest first) and any ``y`` earlier in
    ``y_first``'s. The pairs are then found by walking both sorted orders and stopping at
    the first pair that fails, so the cost is a sort plus the pairs yielded (plus one per
    group). ``js`` restricts the second group to those indices.
    """
    order_i = sorted(range(len(xs)), key=xs.__getitem__, reverse=x_first)
    order_j = sorted(range(len(ys)) if js is None else js, key=ys.__getitem__, reverse=y_first)
    if not order_j:
        return
    best = ys[order_j[0]]
    for i in order_i:
        x = xs[i]
        if not keep(x, best):
            return  # no later x keeps a pair even with the best y
        for j in order_j:
            if not keep(x, ys[j]):
                break
            if j != i:
                yield i, j


def _some_gap_above(
    los: Sequence[exact.Bound],
    his: Sequence[exact.Bound],
    bound: float,
    limit: Fraction,
    pairs: Pairs,
) -> bool:
    """Whether some pair ``(i, j)`` of ``pairs`` has ``los[i] - his[j] > limit``.

    ``bound`` is the float maximum of ``los[i] - his[j]`` over the pairs; when it is
    clearly on one side of ``limit`` it decides, otherwise the pairs near the limit are
    compared exactly (:class:`respai.exact.Difference`).
    """
    if bound < float(limit) - _MARGIN:
        return False
    if bound > float(limit) + _MARGIN:
        return True
    return any(
        exact.bound_meets(exact.Difference(los[i], his[j]), ">", limit)
        for i, j in _near_differences(los, his, float(limit) - _MARGIN, pairs)
    )


def _every_gap_within(
    his: Sequence[exact.Bound],
    los: Sequence[exact.Bound],
    bound: float,
    limit: Fraction,
    pairs: Pairs,
) -> bool:
    """Whether every pair ``(i, j)`` has ``his[i] - los[j] <= limit``, decided as above."""
    if bound < float(limit) - _MARGIN:
        return True
    if bound > float(limit) + _MARGIN:
        return False
    return all(
        exact.bound_meets(exact.Difference(his[i], los[j]), "<=", limit)
        for i, j in _near_differences(his, los, float(limit) - _MARGIN, pairs)
    )


def _near_differences(
    xs: Sequence[exact.Bound], ys: Sequence[exact.Bound], near: float, pairs: Pairs
) -> Iterator[tuple[int, int]]:
    """The pairs of ``pairs`` with ``xs[i] - ys[j] >= near`` in floats."""
    if pairs is not None:
        yield from ((i, j) for i, j in pairs if xs[i].value - ys[j].value >= near)
        return
    yield from _pairs_from(
        [b.value for b in xs],
        [b.value for b in ys],
        lambda x, y: x - y >= near,
        x_first=True,  # the largest x and the smallest y make the largest difference
        y_first=False,
    )


def _gap_bounds(
    intervals: Sequence[Interval], pairs: Sequence[tuple[int, int]]
) -> tuple[float, float]:
    """``(max lo_i - hi_j, max hi_i - lo_j)`` over ``pairs``: bounds on the largest gap."""
    return (
        max(intervals[i].lo - intervals[j].hi for i, j in pairs),
        max(intervals[i].hi - intervals[j].lo for i, j in pairs),
    )


def _best_other(values: Sequence[float]) -> list[float]:
    """For each ``i``, the largest ``values[j]`` with ``j != i`` (two passes, ``O(G)``)."""
    first = max(range(len(values)), key=values.__getitem__)
    second = max((v for k, v in enumerate(values) if k != first), default=-math.inf)
    return [second if k == first else values[first] for k in range(len(values))]


def _ratio_bounds(intervals: Sequence[Interval], pairs: Pairs) -> tuple[float, float | None]:
    """Bounds on the smallest ratio ``rate_i / rate_j`` over ``pairs``.

    ``lo = min lo_i / hi_j`` (every ``hi_j > 0``: an interval's upper end is above 0
    whenever its group has a case, and 1 when it has none) and ``hi = min hi_i / lo_j``
    over the pairs with ``lo_j > 0``; ``hi`` is ``None`` when no such pair exists.
    Over every pair, each ``i`` is divided by the largest end of another group (a
    division of floats is monotone in its divisor, so the minimum is the same number).
    """
    if pairs is None:
        highs = [iv.hi for iv in intervals]
        lows = [iv.lo for iv in intervals]
        lo = min(iv.lo / h for iv, h in zip(intervals, _best_other(highs), strict=True))
        divisors = _best_other(lows)
        his = [iv.hi / d for iv, d in zip(intervals, divisors, strict=True) if d > 0]
        return lo, (min(his) if his else None)
    lo = min(intervals[i].lo / intervals[j].hi for i, j in pairs)
    ratios = [intervals[i].hi / intervals[j].lo for i, j in pairs if intervals[j].lo > 0]
    return lo, (min(ratios) if ratios else None)


def _positive(bound: exact.Bound) -> bool:
    return bound.sign(Fraction(0)) > 0


def _some_ratio_below(
    his: Sequence[exact.Bound],
    los: Sequence[exact.Bound],
    limit: Fraction,
    pairs: Pairs,
    intervals: Sequence[Interval],
) -> bool:
    """Whether some pair has ``his[i] / los[j] < limit`` (``los[j] > 0``), exactly.

    The float quotient of the intervals decides a pair clearly away from the limit; a
    pair within the margin is compared as :class:`respai.exact.Quotient`.
    """
    t = float(limit)
    if pairs is None:  # only the pairs with a quotient at most t + margin can say yes
        positive = [j for j in range(len(los)) if intervals[j].lo > 0 and _positive(los[j])]
        pairs = list(
            _pairs_from(
                [iv.hi for iv in intervals],
                [iv.lo for iv in intervals],
                lambda x, y: x / y <= t + _MARGIN,
                x_first=False,  # the smallest numerator over the largest divisor first
                y_first=True,
                js=positive,
            )
        )
    for i, j in pairs:
        if not _positive(los[j]):
            continue
        q = intervals[i].hi / intervals[j].lo if intervals[j].lo > 0 else math.inf
        if q < t - _MARGIN:
            return True
        if q <= t + _MARGIN and exact.bound_meets(exact.Quotient(his[i], los[j]), "<", limit):
            return True
    return False


def _every_ratio_at_least(
    los: Sequence[exact.Bound],
    his: Sequence[exact.Bound],
    limit: Fraction,
    pairs: Pairs,
    intervals: Sequence[Interval],
) -> bool:
    """Whether every pair has ``los[i] / his[j] >= limit``, decided as above."""
    t = float(limit)
    if pairs is None:  # only the pairs with a quotient at most t + margin can say no
        pairs = list(
            _pairs_from(
                [iv.lo for iv in intervals],
                [iv.hi for iv in intervals],
                lambda x, y: x / y <= t + _MARGIN,
                x_first=False,
                y_first=True,
            )
        )
    for i, j in pairs:
        q = intervals[i].lo / intervals[j].hi
        if q < t - _MARGIN:
            return False
        if q <= t + _MARGIN and not exact.bound_meets(exact.Quotient(los[i], his[j]), ">=", limit):
            return False
    return True


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
    pairs = _pairs(len(defined), ref)
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


def evaluate_rule(rule: Rule, spec: FairnessSpec, counts: Counts) -> RuleResult:
    """Decide one rule from the counts.

    Parameters
    ----------
    rule
        The rule (with any policy override already applied).
    spec
        The declaration: ``alpha``, ``min_cell`` and ``max_left_out`` come from here
        unless the rule sets its own ``max_left_out``.
    counts
        The counts of the one engine pass.
    """
    if rule.equalized_odds:
        return _equalized_odds(rule, spec, counts)
    grouping = counts.groupings[rule.attributes]
    n_groups = len(grouping.groups)
    alpha_g = stats.bonferroni_alpha(spec.alpha, n_groups)
    groups: list[GroupRate] = []
    for key, cell in grouping.groups.items():
        cases, events, missing = rate_counts(rule.rate, cell)
        groups.append(
            GroupRate(
                key=key,
                cases=cases,
                events=events,
                missing=missing,
                rate=stats.rate(events, cases - missing),
                interval=stats.widened_interval(events, missing, cases, alpha_g),
                # a declared group with no case is always a small cell, even at min_cell 0
                small=cases - missing < max(spec.min_cell, 1),
            )
        )
    intervals = [g.interval for g in groups]
    # every comparison with a threshold is exact (respai.exact): an end at the limit meets it
    los, his = _ends(groups, exact.decimal(spec.alpha) / n_groups)
    ref = _reference_index(groups, rule)
    against = "" if ref is None else f" against {groups[ref].label}"

    bounds: tuple[float, float] | None = None
    ratio: tuple[float, float | None] | None = None
    undefined: str | None = None
    if rule.max_group_gap is not None:
        pairs = _pairs(n_groups, ref)
        if pairs is None:
            bounds = stats.max_gap_bounds(intervals)
        else:
            bounds = _gap_bounds(intervals, pairs)
        limit = rule.max_group_gap
        q = exact.decimal(limit)
        proven_broken = _some_gap_above(los, his, bounds[0], q, pairs)
        proven_held = _every_gap_within(his, los, bounds[1], q, pairs)
        broken_text = (
            f"the smallest possible largest gap{against} {_fmt(bounds[0])} is above "
            f"max_group_gap {limit}"
        )
        held_text = (
            f"every gap{against} is at most {_fmt(bounds[1])}, within max_group_gap {limit}"
        )
        open_text = (
            f"the largest gap{against} lies between {_fmt(max(bounds[0], 0.0))} and "
            f"{_fmt(bounds[1])}, which straddles max_group_gap {limit}"
        )
    elif rule.min_group_ratio is not None:
        pairs = None if ref is None else [(i, ref) for i in range(n_groups) if i != ref]
        ratio = _ratio_bounds(intervals, pairs)
        limit = rule.min_group_ratio
        q = exact.decimal(limit)
        proven_broken = _some_ratio_below(his, los, q, pairs, intervals)
        proven_held = _every_ratio_at_least(los, his, q, pairs, intervals)
        to = "the highest group's rate" if ref is None else f"the rate of {groups[ref].label}"
        broken_text = (
            f"the largest possible smallest ratio to {to} "
            f"{_fmt(ratio[1] if ratio[1] is not None else math.inf)} is below "
            f"min_group_ratio {limit}"
        )
        held_text = (
            f"every ratio to {to} is at least {_fmt(ratio[0])}, "
            f"at or above min_group_ratio {limit}"
        )
        high = "no upper bound" if ratio[1] is None else _fmt(ratio[1])
        open_text = (
            f"the smallest ratio to {to} lies between {_fmt(ratio[0])} and "
            f"{high}, which straddles min_group_ratio {limit}"
        )
        denominators = [los[ref]] if ref is not None else los
        if not any(_positive(b) for b in denominators):
            undefined = (
                f"the rate of the reference group {groups[ref].label} may be 0 (its interval's "
                "lower bound is 0), so the ratio to it has no upper bound"
                if ref is not None
                else "every group's rate may be 0 (each interval's lower bound is 0), so the "
                "ratio to the highest rate has no upper bound"
            ) + "; more cases with a prediction would bound it"
    elif rule.worst_min is not None:
        limit = rule.worst_min
        highs = [g.interval.hi for g in groups]
        q = exact.decimal(limit)
        proven_broken = any(exact.bound_meets(b, "<", q) for b in his)
        proven_held = all(exact.bound_meets(b, ">=", q) for b in los)
        worst_group = groups[highs.index(min(highs))].label
        broken_text = f"group {worst_group} lies wholly below the minimum {limit}"
        held_text = f"every group's interval is at or above the minimum {limit}"
        open_text = f"some group's interval straddles the minimum {limit}"
    else:
        assert rule.worst_max is not None
        limit = rule.worst_max
        lows = [g.interval.lo for g in groups]
        q = exact.decimal(limit)
        proven_broken = any(exact.bound_meets(b, ">", q) for b in los)
        proven_held = all(exact.bound_meets(b, "<=", q) for b in his)
        worst_group = groups[lows.index(max(lows))].label
        broken_text = f"group {worst_group} lies wholly above the maximum {limit}"
        held_text = f"every group's interval is at or below the maximum {limit}"
        open_text = f"some group's interval straddles the maximum {limit}"

    left_share = grouping.left_out_total / counts.total if counts.total else 0.0
    if rule.max_left_out is not None:
        max_left, max_left_source = rule.max_left_out, rule.max_left_out_source
    else:
        max_left = spec.max_left_out
        max_left_source = spec.sources.get("max_left_out", "spec")
    small = [g.label for g in groups if g.small]

    left_exact = exact.fraction(grouping.left_out_total, counts.total) or Fraction(0)
    if exact.meets(left_exact, ">", exact.decimal(max_left)):
        verdict, code = Verdict.INSUFFICIENT_EVIDENCE, "too_many_left_out"
        reason = (
            f"{grouping.left_out_total} of {counts.total} cases "
            f"({left_share:.1%}) are left out, more than max_left_out {max_left:.0%}; "
            "the kept cases may not stand for the rest"
        )
        if proven_broken:
            reason += f" (on the kept cases, {broken_text})"
    elif proven_broken:
        verdict, code, reason = Verdict.FAIL, "threshold_exceeded", broken_text
    elif small:
        verdict, code = Verdict.INSUFFICIENT_EVIDENCE, "small_cell"
        reason = (
            f"{len(small)} group(s) have fewer than min_cell {spec.min_cell} cases "
            f"with a prediction ({', '.join(small[:5])}"
            f"{', ...' if len(small) > 5 else ''}); the largest gap could be there"
        )
    elif undefined is not None:
        verdict, code, reason = Verdict.INSUFFICIENT_EVIDENCE, "ratio_undefined", undefined
    elif proven_held:
        verdict, code, reason = Verdict.PASS, "within_threshold", held_text
    else:
        verdict, code, reason = Verdict.INSUFFICIENT_EVIDENCE, "interval_straddles", open_text

    return RuleResult(
        rule=rule,
        verdict=verdict,
        reason_code=code,
        reason=reason,
        groups=tuple(groups),
        alpha=spec.alpha,
        alpha_per_group=alpha_g,
        min_cell=spec.min_cell,
        gap_bounds=bounds,
        left_out=grouping.left_out,
        left_out_share=left_share,
        max_left_out=max_left,
        max_left_out_source=max_left_source,
        ratio_bounds=ratio,
    )


def _equalized_odds(rule: Rule, spec: FairnessSpec, counts: Counts) -> RuleResult:
    """Both gap decisions of an ``equalized_odds`` rule, and the worse of the two.

    The result carries the worse part's groups, bounds and reason code (the false
    positive part on a tie), a reason naming both, and both parts in ``parts``.
    """
    parts = tuple(
        evaluate_rule(replace(rule, rate=rate, equalized_odds=False), spec, counts)
        for rate in rule.rates
    )
    verdict = worst(p.verdict for p in parts)
    base = next(p for p in parts if p.verdict is verdict)
    reason = "; ".join(f"{p.rule.rate.value}: {p.verdict.value}, {p.reason}" for p in parts)
    return replace(base, rule=rule, verdict=verdict, reason=reason, parts=parts)
