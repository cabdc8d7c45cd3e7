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

Every comparison with a threshold is exact (:mod:`respai.exact`): an interval end is
compared through the binomial tail at the threshold, a share of counts as a fraction.

This module is pure: it reads counts and imports no dataframe library.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from respai import exact, stats
from respai.counts import Cell, Counts
from respai.spec.model import FairnessSpec, Rate, Rule
from respai.types import Interval, Verdict

__all__ = ["GroupRate", "RuleResult", "evaluate_rule", "rate_counts"]


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


def _some_gap_above(
    los: Sequence[exact.Bound], his: Sequence[exact.Bound], bound: float, limit: Fraction
) -> bool:
    """Whether some pair ``i != j`` has ``los[i] - his[j] > limit``.

    ``bound`` is the float maximum of ``los[i] - his[j]`` over the pairs; when it is
    clearly on one side of ``limit`` it decides, otherwise the pairs near the limit are
    compared exactly (:class:`respai.exact.Difference`).
    """
    if bound < float(limit) - _MARGIN:
        return False
    if bound > float(limit) + _MARGIN:
        return True
    near = float(limit) - _MARGIN
    return any(
        exact.bound_meets(exact.Difference(a, b), ">", limit)
        for i, a in enumerate(los)
        for j, b in enumerate(his)
        if i != j and a.value - b.value >= near
    )


def _every_gap_within(
    his: Sequence[exact.Bound], los: Sequence[exact.Bound], bound: float, limit: Fraction
) -> bool:
    """Whether every pair ``i != j`` has ``his[i] - los[j] <= limit``, decided as above."""
    if bound < float(limit) - _MARGIN:
        return True
    if bound > float(limit) + _MARGIN:
        return False
    near = float(limit) - _MARGIN
    return all(
        exact.bound_meets(exact.Difference(a, b), "<=", limit)
        for i, a in enumerate(his)
        for j, b in enumerate(los)
        if i != j and a.value - b.value >= near
    )


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

    bounds: tuple[float, float] | None = None
    if rule.max_group_gap is not None:
        bounds = stats.max_gap_bounds(intervals)
        limit = rule.max_group_gap
        q = exact.decimal(limit)
        proven_broken = _some_gap_above(los, his, bounds[0], q)
        proven_held = _every_gap_within(his, los, bounds[1], q)
        broken_text = (
            f"the smallest possible largest gap {_fmt(bounds[0])} is above max_group_gap {limit}"
        )
        held_text = f"every gap is at most {_fmt(bounds[1])}, within max_group_gap {limit}"
        open_text = (
            f"the largest gap lies between {_fmt(max(bounds[0], 0.0))} and "
            f"{_fmt(bounds[1])}, which straddles max_group_gap {limit}"
        )
    elif rule.worst_min is not None:
        limit = rule.worst_min
        lows = [g.interval.lo for g in groups]
        highs = [g.interval.hi for g in groups]
        q = exact.decimal(limit)
        proven_broken = any(exact.bound_meets(b, "<", q) for b in his)
        proven_held = all(exact.bound_meets(b, ">=", q) for b in los)
        worst = groups[highs.index(min(highs))].label
        broken_text = f"group {worst} lies wholly below the minimum {limit}"
        held_text = f"every group's interval is at or above the minimum {limit}"
        open_text = f"some group's interval straddles the minimum {limit}"
    else:
        assert rule.worst_max is not None
        limit = rule.worst_max
        lows = [g.interval.lo for g in groups]
        highs = [g.interval.hi for g in groups]
        q = exact.decimal(limit)
        proven_broken = any(exact.bound_meets(b, ">", q) for b in los)
        proven_held = all(exact.bound_meets(b, "<=", q) for b in his)
        worst = groups[lows.index(max(lows))].label
        broken_text = f"group {worst} lies wholly above the maximum {limit}"
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
    )
