"""The looks of a monitoring stream: cumulative counts per rule and group, and verdicts.

Pure functions of counts. Each look adds one batch's counts; at every look each group's
rate gets its confidence sequence (:mod:`respai.monitor.sequence`) at the Bonferroni share
of alpha over the rule's groups, and the rule is decided on those bounds with the group
rules' decision table. Because the sequences hold at every look at once, the verdicts of
all looks are right together with probability at least ``1 - alpha``, however many looks
are taken.

Abstaining never improves a look: a PASS needs the sequences with the missing decisions
at their worst on each side, a FAIL is proven from the ends with every missing decision
counted against the rule (the lower end with them events, the upper with them
non-events), and a group over ``max_missing`` cases without a decision cannot pass.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from respai.decision import is_small, max_gap_bounds, verdict_table
from respai.exact import decimal
from respai.monitor.sequence import confidence_sequence, widened_sequence
from respai.spec import FairnessSpec, Rule
from respai.stats import bonferroni_alpha
from respai.types import Interval, Verdict, worst

__all__ = ["BatchCounts", "GroupLook", "Look", "RuleLook", "decide_looks"]


@dataclass(frozen=True, slots=True)
class BatchCounts:
    """One batch's counts: per rule, per group ``(cases, events, missing)``, and who is out.

    ``groups[rule_id][group]`` counts the rule's rate population in the group: ``cases``
    (with and without a prediction), ``events`` and ``missing`` (no prediction), as
    :func:`respai.rules.rate_counts` defines them.
    """

    look: int
    batch: Mapping[str, Any]
    groups: Mapping[str, Mapping[str, tuple[int, int, int]]]
    left_out: Mapping[str, int]
    total: int

    def to_json(self) -> dict[str, Any]:
        """The batch as the record's ``counts.monitor.looks[]`` entry holds it."""
        return {
            "look": self.look,
            "batch": dict(self.batch),
            "total": self.total,
            "rules": {
                rid: {
                    "groups": {g: list(c) for g, c in groups.items()},
                    "left_out": self.left_out[rid],
                }
                for rid, groups in self.groups.items()
            },
        }


@dataclass(frozen=True, slots=True)
class GroupLook:
    """One group of one rule at one look: cumulative counts and the sequence's interval."""

    group: str
    cases: int
    events: int
    missing: int
    interval: Interval

    @property
    def adverse(self) -> Interval:
        """The ends a FAIL is proven from: missing decisions against the rule on each side.

        The lower end counts them as events, the upper as non-events (the ends may cross);
        the interval itself without a missing decision.
        """
        if self.missing == 0 or self.cases == 0:
            return self.interval
        alpha = 1.0 - self.interval.confidence
        lo = confidence_sequence(self.events + self.missing, self.cases, alpha).lo
        hi = confidence_sequence(self.events, self.cases, alpha).hi
        return Interval(lo, hi, self.interval.method, self.interval.confidence)

    @property
    def rate(self) -> float | None:
        """``events / (cases - missing)``; ``None`` without a decided case."""
        decided = self.cases - self.missing
        return None if decided == 0 else self.events / decided

    def to_json(self) -> dict[str, Any]:
        """The group as ``--json`` and the record show it."""
        return {
            "group": self.group,
            "cases": self.cases,
            "events": self.events,
            "missing": self.missing,
            "rate": self.rate,
            "interval": self.interval.to_json(),
        }


@dataclass(frozen=True, slots=True)
class RuleLook:
    """One rule at one look: its verdict, why, and whether it changed since the last look."""

    id: str
    verdict: Verdict
    reason: str
    groups: tuple[GroupLook, ...]
    gap_bounds: tuple[float, float] | None
    changed_from: Verdict | None = None

    def to_json(self) -> dict[str, Any]:
        """The rule as ``--json`` shows it."""
        out: dict[str, Any] = {
            "id": self.id,
            "verdict": self.verdict.value,
            "reason": self.reason,
            "groups": [g.to_json() for g in self.groups],
        }
        if self.gap_bounds is not None:
            out["gap_bounds"] = {"lo": self.gap_bounds[0], "hi": self.gap_bounds[1]}
        if self.changed_from is not None:
            out["changed_from"] = self.changed_from.value
        return out


@dataclass(frozen=True, slots=True)
class Look:
    """Every rule at one look, from the stream's start to this batch."""

    look: int
    batch: Mapping[str, Any]
    rules: tuple[RuleLook, ...]
    new: bool = field(default=True)

    @property
    def verdict(self) -> Verdict:
        """The worst verdict over the rules."""
        return worst(r.verdict for r in self.rules)

    def to_json(self) -> dict[str, Any]:
        """The look as ``--json`` shows it."""
        return {
            "look": self.look,
            "batch": dict(self.batch),
            "verdict": self.verdict.value,
            "rules": [r.to_json() for r in self.rules],
        }


def _decide(
    rule: Rule, spec: FairnessSpec, groups: Sequence[GroupLook], left: int, total: int
) -> tuple[Verdict, str, tuple[float, float] | None]:
    """The group rules' decision table (:func:`respai.decision.verdict_table`) on the bounds.

    The comparisons are of floats, the sequences' ends and the left-out share against the
    float threshold (the rules compare exactly; see :mod:`respai.decision`).
    """
    intervals = [g.interval for g in groups]
    adverse = [g.adverse for g in groups]
    bounds = None
    if rule.max_group_gap is not None:
        bounds = max_gap_bounds(intervals)
        limit = rule.max_group_gap
        low = max_gap_bounds(adverse)[0]
        broken = low > limit
        held = bounds[1] <= limit
        broken_text = f"the smallest possible largest gap {low:.4f} is above {limit}"
        held_text = f"every gap is at most {bounds[1]:.4f}, within max_group_gap {limit}"
        open_text = f"the largest gap may lie either side of max_group_gap {limit}"
    elif rule.worst_min is not None:
        limit = rule.worst_min
        broken = any(iv.hi < limit for iv in adverse)
        held = all(iv.lo >= limit for iv in intervals)
        broken_text = f"a group lies wholly below the minimum {limit}"
        held_text = f"every group is at or above the minimum {limit}"
        open_text = f"some group straddles the minimum {limit}"
    else:
        assert rule.worst_max is not None
        limit = rule.worst_max
        broken = any(iv.lo > limit for iv in adverse)
        held = all(iv.hi <= limit for iv in intervals)
        broken_text = f"a group lies wholly above the maximum {limit}"
        held_text = f"every group is at or below the maximum {limit}"
        open_text = f"some group straddles the maximum {limit}"
    max_left = rule.max_left_out if rule.max_left_out is not None else spec.max_left_out
    small = [g.group for g in groups if is_small(g.cases - g.missing, spec.min_cell)]
    max_missing = rule.max_missing if rule.max_missing is not None else spec.max_missing
    over = [g for g in groups if g.cases and Fraction(g.missing, g.cases) > decimal(max_missing)]
    verdict, code = verdict_table(
        broken=broken,
        held=held,
        left_out=bool(total) and left / total > max_left,
        missing=bool(over),
        small=bool(small),
    )
    reason = {
        "too_many_left_out": (
            f"{left} of {total} cases so far are left out, more than max_left_out {max_left:.0%}"
        ),
        "threshold_exceeded": broken_text,
        "too_many_missing": (
            f"{len(over)} group(s) have more than max_missing {max_missing:.0%} of their "
            "cases so far without a prediction ("
            + ", ".join(f"{g.group} {g.missing} of {g.cases}" for g in over[:5])
            + ")"
        ),
        "small_cell": (
            f"{len(small)} group(s) have fewer than min_cell {spec.min_cell} decided cases so "
            f"far ({', '.join(small[:5])})"
        ),
        "within_threshold": held_text,
    }.get(code, open_text)
    return verdict, reason, bounds


def decide_looks(
    spec: FairnessSpec, batches: Sequence[BatchCounts], first_new: int
) -> tuple[Look, ...]:
    """Every look of the stream, each on the cumulative counts up to its batch.

    ``first_new`` is the number of the first look this call adds (earlier ones come from
    the ledger); a rule whose verdict differs from the look before says so.
    """
    running: dict[str, dict[str, list[int]]] = {}
    left: dict[str, int] = {}
    total = 0
    previous: dict[str, Verdict] = {}
    looks = []
    for batch in batches:
        total += batch.total
        rules = []
        for rule in spec.rules:
            per = running.setdefault(rule.id, {})
            for group, (cases, events, missing) in batch.groups[rule.id].items():
                acc = per.setdefault(group, [0, 0, 0])
                acc[0] += cases
                acc[1] += events
                acc[2] += missing
            left[rule.id] = left.get(rule.id, 0) + batch.left_out[rule.id]
            alpha_g = bonferroni_alpha(spec.alpha, max(len(per), 1))
            groups = tuple(
                GroupLook(g, c, e, m, widened_sequence(e, m, c, alpha_g))
                for g, (c, e, m) in per.items()
            )
            verdict, reason, bounds = _decide(rule, spec, groups, left[rule.id], total)
            before = previous.get(rule.id)
            rules.append(
                RuleLook(
                    rule.id,
                    verdict,
                    reason,
                    groups,
                    bounds,
                    before if before is not None and before != verdict else None,
                )
            )
            previous[rule.id] = verdict
        looks.append(Look(batch.look, batch.batch, tuple(rules), batch.look >= first_new))
    return tuple(looks)
