"""Bounds on the largest gap, the smallest ratio and the worst group, from sorted ends.

Part of :mod:`respai.decision`; pure. Every question over the pairs of groups is answered
from the groups sorted by one end, never from the ``G^2`` pairs.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from fractions import Fraction

from respai import exact
from respai.types import Interval

__all__ = [
    "MARGIN",
    "Pairs",
    "every_gap_within",
    "every_ratio_at_least",
    "max_gap_bounds",
    "pairs_for",
    "positive",
    "ratio_bounds",
    "reference_gap_bounds",
    "some_gap_above",
    "some_ratio_below",
    "spread_bounds",
    "worst_group_decided",
]


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
    number is a gap some pair reaches and the second one no pair exceeds, with the joint
    confidence of the intervals (``1 - alpha``), not with certainty.
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
        found: Iterable[tuple[int, int]] = (  # a generator: stops at the first deciding pair
            _pairs_from(
                [iv.hi for iv in intervals],
                [iv.lo for iv in intervals],
                lambda x, y: x / y <= t + MARGIN,
                x_first=False,  # the smallest numerator over the largest divisor first
                y_first=True,
                js=kept,
            )
        )
    else:
        found = pairs
    for i, j in found:
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
        found: Iterable[tuple[int, int]] = (  # a generator: stops at the first deciding pair
            _pairs_from(
                [iv.lo for iv in intervals],
                [iv.hi for iv in intervals],
                lambda x, y: x / y <= t + MARGIN,
                x_first=False,
                y_first=True,
            )
        )
    else:
        found = pairs
    for i, j in found:
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
