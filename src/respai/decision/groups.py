"""One group's rate: the run's alpha, small cells, the simultaneous interval, the worst case.

Part of :mod:`respai.decision`; pure.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import overload

from respai import exact, stats
from respai.spec.parsed import DEFAULT_ALPHA, DEFAULT_MAX_MISSING, Policy, Spec
from respai.types import Interval

__all__ = [
    "DEFAULT_MAX_MISSING",
    "GroupRate",
    "GroupRates",
    "adverse_ends",
    "adverse_intervals",
    "diff_range",
    "exact_ends",
    "group_rate",
    "group_rates",
    "is_small",
    "kept_rates",
    "over_max_missing",
    "ratio_range",
    "resolve_alpha",
    "resolve_max_missing",
]


# -- the significance level -------------------------------------------------------------


def resolve_alpha(spec: Spec, policy: Policy | None = None) -> tuple[float, str]:
    """One significance level for every block of a run, and where it came from.

    The policy's ``alpha`` when it sets one, else the ``fairness:`` block's ``alpha`` when
    the spec declares it, else the default 0.05. The LL144 Fisher tests and the paired
    intervals read it; the group rules and the battery read the fairness block with the
    policy applied (:func:`respai.spec.policy.apply_policy`); both apply
    :func:`alpha_in_force`, so the two cannot differ.
    """
    block = spec.fairness_block
    if block is None:
        return alpha_in_force(DEFAULT_ALPHA, "default", policy)
    return alpha_in_force(block.alpha, block.sources.get("alpha", "default"), policy)


def alpha_in_force(alpha: float, source: str, policy: Policy | None) -> tuple[float, str]:
    """The alpha in force: the policy's when it sets one, else ``alpha`` from ``source``.

    The one rule both :func:`resolve_alpha` and :func:`respai.spec.policy.apply_policy`
    (which the group rules and the battery read) apply.
    """
    if policy is not None and policy.alpha is not None:
        return policy.alpha, policy.source
    return alpha, source


def resolve_max_missing(spec: Spec, policy: Policy | None = None) -> tuple[float, str]:
    """The run's ``max_missing`` for a block without its own, and where it came from.

    The policy's when it sets one, else the ``fairness:`` block's when the spec declares
    it, else the default 0.02 (:data:`respai.spec.parsed.DEFAULT_MAX_MISSING`). The paired
    block reads it; the group rules and the battery read the fairness block with the
    policy applied, which gives the same value.
    """
    if policy is not None and policy.max_missing is not None:
        return policy.max_missing, policy.source
    block = spec.fairness_block
    if block is not None and block.sources.get("max_missing") == "spec":
        return block.max_missing, "spec"
    return DEFAULT_MAX_MISSING, "default"


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
    def missing_share(self) -> Fraction | None:
        """The share of the group's cases without a decision (``None`` without a case)."""
        return Fraction(self.missing, self.cases) if self.cases else None

    @property
    def worst_lo(self) -> Fraction:
        """The lowest the rate can be: every missing decision a non-event (``cases > 0``)."""
        return Fraction(self.events, self.cases)

    @property
    def worst_hi(self) -> Fraction:
        """The highest the rate can be: every missing decision an event (``cases > 0``)."""
        return Fraction(self.events + self.missing, self.cases)


#: From this many groups a rule keeps its groups' rates as columns (:class:`GroupRates`);
#: the compact record starts at the same number (``respai.record.compact``).
KEPT_AS_COLUMNS_MIN = 1000


class GroupRates(Sequence[GroupRate]):
    """Many groups' :class:`GroupRate` values, kept as arrays and made when read.

    A rule over 100,000 groups keeps seven arrays rather than 100,000 objects with an
    interval each (about 22 MB). Every value reads back exactly: the integers are
    64-bit, the rate and the interval's ends are the same doubles, and every group
    shares the interval's method and confidence (:func:`kept_rates` checks that).

    Examples
    --------
    >>> rates = [group_rate(("a",), 10, 3, 2, 0.025, 5), group_rate(("b",), 0, 0, 0, 0.025, 5)]
    >>> kept = GroupRates(rates)
    >>> list(kept) == rates and kept[1] == rates[1] and kept == tuple(rates)
    True
    """

    __slots__ = (
        "_cases",
        "_events",
        "_hi",
        "_keys",
        "_level",
        "_lo",
        "_method",
        "_missing",
        "_rate",
        "_small",
    )

    def __init__(self, groups: Sequence[GroupRate]) -> None:
        import numpy as np

        first = groups[0].interval if groups else Interval(0.0, 1.0, "", 0.0)
        if any(
            type(g) is not GroupRate
            or type(g.interval) is not Interval
            or g.interval.method != first.method
            or g.interval.confidence != first.confidence
            for g in groups
        ):
            raise ValueError("GroupRates keeps plain GroupRate values of one interval method")
        self._keys = [g.key for g in groups]
        self._cases = np.array([g.cases for g in groups], dtype=np.int64)
        self._events = np.array([g.events for g in groups], dtype=np.int64)
        self._missing = np.array([g.missing for g in groups], dtype=np.int64)
        self._rate = np.array(
            [np.nan if g.rate is None else g.rate for g in groups], dtype=np.float64
        )
        self._lo = np.array([g.interval.lo for g in groups], dtype=np.float64)
        self._hi = np.array([g.interval.hi for g in groups], dtype=np.float64)
        self._small = np.array([g.small for g in groups], dtype=bool)
        self._method, self._level = first.method, first.confidence

    def __len__(self) -> int:
        return len(self._keys)

    @overload
    def __getitem__(self, i: int) -> GroupRate: ...

    @overload
    def __getitem__(self, i: slice) -> list[GroupRate]: ...

    def __getitem__(self, i: int | slice) -> GroupRate | list[GroupRate]:
        if isinstance(i, slice):
            return list(self)[i]
        k = range(len(self._keys))[i]  # negative and out-of-range indices as a list's
        rate = float(self._rate[k])
        return GroupRate(
            key=self._keys[k],
            cases=int(self._cases[k]),
            events=int(self._events[k]),
            missing=int(self._missing[k]),
            rate=None if rate != rate else rate,
            interval=Interval(float(self._lo[k]), float(self._hi[k]), self._method, self._level),
            small=bool(self._small[k]),
        )

    def __iter__(self) -> Iterator[GroupRate]:
        columns = (
            self._cases,
            self._events,
            self._missing,
            self._rate,
            self._lo,
            self._hi,
            self._small,
        )
        method, level = self._method, self._level
        for key, cases, events, missing, rate, lo, hi, small in zip(
            self._keys, *(c.tolist() for c in columns), strict=True
        ):
            yield GroupRate(
                key,
                cases,
                events,
                missing,
                None if rate != rate else rate,
                Interval(lo, hi, method, level),
                small,
            )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"GroupRates({list(self)!r})"


def kept_rates(groups: Sequence[GroupRate]) -> Sequence[GroupRate]:
    """``groups`` as a rule keeps them for the rest of the run.

    From :data:`KEPT_AS_COLUMNS_MIN` plain groups of one interval method they are kept
    as :class:`GroupRates`; fewer, or weighted ones, as a tuple.
    """
    if len(groups) >= KEPT_AS_COLUMNS_MIN:
        try:
            return GroupRates(groups)
        except ValueError:  # weighted groups, or intervals of more than one method
            pass
    return tuple(groups)


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


def group_rates(
    groups: Sequence[tuple[tuple[str, ...], int, int, int]],
    alpha_share: float,
    min_cell: int,
) -> list[GroupRate]:
    """:func:`group_rate` of every ``(key, cases, events, missing)`` at one alpha share.

    The same :class:`GroupRate` values; the intervals come from one array call per end
    (:func:`respai.stats.widened_intervals`) rather than two scipy calls per group.

    Examples
    --------
    >>> group_rates([(("a",), 10, 3, 2)], 0.025, 5) == [group_rate(("a",), 10, 3, 2, 0.025, 5)]
    True
    """
    intervals = stats.widened_intervals(
        [g[2] for g in groups], [g[3] for g in groups], [g[1] for g in groups], alpha_share
    )
    return [
        GroupRate(
            key=key,
            cases=cases,
            events=events,
            missing=missing,
            rate=stats.rate(events, cases - missing),
            interval=interval,
            small=is_small(cases - missing, min_cell),
        )
        for (key, cases, events, missing), interval in zip(groups, intervals, strict=True)
    ]


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


def adverse_ends(
    groups: Sequence[GroupRate], alpha_share: Fraction
) -> tuple[list[exact.Bound], list[exact.Bound]]:
    """Each group's ends with its cases without a decision counted *against* a FAIL's doubt.

    The ends a FAIL is proven from (abstaining never escapes a FAIL): the lower end counts
    every case without a decision as an event (Clopper-Pearson lower end of
    ``(events + missing, cases)``), the upper end as a non-event (upper end of
    ``(events, cases)``). Each is the end of the interval of the completion of the missing
    decisions that is least favourable on that side, so "some completion's intervals
    prove the threshold broken" is decided by comparing these ends as the intervals'
    ends are compared. The lower end may lie above the upper end (a group whose decisions
    are mostly missing); a rule compares ends of distinct groups only. With no missing
    decision they are :func:`exact_ends`.
    """
    los: list[exact.Bound] = []
    his: list[exact.Bound] = []
    for g in groups:
        if g.cases == 0:
            los.append(exact.Exact(Fraction(0)))
            his.append(exact.Exact(Fraction(1)))
        else:
            los.append(exact.ClopperPearson(g.events + g.missing, g.cases, alpha_share, "lo"))
            his.append(exact.ClopperPearson(g.events, g.cases, alpha_share, "hi"))
    return los, his


def adverse_intervals(groups: Sequence[GroupRate], alpha_share: float) -> list[Interval]:
    """The float ends of :func:`adverse_ends`, as ``Interval(lo, hi)`` per group.

    ``lo`` may exceed ``hi`` for a group with many missing decisions: these are two ends
    of two different completions, not one interval. An empty group's ends are 0 and 1.
    """
    out = []
    for g in groups:
        if g.missing == 0 or g.cases == 0:
            out.append(g.interval)
            continue
        lo = stats.widened_interval(g.events + g.missing, 0, g.cases, alpha_share)
        hi = stats.widened_interval(g.events, 0, g.cases, alpha_share)
        out.append(Interval(lo.lo, hi.hi, g.interval.method, g.interval.confidence))
    return out


def over_max_missing(groups: Sequence[GroupRate], max_missing: float) -> list[GroupRate]:
    """The groups whose share of cases without a decision is above ``max_missing``.

    Compared exactly: ``max_missing`` is read as the decimal it spells, so 1 of 50 cases
    (0.02) is not above 0.02.

    Examples
    --------
    >>> g = group_rate(("a",), 50, 3, 1, 0.025, 5)
    >>> [x.label for x in over_max_missing([g], 0.02)], len(over_max_missing([g], 0.01))
    ([], 1)
    """
    limit = exact.decimal(max_missing)
    none_over = limit >= 0  # a group without a missing decision (share 0) is not above
    return [
        g
        for g in groups
        if g.cases and (Fraction(g.missing, g.cases) > limit if g.missing else not none_over)
    ]


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
