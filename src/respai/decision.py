"""Per-group spread and verdicts: the one module that decides.

Every block that turns per-group counts into a verdict reads it from here: the group rules
(:mod:`respai.rules`), the battery's spread tests (:mod:`respai.battery`), the monitoring
looks (:mod:`respai.monitor.looks`), the paired tests (:mod:`respai.paired.audit`) and the
LL144 screening line (:mod:`respai.ll144.tables`, :mod:`respai.ll144.seal`). It holds,
once:

- the run's significance level (:func:`resolve_alpha`);
- the small-cell rule: a group is small when fewer than ``max(min_cell, 1)`` of its cases
  have a decision (:func:`is_small`), so a declared group without one is always small;
- one group's rate with its simultaneous interval (:class:`GroupRate`,
  :func:`group_rate`) and its ends as exact bounds (:func:`exact_ends`), the cases without
  a decision counted at their worst: a non-event for the lower end, an event for the
  upper;
- the spread of a rate over every way the missing decisions could have gone
  (:func:`ratio_range`, :func:`diff_range`);
- bounds on the largest gap, the smallest ratio and the worst group, computed from the
  groups sorted by one end (never the ``G^2`` pairs): :func:`max_gap_bounds`,
  :func:`spread_bounds`, :func:`ratio_bounds`, :func:`some_gap_above` and the other
  exact tests of a limit;
- the verdict table (:func:`verdict_table`), what a small cell does to a spread verdict
  (:func:`with_small_cells`) and the screening line's comparison (:func:`below_line`).

The texts a verdict is explained with stay with each caller; the numbers and the order of
the decision are here.

Findings for the methods issue
------------------------------
The callers used to hold their own copies, which differ in details. Each caller keeps its
exact behaviour (the golden records are byte-identical); the differences are:

1. *The per-group alpha as a float.* The group rules and the monitor divide the float
   alpha (``alpha / G``, :func:`respai.stats.bonferroni_alpha`); the battery's spread
   tests take the float of the exact share (``float(decimal(alpha) / G)``). The two can
   differ in the last bit, so the displayed simultaneous intervals can too. The exact
   ends (:func:`exact_ends`) use the exact share everywhere.
2. *Gap bounds over distinct groups or not.* The rules and the monitor bound the largest
   gap over pairs of distinct groups (:func:`max_gap_bounds`); the battery's spread
   interval (:func:`spread_bounds`) takes ``max hi - min lo`` and ``max lo - min hi`` over
   all groups, so its upper end may pair a group with itself (never tighter, sometimes
   wider), and its lower end is clamped at 0 (a rule's lower gap bound may be negative).
3. *Ratio bounds.* The rules bound the smallest ratio by ``min lo_i / hi_j`` over
   distinct groups and leave the upper bound undefined when every divisor may be 0; the
   battery's ratio interval is ``lo_min / hi_max`` to ``min(1, hi_min / lo_max)`` over
   all groups, 1 when ``lo_max`` is 0.
4. *Exact or float comparisons.* The rules and the battery compare every interval end
   with its threshold exactly (:mod:`respai.exact`); the monitor compares the floats of
   its confidence sequences and of the left-out share with the float threshold, and the
   paired test the floats of its Bonett-Price interval with ``+-max_difference``.
5. *Small cells.* A rule with a small cell cannot PASS, and its FAIL stands whenever the
   intervals prove it (the small cells' wide intervals only widen the bounds). The
   battery's estimate rule lets a FAIL stand only when the groups at or above
   ``min_cell`` fail on their own, at their worst. The monitor's table is the rules' one
   without the ``ratio_undefined`` step (it has no ratio rules).
6. *Ties.* The rules name the worst group as the first with the extreme end; the battery
   takes the first group with the extreme float end for each of its four ends; the
   equalized-odds rule reports the false-positive part on a tie.
7. *The screening line.* The LL144 findings and the record's ``below_screening_line``
   compare the exact impact ratio with the line (:func:`below_line`); the funnel's
   ``first_below`` (:func:`respai.ll144.diagnosis.funnel`) compares the float worst
   ratio with the float line.
8. *The alpha that reaches the group rules and the battery* is the fairness block's with
   the policy applied (:func:`respai.spec.policy.apply_policy`); LL144 and paired read
   :func:`resolve_alpha`. They give the same value.

This module is pure: it reads counts and declarations and imports no dataframe library.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction

from respai import exact, stats
from respai.spec.model import DEFAULT_ALPHA, Policy, Spec
from respai.types import Interval, Verdict

__all__ = [
    "MARGIN",
    "GroupRate",
    "Pairs",
    "below_line",
    "diff_range",
    "every_gap_within",
    "every_ratio_at_least",
    "exact_ends",
    "group_rate",
    "is_small",
    "max_gap_bounds",
    "pairs_for",
    "positive",
    "ratio_bounds",
    "ratio_range",
    "reference_gap_bounds",
    "resolve_alpha",
    "some_gap_above",
    "some_ratio_below",
    "spread_bounds",
    "verdict_table",
    "with_small_cells",
    "worst_group_decided",
]


# -- the significance level -------------------------------------------------------------


def resolve_alpha(spec: Spec, policy: Policy | None = None) -> tuple[float, str]:
    """One significance level for every block of a run, and where it came from.

    The policy's ``alpha`` when it sets one, else the ``fairness:`` block's ``alpha`` when
    the spec declares it, else the default 0.05. The LL144 Fisher tests and the paired
    intervals read it; the group rules and the battery read the fairness block with the
    policy applied, which gives the same value.
    """
    if policy is not None and policy.alpha is not None:
        return policy.alpha, policy.source
    block = spec.fairness_block
    if block is not None and block.sources.get("alpha") == "spec":
        return block.alpha, "spec"
    return DEFAULT_ALPHA, "default"


# -- one group's rate -------------------------------------------------------------------


def is_small(decided: int, min_cell: int) -> bool:
    """Whether a group with ``decided`` cases with a decision is a small cell.

    Small means fewer than ``max(min_cell, 1)``: a declared group without a decided case
    is always small, even at ``min_cell: 0``.

    Examples
    --------
    >>> is_small(4, 5), is_small(5, 5), is_small(0, 0)
    (True, False, True)
    """
    return decided < max(min_cell, 1)


@dataclass(frozen=True, slots=True)
class GroupRate:
    """One group's rate, with its simultaneous interval.

    ``cases`` is the rate's population in the group (e.g. cases labelled 1 for
    ``false_negative``), ``events`` those with the counted outcome, ``missing`` those
    without a prediction. ``rate`` is ``events / (cases - missing)``, ``None`` when no
    case has a prediction. ``interval`` is the Clopper-Pearson interval at the group's
    share of alpha with the missing cases at their worst (``[0, 1]`` without a case).
    ``small`` marks a cell below ``min_cell`` (:func:`is_small`).
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

    @property
    def worst_lo(self) -> Fraction:
        """The lowest the rate can be: every missing decision a non-event (``cases > 0``)."""
        return Fraction(self.events, self.cases)

    @property
    def worst_hi(self) -> Fraction:
        """The highest the rate can be: every missing decision an event (``cases > 0``)."""
        return Fraction(self.events + self.missing, self.cases)


def group_rate(
    key: tuple[str, ...],
    cases: int,
    events: int,
    missing: int,
    alpha_share: float,
    min_cell: int,
) -> GroupRate:
    """One group's :class:`GroupRate` from its counts.

    Parameters
    ----------
    key
        The group's declared values.
    cases, events, missing
        The rate's population (with and without a decision), its events among the
        decided cases, and the cases without a decision.
    alpha_share
        The group's share of alpha for the simultaneous interval (e.g. ``alpha / G``).
    min_cell
        The fewest decided cases a group needs not to be a small cell.

    Examples
    --------
    >>> g = group_rate(("a",), 10, 3, 2, 0.025, 5)
    >>> g.rate, g.with_prediction, g.small
    (0.375, 8, False)
    """
    return GroupRate(
        key=key,
        cases=cases,
        events=events,
        missing=missing,
        rate=stats.rate(events, cases - missing),
        interval=stats.widened_interval(events, missing, cases, alpha_share),
        small=is_small(cases - missing, min_cell),
    )


def exact_ends(
    groups: Sequence[GroupRate], alpha_share: Fraction
) -> tuple[list[exact.Bound], list[exact.Bound]]:
    """Each group's interval ends as exact bounds (Clopper-Pearson, missing at worst).

    ``alpha_share`` is exact, e.g. ``decimal(alpha) / G``; an empty group's ends are
    exactly 0 and 1.
    """
    los: list[exact.Bound] = []
    his: list[exact.Bound] = []
    for g in groups:
        if g.cases == 0:  # an empty group's interval is [0, 1]
            los.append(exact.Exact(Fraction(0)))
            his.append(exact.Exact(Fraction(1)))
        else:
            los.append(exact.ClopperPearson(g.events, g.cases, alpha_share, "lo"))
            his.append(exact.ClopperPearson(g.events + g.missing, g.cases, alpha_share, "hi"))
    return los, his


# -- the spread with the missing decisions at their worst -------------------------------


def _pair_min(
    los: Sequence[Fraction],
    his: Sequence[Fraction],
    f: Callable[[Fraction, Fraction], Fraction | None],
) -> Fraction | None:
    """``min over i != j of f(los[i], his[j])``.

    ``f`` rises in its first argument and falls in its second (``None`` skips a pair);
    the candidates are the two lowest ``los`` against the two highest ``his``, so the
    cost is linear in the groups.
    """
    low = sorted(range(len(los)), key=lambda i: los[i])[:2]
    high = sorted(range(len(his)), key=lambda j: his[j], reverse=True)[:2]
    found = [f(los[i], his[j]) for i in low for j in high if i != j]
    values = [v for v in found if v is not None]
    return min(values) if values else None


def ratio_range(groups: Sequence[GroupRate]) -> tuple[Fraction, Fraction] | None:
    """Worst and best ``min rate / max rate`` over the missing decisions (None: 0/0).

    Every group needs a case (``cases > 0``).
    """
    los = [g.worst_lo for g in groups]
    his = [g.worst_hi for g in groups]
    worst = _pair_min(los, his, lambda lo, hi: lo / hi if hi > 0 else None)
    if worst is None:
        return None
    if max(los) > 0:
        best = min(Fraction(1), min(his) / max(los))
    else:  # every rate can be 0: they can all meet at any value up to min(his)
        best = Fraction(1) if min(his) > 0 else Fraction(0)
    return min(worst, Fraction(1)), best


def diff_range(groups: Sequence[GroupRate]) -> tuple[Fraction, Fraction]:
    """Worst (largest) and best (smallest) ``max rate - min rate`` over the missing ones.

    Every group needs a case (``cases > 0``), and there are at least two groups.
    """
    los = [g.worst_lo for g in groups]
    his = [g.worst_hi for g in groups]
    worst = _pair_min(los, his, lambda lo, hi: lo - hi)
    assert worst is not None
    return -worst, max(Fraction(0), max(los) - min(his))


# -- bounds from the simultaneous intervals ---------------------------------------------


def _top_two(values: Sequence[float]) -> tuple[int, float, float]:
    """Return the index of the largest value, the largest, and the largest of the rest.

    On ties the first index wins, and the "rest" still contains the tied copy.
    """
    best_i = 0
    best = values[0]
    second = -math.inf
    for i in range(1, len(values)):
        v = values[i]
        if v > best:
            best_i, best, second = i, v, best
        elif v > second:
            second = v
    return best_i, best, second


def _max_pairwise_difference(a: Sequence[float], b: Sequence[float]) -> float:
    """Return ``max(a[i] - b[j] for i != j)`` in one pass; ``len(a) == len(b) >= 2``."""
    ia, a1, a2 = _top_two(a)
    ib, neg_b1, neg_b2 = _top_two([-x for x in b])  # negation is exact
    b1, b2 = -neg_b1, -neg_b2
    if ia != ib:
        return a1 - b1
    # The same group holds both extremes: pair it with the runner-up on the other side.
    return max(a1 - b2, a2 - b1)


def max_gap_bounds(intervals: Sequence[Interval]) -> tuple[float, float]:
    """Return bounds on the largest gap ``rate_i - rate_j`` between two distinct groups.

    With all intervals holding simultaneously, the largest gap over ordered pairs of
    distinct groups ``i != j`` lies in ``[max lo_i - hi_j, max hi_i - lo_j]``: the first
    number is a gap that some pair certainly reaches, the second one no pair can exceed.
    Computed in linear time; equal to the brute-force maximum over all pairs.

    Parameters
    ----------
    intervals
        One jointly valid interval per group, at least two.

    Returns
    -------
    tuple of float
        ``(max_{i != j} lo_i - hi_j, max_{i != j} hi_i - lo_j)``.

    Raises
    ------
    ValueError
        If fewer than two intervals are given.

    Examples
    --------
    >>> wide = Interval(0.0, 1.0, "clopper-pearson", 0.95)
    >>> narrow = Interval(0.25, 0.75, "clopper-pearson", 0.95)
    >>> max_gap_bounds([wide, narrow])
    (-0.75, 0.75)
    """
    if len(intervals) < 2:
        raise ValueError(f"a gap needs at least two groups, got {len(intervals)}")
    los = [iv.lo for iv in intervals]
    his = [iv.hi for iv in intervals]
    return _max_pairwise_difference(los, his), _max_pairwise_difference(his, los)


def spread_bounds(
    los: Sequence[exact.Bound], his: Sequence[exact.Bound], *, ratio: bool
) -> tuple[exact.Bound, exact.Bound]:
    """The battery's interval on ``min / max`` (``ratio``) or ``max - min`` of the rates.

    From the extreme ends over every group (the first group on a tie): the ratio runs
    from ``lo_min / hi_max`` to ``hi_min / lo_max`` capped at 1 (1 when ``lo_max`` is 0),
    the difference from ``lo_max - hi_min`` (at least 0) to ``hi_max - lo_min``. Every
    upper end must be above 0 for a ratio (some group has an event).
    """
    lo_min = los[min(range(len(los)), key=lambda i: los[i].value)]
    lo_max = los[max(range(len(los)), key=lambda i: los[i].value)]
    hi_min = his[min(range(len(his)), key=lambda i: his[i].value)]
    hi_max = his[max(range(len(his)), key=lambda i: his[i].value)]
    if ratio:
        lo: exact.Bound = exact.Quotient(lo_min, hi_max)  # hi_max > 0: a Clopper-Pearson end
        hi: exact.Bound = (
            exact.Exact(Fraction(1))
            if lo_max.value <= 0 or hi_min.value / lo_max.value >= 1
            else exact.Quotient(hi_min, lo_max)
        )
        return lo, hi
    gap = exact.Difference(lo_max, hi_min)
    return (gap if gap.value > 0 else exact.Exact(Fraction(0))), exact.Difference(hi_max, lo_min)


#: A float bound this far from the limit decides without looking at the pairs.
MARGIN = 1e-9


Pairs = Sequence[tuple[int, int]] | None
"""The ordered pairs ``(i, j)`` of groups a rule compares: a list, or ``None`` for every
pair of distinct groups. Every pair is never listed: with ``G`` groups that is ``G^2``
tuples (10^10 at 100,000 declared values), while every question asked of them here is
answered from the groups sorted by one end, in ``O(G log G)`` plus the pairs that come
within the margin of a limit."""


def pairs_for(n_groups: int, ref: int | None) -> Pairs:
    """The ordered pairs ``(i, j)`` a gap compares.

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


def some_gap_above(
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
    if bound < float(limit) - MARGIN:
        return False
    if bound > float(limit) + MARGIN:
        return True
    return any(
        exact.bound_meets(exact.Difference(los[i], his[j]), ">", limit)
        for i, j in _near_differences(los, his, float(limit) - MARGIN, pairs)
    )


def every_gap_within(
    his: Sequence[exact.Bound],
    los: Sequence[exact.Bound],
    bound: float,
    limit: Fraction,
    pairs: Pairs,
) -> bool:
    """Whether every pair ``(i, j)`` has ``his[i] - los[j] <= limit``, decided as above."""
    if bound < float(limit) - MARGIN:
        return True
    if bound > float(limit) + MARGIN:
        return False
    return all(
        exact.bound_meets(exact.Difference(his[i], los[j]), "<=", limit)
        for i, j in _near_differences(his, los, float(limit) - MARGIN, pairs)
    )


def reference_gap_bounds(
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


def ratio_bounds(intervals: Sequence[Interval], pairs: Pairs) -> tuple[float, float | None]:
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


def positive(bound: exact.Bound) -> bool:
    """Whether an interval end is above 0, exactly."""
    return bound.sign(Fraction(0)) > 0


def some_ratio_below(
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
        kept = [j for j in range(len(los)) if intervals[j].lo > 0 and positive(los[j])]
        pairs = list(
            _pairs_from(
                [iv.hi for iv in intervals],
                [iv.lo for iv in intervals],
                lambda x, y: x / y <= t + MARGIN,
                x_first=False,  # the smallest numerator over the largest divisor first
                y_first=True,
                js=kept,
            )
        )
    for i, j in pairs:
        if not positive(los[j]):
            continue
        q = intervals[i].hi / intervals[j].lo if intervals[j].lo > 0 else math.inf
        if q < t - MARGIN:
            return True
        if q <= t + MARGIN and exact.bound_meets(exact.Quotient(his[i], los[j]), "<", limit):
            return True
    return False


def every_ratio_at_least(
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
                lambda x, y: x / y <= t + MARGIN,
                x_first=False,
                y_first=True,
            )
        )
    for i, j in pairs:
        q = intervals[i].lo / intervals[j].hi
        if q < t - MARGIN:
            return False
        if q <= t + MARGIN and not exact.bound_meets(exact.Quotient(los[i], his[j]), ">=", limit):
            return False
    return True


def worst_group_decided(
    los: Sequence[exact.Bound], his: Sequence[exact.Bound], limit: Fraction, *, minimum: bool
) -> tuple[bool, bool]:
    """``(broken, held)`` of a worst-group bound, exactly.

    A minimum is broken when some group's upper end is below it and held when every
    lower end is at or above it; a maximum the other way round.
    """
    if minimum:
        return (
            any(exact.bound_meets(b, "<", limit) for b in his),
            all(exact.bound_meets(b, ">=", limit) for b in los),
        )
    return (
        any(exact.bound_meets(b, ">", limit) for b in los),
        all(exact.bound_meets(b, "<=", limit) for b in his),
    )


# -- verdicts ---------------------------------------------------------------------------


def verdict_table(
    *,
    broken: bool,
    held: bool,
    left_out: bool = False,
    small: bool = False,
    undefined: bool = False,
) -> tuple[Verdict, str]:
    """The verdict of an interval against a threshold, and its reason code.

    In order: too many cases left out -> INSUFFICIENT_EVIDENCE
    (``too_many_left_out``); the interval proves the threshold broken -> FAIL
    (``threshold_exceeded``); a small cell -> INSUFFICIENT_EVIDENCE (``small_cell``); an
    undefined bound -> INSUFFICIENT_EVIDENCE (``ratio_undefined``); the interval proves the
    threshold holds -> PASS (``within_threshold``); otherwise the interval straddles it ->
    INSUFFICIENT_EVIDENCE (``interval_straddles``).

    Examples
    --------
    >>> verdict_table(broken=False, held=True)
    (<Verdict.PASS: 'PASS'>, 'within_threshold')
    >>> verdict_table(broken=False, held=True, small=True)[1]
    'small_cell'
    """
    if left_out:
        return Verdict.INSUFFICIENT_EVIDENCE, "too_many_left_out"
    if broken:
        return Verdict.FAIL, "threshold_exceeded"
    if small:
        return Verdict.INSUFFICIENT_EVIDENCE, "small_cell"
    if undefined:
        return Verdict.INSUFFICIENT_EVIDENCE, "ratio_undefined"
    if held:
        return Verdict.PASS, "within_threshold"
    return Verdict.INSUFFICIENT_EVIDENCE, "interval_straddles"


def with_small_cells(verdict: Verdict, *, fail_stands: bool) -> Verdict:
    """A spread verdict when some group is under ``min_cell``.

    A small cell cannot decide a PASS: it becomes INSUFFICIENT_EVIDENCE. A FAIL stands
    only when ``fail_stands`` (it does not rest on the small cells alone), else it is
    INSUFFICIENT_EVIDENCE. Any other verdict is kept.

    Examples
    --------
    >>> with_small_cells(Verdict.PASS, fail_stands=True)
    <Verdict.INSUFFICIENT_EVIDENCE: 'INSUFFICIENT_EVIDENCE'>
    """
    if verdict is Verdict.FAIL:
        return verdict if fail_stands else Verdict.INSUFFICIENT_EVIDENCE
    if verdict is Verdict.PASS:
        return Verdict.INSUFFICIENT_EVIDENCE
    return verdict


def below_line(value: Fraction | None, line: float | Fraction) -> bool | None:
    """Whether an exact value is under a screening line (``None`` when undefined).

    A value exactly at the line is not under it (100/300 against 125/300 is 0.8, not
    0.7999999999999999); a float line is read as the decimal it spells.

    Examples
    --------
    >>> below_line(Fraction(4, 5), 0.8), below_line(Fraction(79, 100), 0.8)
    (False, True)
    """
    if value is None:
        return None
    return exact.meets(value, "<", exact.decimal(line))
