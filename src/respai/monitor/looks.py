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

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from respai.decision import is_small, max_gap_bounds, verdict_table, with_change_alarm
from respai.exact import decimal
from respai.monitor import change as cd
from respai.monitor.sequence import confidence_sequence, widened_sequence
from respai.spec import FairnessSpec, Rule
from respai.stats import bonferroni_alpha, clopper_pearson_interval
from respai.types import Interval, Verdict, worst

__all__ = [
    "CP_METHOD",
    "WINDOW_GUARANTEE",
    "BatchCounts",
    "ChangeLook",
    "DetectorLook",
    "GroupLook",
    "Look",
    "RuleLook",
    "WindowLook",
    "decide_looks",
]

#: The method of a batch's and a window's one-off intervals.
CP_METHOD = "clopper-pearson"
#: What a window's decision guarantees, as the record says it.
WINDOW_GUARANTEE = (
    "fixed-window Clopper-Pearson intervals at the per-group level (Bonferroni over the "
    "rule's groups): the window's verdict is right with probability at least 1 - alpha "
    "for this one window, chosen before its batches were seen; it is not anytime-valid, "
    "so windows decided at many looks do not hold together"
)


def _clopper(k: int, n: int, alpha: float) -> Interval:
    iv = clopper_pearson_interval(k, n, alpha)
    return Interval(0.0, 1.0, CP_METHOD, 1.0 - alpha) if iv is None else iv


def _widened_cp(k: int, missing: int, n: int, alpha: float) -> Interval:
    """Clopper-Pearson with the missing decisions at their worst on each side."""
    low = _clopper(k, n, alpha)
    if missing == 0:
        return low
    return Interval(low.lo, _clopper(k + missing, n, alpha).hi, CP_METHOD, 1.0 - alpha)


def _finite(x: float | None) -> float | None:
    return x if x is not None and math.isfinite(x) else None


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
    batch: tuple[int, int, int] | None = None
    batch_interval: Interval | None = None

    @property
    def adverse(self) -> Interval:
        """The ends a FAIL is proven from: missing decisions against the rule on each side.

        The lower end counts them as events, the upper as non-events (the ends may cross);
        the interval itself without a missing decision. A window's Clopper-Pearson
        interval is widened the same way with Clopper-Pearson ends.
        """
        if self.missing == 0 or self.cases == 0:
            return self.interval
        alpha = 1.0 - self.interval.confidence
        one = _clopper if self.interval.method == CP_METHOD else confidence_sequence
        lo = one(self.events + self.missing, self.cases, alpha).lo
        hi = one(self.events, self.cases, alpha).hi
        return Interval(lo, hi, self.interval.method, self.interval.confidence)

    @property
    def rate(self) -> float | None:
        """``events / (cases - missing)``; ``None`` without a decided case."""
        decided = self.cases - self.missing
        return None if decided == 0 else self.events / decided

    @property
    def batch_rate(self) -> float | None:
        """The look's own batch: ``events / (cases - missing)``; ``None`` without a case."""
        if self.batch is None or self.batch[0] - self.batch[2] == 0:
            return None
        return self.batch[1] / (self.batch[0] - self.batch[2])

    def to_json(self) -> dict[str, Any]:
        """The group as ``--json`` and the record show it.

        ``batch`` is the look's own batch (its counts, rate and one-off Clopper-Pearson
        interval), beside the cumulative counts and their confidence sequence.
        """
        out: dict[str, Any] = {
            "group": self.group,
            "cases": self.cases,
            "events": self.events,
            "missing": self.missing,
            "rate": self.rate,
            "interval": self.interval.to_json(),
        }
        if self.batch is not None:
            cases, events, missing = self.batch
            out["batch"] = {
                "cases": cases,
                "events": events,
                "missing": missing,
                "rate": self.batch_rate,
                "interval": Interval.json_or_none(self.batch_interval),
                "undefined_reason": None
                if self.batch_rate is not None
                else "no case of the group in this batch has a decision",
            }
        return out


@dataclass(frozen=True, slots=True)
class DetectorLook:
    """One change detector of a rule at one look (:mod:`respai.monitor.change`)."""

    label: str
    log_statistic: float | None
    alarm: bool

    def to_json(self) -> dict[str, Any]:
        """The detector as ``--json`` and the record show it."""
        log_stat = _finite(self.log_statistic)
        return {
            "detector": self.label,
            "log_statistic": log_stat,
            "statistic": None if log_stat is None else math.exp(min(log_stat, 700.0)),
            "undefined_reason": None
            if log_stat is not None or self.log_statistic is None
            else "infinite: the batch holds an event the limit rules out",
            "alarm": self.alarm,
        }


@dataclass(frozen=True, slots=True)
class ChangeLook:
    """A rule's change detectors at one look, and the first look that raised the alarm."""

    detectors: tuple[DetectorLook, ...]
    alpha: float
    alarm_look: int | None

    @property
    def threshold(self) -> float:
        """The alarm threshold of each detector: ``K * HORIZON / alpha``."""
        return cd.threshold(self.alpha, max(len(self.detectors), 1))

    @property
    def worst(self) -> DetectorLook | None:
        """The detector with the largest statistic, or ``None`` without one."""
        found = [d for d in self.detectors if d.log_statistic is not None]
        return max(found, key=lambda d: d.log_statistic or 0.0) if found else None

    def to_json(self) -> dict[str, Any]:
        """The rule's change detection as ``--json`` and the record show it."""
        return {
            "method": cd.CHANGE_METHOD,
            "alternatives": list(cd.EXCESS),
            "horizon": cd.HORIZON,
            "threshold": self.threshold,
            "guarantee": cd.guarantee_text(self.alpha),
            "detectors": [d.to_json() for d in self.detectors],
            "alarm_look": self.alarm_look,
        }


@dataclass(frozen=True, slots=True)
class WindowLook:
    """A rule decided on the last ``size`` batches only, with one-off intervals."""

    size: int
    first_look: int
    verdict: Verdict
    reason: str
    groups: tuple[GroupLook, ...]
    gap_bounds: tuple[float, float] | None

    def to_json(self) -> dict[str, Any]:
        """The window as ``--json`` and the record show it."""
        return {
            "batches": self.size,
            "first_look": self.first_look,
            "verdict": self.verdict.value,
            "reason": self.reason,
            "guarantee": WINDOW_GUARANTEE,
            "groups": [g.to_json() for g in self.groups],
            "gap_bounds": None
            if self.gap_bounds is None
            else {"lo": self.gap_bounds[0], "hi": self.gap_bounds[1]},
        }


@dataclass(frozen=True, slots=True)
class RuleLook:
    """One rule at one look: its verdict, why, and whether it changed since the last look.

    ``verdict`` is FAIL from the look a change detector raised its alarm on (the alarm
    stays raised for the rest of the stream), otherwise the cumulative verdict, which
    ``cumulative_verdict`` keeps either way.
    """

    id: str
    verdict: Verdict
    reason: str
    groups: tuple[GroupLook, ...]
    gap_bounds: tuple[float, float] | None
    changed_from: Verdict | None = None
    cumulative_verdict: Verdict | None = None
    change: ChangeLook | None = None
    window: WindowLook | None = None

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
        if self.cumulative_verdict is not None:
            out["cumulative_verdict"] = self.cumulative_verdict.value
        if self.change is not None:
            out["change"] = self.change.to_json()
        if self.window is not None:
            out["window"] = self.window.to_json()
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


def _rule_limits(rule: Rule) -> dict[str, float | None]:
    return {"gap": rule.max_group_gap, "worst_max": rule.worst_max, "worst_min": rule.worst_min}


def _change_reason(rule: Rule, change: ChangeLook, look: int) -> str:
    det = change.worst
    what = det.label if det is not None else "a group"
    if rule.max_group_gap is not None:
        broken = f"the gap of {what} is above max_group_gap {rule.max_group_gap}"
    elif rule.worst_max is not None:
        broken = f"the rate of {what} is above the maximum {rule.worst_max}"
    else:
        broken = f"the rate of {what} is below the minimum {rule.worst_min}"
    since = "at this look" if change.alarm_look == look else f"at look {change.alarm_look}"
    return (
        f"change detected {since}: since some earlier batch {broken} "
        f"({cd.CHANGE_METHOD} statistic reached {change.threshold:,.0f})"
    )


def _window(
    rule: Rule, spec: FairnessSpec, batches: Sequence[BatchCounts], size: int
) -> WindowLook:
    """The rule on the last ``size`` of ``batches``, with Clopper-Pearson at alpha / G."""
    last = list(batches[-size:])
    per: dict[str, list[int]] = {}
    left = total = 0
    for b in last:
        total += b.total
        left += b.left_out[rule.id]
        for group, counts in b.groups[rule.id].items():
            acc = per.setdefault(group, [0, 0, 0])
            for i in range(3):
                acc[i] += counts[i]
    alpha_g = bonferroni_alpha(spec.alpha, max(len(per), 1))
    groups = tuple(
        GroupLook(g, c, e, m, _widened_cp(e, m, c, alpha_g)) for g, (c, e, m) in per.items()
    )
    verdict, reason, bounds = _decide(rule, spec, groups, left, total)
    return WindowLook(len(last), last[0].look, verdict, reason, groups, bounds)


def decide_looks(
    spec: FairnessSpec,
    batches: Sequence[BatchCounts],
    first_new: int,
    window: int | None = None,
) -> tuple[Look, ...]:
    """Every look of the stream, each on the cumulative counts up to its batch.

    ``first_new`` is the number of the first look this call adds (earlier ones come from
    the ledger); a rule whose verdict differs from the look before says so. At each look
    every rule's change detectors (:mod:`respai.monitor.change`) read the look's batch;
    once one raises its alarm the rule reads FAIL for the rest of the stream. With
    ``window``, each look also decides every rule on its last ``window`` batches alone.
    """
    running: dict[str, dict[str, list[int]]] = {}
    left: dict[str, int] = {}
    states: dict[str, dict[str, cd.ChangeState]] = {}
    last: dict[str, Mapping[str, tuple[int, int, int]]] = {}
    alarms: dict[str, int] = {}
    total = 0
    previous: dict[str, Verdict] = {}
    looks = []
    for index, batch in enumerate(batches):
        total += batch.total
        rules = []
        for rule in spec.rules:
            per = running.setdefault(rule.id, {})
            before = {g: (c[0], c[1], c[2]) for g, c in per.items()}
            for group, (cases, events, missing) in batch.groups[rule.id].items():
                acc = per.setdefault(group, [0, 0, 0])
                acc[0] += cases
                acc[1] += events
                acc[2] += missing
            left[rule.id] = left.get(rule.id, 0) + batch.left_out[rule.id]
            alpha_g = bonferroni_alpha(spec.alpha, max(len(per), 1))
            own = batch.groups[rule.id]
            groups = tuple(
                GroupLook(
                    g,
                    c,
                    e,
                    m,
                    widened_sequence(e, m, c, alpha_g),
                    own.get(g, (0, 0, 0)),
                    None
                    if own.get(g, (0, 0, 0))[0] == 0
                    else _widened_cp(own[g][1], own[g][2], own[g][0], alpha_g),
                )
                for g, (c, e, m) in per.items()
            )
            cumulative, reason, bounds = _decide(rule, spec, groups, left[rule.id], total)
            detectors = cd.detectors_of_rule(list(per), **_rule_limits(rule))
            mine = states.setdefault(rule.id, {})
            log_threshold = math.log(cd.threshold(spec.alpha, max(len(detectors), 1)))
            shown = []
            for det in detectors:
                log_e = cd.batch_log_evalues(det, own, before, last.get(rule.id))
                state = cd.update(mine.get(det.label), log_e)
                mine[det.label] = state
                stat = state.log_statistic
                shown.append(
                    DetectorLook(det.label, stat, stat is not None and stat >= log_threshold)
                )
            last[rule.id] = own
            if rule.id not in alarms and any(d.alarm for d in shown):
                alarms[rule.id] = batch.look
            change = ChangeLook(tuple(shown), spec.alpha, alarms.get(rule.id))
            verdict, reason = with_change_alarm(
                cumulative,
                reason,
                alarm_reason=None
                if change.alarm_look is None
                else _change_reason(rule, change, batch.look),
            )
            windowed = (
                None if window is None else _window(rule, spec, batches[: index + 1], window)
            )
            before_verdict = previous.get(rule.id)
            rules.append(
                RuleLook(
                    rule.id,
                    verdict,
                    reason,
                    groups,
                    bounds,
                    before_verdict
                    if before_verdict is not None and before_verdict != verdict
                    else None,
                    cumulative,
                    change,
                    windowed,
                )
            )
            previous[rule.id] = verdict
        looks.append(Look(batch.look, batch.batch, tuple(rules), batch.look >= first_new))
    return tuple(looks)
