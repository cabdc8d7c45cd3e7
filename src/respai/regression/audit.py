"""Run a spec's ``regression:`` block: count the sums once, then decide from the counts.

Everything above the count pass (:func:`respai.engine.regression_sums.cell_sums`) is a pure
function of the integer sums (:func:`evaluate_counts`), so a verifier recomputes every
number of the record from its ``counts.regression`` part.

Per group: the cases (rows of a declared group with a target), the rows left out by
reason, the mean error ``prediction - target``, the mean absolute error, the mean
prediction and the mean target, each with its interval at the rule's share of alpha
(Bonferroni over the rule's groups, so the intervals hold simultaneously).

Cases without a prediction never improve a verdict:

- with declared bounds they are counted at their worst within the bounds: the interval a
  PASS reads has its lower end with every such case at the metric's lowest possible value
  and its upper end at the highest; a FAIL stands when some such completion proves it;
- always, a group whose share of cases without a prediction exceeds ``max_missing``
  cannot PASS.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import product
from typing import Any

from respai.decision import is_small, max_gap_bounds, verdict_table, with_small_cells
from respai.engine.regression_sums import EMPTY, SUMS, UNDECLARED, Cell
from respai.regression.spec import METRICS, RegressionRule, RegressionSpec
from respai.regression.stats import Moments, interval, mean, method_name
from respai.types import Interval, Verdict

__all__ = [
    "KIND",
    "TEST_ID",
    "GroupStats",
    "RegressionResult",
    "RuleResult",
    "cells_from_counts",
    "counts_of",
    "evaluate_counts",
    "metric_range",
]

#: The kind of the block's ``--json`` document.
KIND = "respai.regression"
#: The record's test id of a rule.
TEST_ID = "regression_rule"
#: The value each metric reads from the sums.
VALUE_OF = {"mean_error": "e", "mean_absolute_error": "a", "mean_prediction": "p"}
#: Every value shown per group, with its key in the sums.
SHOWN = {
    "mean_error": "e",
    "mean_absolute_error": "a",
    "mean_prediction": "p",
    "mean_target": "t",
}


def metric_range(
    key: str, target: tuple[Fraction, Fraction], prediction: tuple[Fraction, Fraction]
) -> tuple[Fraction, Fraction]:
    """The range a value can take when the target and the prediction lie within bounds.

    ``t``, ``p``: their bounds; ``e = p - t``: ``[p_lo - t_hi, p_hi - t_lo]``; ``a = |e|``:
    from the distance between the two ranges (0 when they overlap) to the larger of
    ``|p_lo - t_hi|`` and ``|p_hi - t_lo|``.
    """
    (tl, th), (pl, ph) = target, prediction
    if key == "t":
        return tl, th
    if key == "p":
        return pl, ph
    if key == "e":
        return pl - th, ph - tl
    return max(Fraction(0), pl - th, tl - ph), max(abs(pl - th), abs(ph - tl))


@dataclass(frozen=True, slots=True)
class GroupStats:
    """One group of a grouping, with each shown value and its interval.

    ``label`` is the group (``a × b`` for an intersection); ``rows`` its rows, ``cases``
    those with a target, ``n`` those also with a prediction, ``missing`` those with a
    target but no prediction; ``weight`` the weights' sums of the complete cases (units).
    ``values[name]`` the estimate (``None`` without a case), ``intervals[name]`` the
    interval a PASS reads (the missing cases at their worst with bounds) and
    ``adverse[name]`` the ends a FAIL is proven from (``(lo, hi)``: the lower end with
    the missing cases at their highest, the upper at their lowest).
    """

    key: tuple[str, ...]
    rows: int
    cases: int
    n: int
    missing: int
    moments: Mapping[str, Moments]
    missing_sw: int
    missing_sw2: int
    values: dict[str, float | None] = field(default_factory=dict)
    intervals: dict[str, Interval | None] = field(default_factory=dict)
    adverse: dict[str, tuple[float, float] | None] = field(default_factory=dict)

    @property
    def label(self) -> str:
        """The group's name: its values joined with `` × ``."""
        return " × ".join(self.key)

    @property
    def missing_share(self) -> Fraction | None:
        """The share of the group's cases without a prediction."""
        return None if self.cases == 0 else Fraction(self.missing, self.cases)


@dataclass(frozen=True, slots=True)
class RuleResult:
    """One rule decided: its groups, its value and bounds, its verdict and why."""

    rule: RegressionRule
    groups: tuple[GroupStats, ...]
    alpha: float
    alpha_per_group: float
    value: float | None
    bounds: tuple[float, float] | None
    verdict: Verdict
    code: str
    reason: str
    guarantee: str
    left_out: Mapping[str, int]
    small: tuple[str, ...]
    over_missing: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class RegressionResult:
    """The block's outcome: the overall numbers and one :class:`RuleResult` per rule."""

    block: RegressionSpec
    cells: tuple[Cell, ...]
    overall: GroupStats
    rules: tuple[RuleResult, ...]
    alpha: float
    alpha_source: str
    max_missing: float
    max_missing_source: str
    weight: str | None
    weights: Mapping[str, Any] | None

    @property
    def verdict(self) -> Verdict:
        """The worst verdict over the rules."""
        from respai.types import worst

        return worst(r.verdict for r in self.rules)


def _moments(cells: Sequence[Cell], key: str, scale: int, weighted: bool) -> Moments:
    sums = {s: sum(c.sums[key][s] for c in cells) for s in SUMS}
    n = sum(c.n for c in cells)
    return Moments(
        n=n,
        sw=sum(c.sw for c in cells),
        sw2=sum(c.sw2 for c in cells),
        sx=sums["sx"],
        sx2=sums["sx2"],
        swx=sums["swx"],
        sw2x=sums["sw2x"],
        sw2x2=sums["sw2x2"],
        scale=scale,
        weighted=weighted,
    )


def _group(key: tuple[str, ...], cells: Sequence[Cell], scale: int, weighted: bool) -> GroupStats:
    return GroupStats(
        key=key,
        rows=sum(c.rows for c in cells),
        cases=sum(c.rows - c.no_target for c in cells),
        n=sum(c.n for c in cells),
        missing=sum(c.no_prediction for c in cells),
        moments={name: _moments(cells, k, scale, weighted) for name, k in SHOWN.items()},
        missing_sw=sum(c.missing_sw for c in cells),
        missing_sw2=sum(c.missing_sw2 for c in cells),
    )


def _fill(g: GroupStats, block: RegressionSpec, alpha: float) -> None:
    """Each shown value of ``g`` with its interval at ``1 - alpha`` (in place)."""
    confidence = 1 - alpha
    for name, key in SHOWN.items():
        m = g.moments[name]
        g.values[name] = mean(m)
        ranged = None
        if block.target_bounds is not None and block.prediction_bounds is not None:
            ranged = metric_range(key, block.target_bounds, block.prediction_bounds)
        if ranged is None or g.missing == 0 or key == "t":
            found, method = interval(m, alpha, None if ranged is None else _floats(ranged))
            g.intervals[name] = None if found is None else Interval(*found, method, confidence)
            g.adverse[name] = found
            continue
        low, high = ranged
        at_low = m.completed(g.missing, g.missing_sw, g.missing_sw2, low)
        at_high = m.completed(g.missing, g.missing_sw, g.missing_sw2, high)
        fl, method = interval(at_low, alpha, _floats(ranged))
        fh, _ = interval(at_high, alpha, _floats(ranged))
        if fl is None or fh is None:
            g.intervals[name] = None
            g.adverse[name] = None
            continue
        g.intervals[name] = Interval(
            fl[0], fh[1], f"{method}; cases without a prediction at their worst", confidence
        )
        g.adverse[name] = (fh[0], fl[1])


def _floats(pair: tuple[Fraction, Fraction]) -> tuple[float, float]:
    return float(pair[0]), float(pair[1])


def groups_of(
    cells: Sequence[Cell],
    names: Sequence[str],
    grouping: tuple[str, ...],
    attributes: Mapping[str, Sequence[str]],
    scale: int,
    weighted: bool,
) -> tuple[list[GroupStats], dict[str, int]]:
    """Every declared group of ``grouping`` (in declared order) and the rows left out."""
    where = [list(names).index(a) for a in grouping]
    by: dict[tuple[str, ...], list[Cell]] = {}
    left_out = {"empty_group": 0, "undeclared_group": 0}
    for c in cells:
        key = tuple(c.key[i] for i in where)
        if EMPTY in key:
            left_out["empty_group"] += c.rows
        elif UNDECLARED in key:
            left_out["undeclared_group"] += c.rows
        else:
            by.setdefault(key, []).append(c)
    keys = list(product(*(attributes[a] for a in grouping)))
    return [_group(k, by.get(k, []), scale, weighted) for k in keys], left_out


def _guarantee(rule: RegressionRule, method: str, groups: int, alpha: float) -> str:
    what = METRICS[rule.metric]
    base = (
        f"with probability at least {1 - alpha:.4g} the {groups} groups' {method} intervals "
        f"for the {what} hold together (Bonferroni: each at 1 - {alpha:.4g} / {groups})"
    )
    if method.startswith("empirical"):
        cond = "distribution-free for values within the declared bounds; cases independent"
    elif method.startswith("weighted"):
        cond = (
            "approximate: assumes the weighted mean is close to normal (linearization, "
            "n_eff - 1 degrees of freedom) and the weights are fixed design weights"
        )
    else:
        cond = (
            "approximate: assumes each group's mean is close to normal (checked by "
            "simulation; it under-covers on heavily skewed values in small groups)"
        )
    return (
        f"{base}; so a PASS is wrong, and a FAIL is wrong, each with probability at most "
        f"{alpha:.4g} ({cond})"
    )


def _intervals(groups: Sequence[GroupStats], name: str) -> list[Interval]:
    return [iv for g in groups if (iv := g.intervals[name]) is not None]


def _decide(
    rule: RegressionRule, groups: Sequence[GroupStats], min_cell: int, max_missing: float
) -> tuple[float | None, tuple[float, float] | None, Verdict, str, str, list[str], list[str]]:
    name = rule.metric
    bounds: tuple[float, float] | None
    small = [g.label for g in groups if is_small(g.n, min_cell)]
    over = [
        g.label
        for g in groups
        if g.missing_share is not None and g.missing_share > Fraction(str(max_missing))
    ]
    defined = [g for g in groups if g.intervals[name] is not None]
    adverse = {g.label: g.adverse[name] for g in defined}
    undefined = len(defined) < len(groups)
    values = [v for g in groups if (v := g.values[name]) is not None]
    if rule.max_gap is not None:
        limit = rule.max_gap
        value = max(values) - min(values) if len(values) >= 2 else None
        if len(defined) < 2:
            return (
                value,
                None,
                Verdict.INSUFFICIENT_EVIDENCE,
                "interval_undefined",
                "fewer than two groups have an interval: the gap cannot be bounded",
                small,
                over,
            )
        lo_hi = max_gap_bounds(_intervals(defined, name))
        worst = [Interval(a[0], a[1], "adverse", 0.0) for g in defined if (a := adverse[g.label])]
        fail_lo = max_gap_bounds(worst)[0]
        large = [g for g in defined if not is_small(g.n, min_cell)]
        large_worst = [
            Interval(a[0], a[1], "adverse", 0.0) for g in large if (a := adverse[g.label])
        ]
        fail_stands = len(large_worst) >= 2 and max_gap_bounds(large_worst)[0] > limit
        broken = fail_lo > limit
        held = lo_hi[1] <= limit and not undefined
        verdict, code = verdict_table(broken=broken, held=held, missing=bool(over))
        if small and verdict is not Verdict.INSUFFICIENT_EVIDENCE:
            verdict = with_small_cells(verdict, fail_stands=fail_stands)
            code = code if verdict is Verdict.FAIL else "small_cell"
        bounds = (max(lo_hi[0], 0.0), lo_hi[1])
        if verdict is Verdict.FAIL:
            reason = (
                f"some pair of groups differs by more than {limit:g}: the largest gap is at "
                f"least {fail_lo:.4g} with every interval holding"
            )
        elif verdict is Verdict.PASS:
            reason = f"the largest gap between two groups is at most {lo_hi[1]:.4g} <= {limit:g}"
        else:
            reason = f"the largest gap lies in [{max(lo_hi[0], 0):.4g}, {lo_hi[1]:.4g}]"
        return value, bounds, verdict, code, reason, small, over
    # worst_group
    if rule.worst_max is not None:
        limit = rule.worst_max
        value = max(values) if values else None
        broken_by = [g for g in defined if (a := adverse[g.label]) and a[0] > limit]
        held = not undefined and all(
            (iv := g.intervals[name]) is not None and iv.hi <= limit for g in defined
        )
        ivs = _intervals(defined, name)
        bounds = None if not ivs or undefined else (max(i.lo for i in ivs), max(i.hi for i in ivs))
        side, word = "above", "at most"
    else:
        assert rule.worst_min is not None
        limit = rule.worst_min
        value = min(values) if values else None
        broken_by = [g for g in defined if (a := adverse[g.label]) and a[1] < limit]
        held = not undefined and all(
            (iv := g.intervals[name]) is not None and iv.lo >= limit for g in defined
        )
        ivs = _intervals(defined, name)
        bounds = None if not ivs or undefined else (min(i.lo for i in ivs), min(i.hi for i in ivs))
        side, word = "below", "at least"
    fail_stands = any(not is_small(g.n, min_cell) for g in broken_by)
    verdict, code = verdict_table(broken=bool(broken_by), held=held, missing=bool(over))
    if small and verdict is not Verdict.INSUFFICIENT_EVIDENCE:
        verdict = with_small_cells(verdict, fail_stands=fail_stands)
        code = code if verdict is Verdict.FAIL else "small_cell"
    if verdict is Verdict.FAIL:
        reason = f"group {broken_by[0].label}'s whole interval lies {side} {limit:g}"
    elif verdict is Verdict.PASS:
        reason = f"every group's whole interval is {word} {limit:g}"
    elif not defined:
        reason = "no group has an interval"
    else:
        reason = f"some group's interval crosses {limit:g}"
    return value, bounds, verdict, code, reason, small, over


def _reason(code: str, base: str, small: list[str], over: list[str], max_missing: float) -> str:
    if code == "too_many_missing":
        return (
            f"{len(over)} group(s) ({', '.join(over[:5])}) have more than max_missing "
            f"{max_missing:.0%} of their cases without a prediction, so the rule cannot pass; "
            + base
        )
    if code == "small_cell":
        return (
            f"{len(small)} group(s) ({', '.join(small[:5])}) have fewer cases than min_cell, "
            "so the rule cannot pass and fails only on the other groups; " + base
        )
    if code == "interval_straddles":
        return base + ": more cases are needed to decide"
    return base


def evaluate_counts(
    block: RegressionSpec,
    cells: Sequence[Cell],
    *,
    alpha: float,
    alpha_source: str = "default",
    rule_alpha: float | None = None,
    max_missing: float = 0.02,
    max_missing_source: str = "default",
    weight: str | None = None,
) -> RegressionResult:
    """Every number and verdict of the block, from its cells' integer sums (pure).

    ``rule_alpha`` is each rule's share of alpha (``alpha`` unless the run's family
    divides it); a rule shares it among its groups (Bonferroni).
    """
    names = list(block.used_attributes())
    scale = 10**block.decimals
    weighted = weight is not None
    overall = _group((), cells, scale, weighted)
    _fill(overall, block, alpha)
    share = alpha if rule_alpha is None else rule_alpha
    rules = []
    for rule in block.rules:
        groups, left_out = groups_of(
            cells, names, rule.grouping, block.attributes, scale, weighted
        )
        per = share / max(1, len(groups))
        for g in groups:
            _fill(g, block, per)
        value, bounds, verdict, code, base, small, over = _decide(
            rule, groups, block.min_cell, max_missing
        )
        method = method_name(bounded=block.bounded, weighted=weighted)
        rules.append(
            RuleResult(
                rule=rule,
                groups=tuple(groups),
                alpha=share,
                alpha_per_group=per,
                value=value,
                bounds=bounds,
                verdict=verdict,
                code=code,
                reason=_reason(code, base, small, over, max_missing),
                guarantee=_guarantee(rule, method, len(groups), share),
                left_out={
                    **left_out,
                    "missing_target": sum(g.rows - g.cases for g in groups),
                    "missing_prediction": sum(g.missing for g in groups),
                },
                small=tuple(small),
                over_missing=tuple(over),
            )
        )
    weights = None
    if weight is not None:
        sw, sw2 = overall.moments["mean_target"].sw, overall.moments["mean_target"].sw2
        weights = {
            "column": weight,
            "decimals": block.decimals,
            "n": overall.n,
            "sum": sw,
            "sum_squares": sw2,
            "n_eff": None if sw2 == 0 else float(Fraction(sw * sw, sw2)),
        }
    return RegressionResult(
        block=block,
        cells=tuple(cells),
        overall=overall,
        rules=tuple(rules),
        alpha=alpha,
        alpha_source=alpha_source,
        max_missing=max_missing,
        max_missing_source=max_missing_source,
        weight=weight,
        weights=weights,
    )


def _big(v: int) -> int | str:
    """An integer as JSON carries it exactly: a decimal string beyond 2^53."""
    return v if abs(v) <= 2**53 else str(v)


def counts_of(res: RegressionResult) -> dict[str, Any]:
    """The record's ``counts.regression``: every cell's integer sums."""
    return {
        "decimals": res.block.decimals,
        "attributes": list(res.block.used_attributes()),
        "weighted": res.weight is not None,
        "cells": [
            {
                "key": list(c.key),
                "rows": c.rows,
                "no_target": c.no_target,
                "no_prediction": c.no_prediction,
                "n": c.n,
                "sw": _big(c.sw),
                "sw2": _big(c.sw2),
                "missing_sw": _big(c.missing_sw),
                "missing_sw2": _big(c.missing_sw2),
                "sums": {k: {s: _big(v) for s, v in d.items()} for k, d in c.sums.items()},
            }
            for c in res.cells
        ],
    }


def cells_from_counts(counts: Mapping[str, Any]) -> list[Cell]:
    """The cells back from a record's ``counts.regression`` (the inverse of :func:`counts_of`)."""
    return [
        Cell(
            key=tuple(c["key"]),
            rows=c["rows"],
            no_target=c["no_target"],
            no_prediction=c["no_prediction"],
            n=c["n"],
            sw=int(c["sw"]),
            sw2=int(c["sw2"]),
            missing_sw=int(c["missing_sw"]),
            missing_sw2=int(c["missing_sw2"]),
            sums={k: {s: int(v) for s, v in d.items()} for k, d in c["sums"].items()},
        )
        for c in counts["cells"]
    ]


def _refuse_column(source: Any, column: str, role: str) -> None:
    from respai.errors import InputError, did_you_mean
    from respai.load import shown_list

    if column not in source.columns:
        raise InputError(
            f"{source.description} has no column '{column}' ({role})."
            + did_you_mean(column, source.columns),
            f"Its columns are: {shown_list(source.columns)}.",
        )


def _refuse_not_finite(source: Any, column: str, role: str) -> None:
    """Refuse a NaN or infinite target or prediction, naming the value and its line."""
    from respai.engine.finite import first_not_finite, not_finite
    from respai.engine.source import NUMERIC

    if source.kinds.get(column) != NUMERIC:
        return  # a text column fails the count pass's cast, with its own message
    value = first_not_finite(source._frame, column)
    if value is not None:
        not_finite(source, column, value, kind=f"regression {role}")


def count_cells(block: RegressionSpec, source: Any, weight: str | None) -> list[Cell]:
    """Check the block's columns and values in ``source``, then count its cells' sums.

    Raises
    ------
    respai.errors.InputError
        For a missing column, a value too large for the fixed grid, a value outside the
        declared bounds, or a negative weight (each naming the column, the value and,
        for a file, its line).
    """
    from respai.engine.lookups import locate
    from respai.engine.regression_sums import cell_sums, first_outside, value_checks
    from respai.engine.sql import MAX_FIXED
    from respai.errors import InputError
    from respai.load import show_value

    roles = {block.target: "regression.target", block.prediction: "regression.prediction"}
    roles |= {a: f"regression attribute '{a}'" for a in block.used_attributes()}
    if weight is not None:
        roles[weight] = "data.weight"
    for column, role in roles.items():
        _refuse_column(source, column, role)
    for column, role in ((block.target, "target"), (block.prediction, "prediction")):
        _refuse_not_finite(source, column, role)
    d = block.decimals
    checks = value_checks(source, [block.target, block.prediction], weight, d)

    def where(column: str, value: Any) -> str:
        line = locate(source, column, value)
        return f" ({source.row_word} {line})" if line else ""

    for column, units in checks.largest.items():
        if units is not None and units > MAX_FIXED:
            raise InputError(
                f"the column '{column}' of {source.description} holds a value of "
                f"{units / 10**d:g}, beyond the {MAX_FIXED:.0e} units the exact sums allow at "
                f"regression.decimals {d}.",
                "Set fewer regression.decimals (e.g. 2), or rescale the column.",
            )
    if weight is not None:
        if checks.min_weight is not None and checks.min_weight < 0:
            value = checks.min_weight / 10**d
            raise InputError(
                f"the weight column '{weight}' of {source.description} holds {value:g}"
                f"{where(weight, value)}; weights must be finite and 0 or more.",
                "Fix the weight, or leave data.weight out.",
            )
        big_w = checks.largest.get(weight) or 0
        big_x = 2 * max(checks.largest.get(c) or 0 for c in (block.target, block.prediction))
        if (big_w * big_x) ** 2 * max(checks.rows, 1) >= 10**38:
            raise InputError(
                f"the weights of '{weight}' (up to {big_w / 10**d:g}) times the block's "
                f"values (errors up to {big_x / 10**d:g}) over {checks.rows} rows could "
                "overflow the exact DECIMAL(38, 0) sums of w²x² at regression.decimals "
                f"{d}.",
                "Set fewer regression.decimals (e.g. 2), or rescale the weights.",
            )
    for column, bounds, key in (
        (block.target, block.target_bounds, "target"),
        (block.prediction, block.prediction_bounds, "prediction"),
    ):
        if bounds is None:
            continue
        lo, hi = (int(b * 10**d) for b in bounds)
        bad = first_outside(source, column, d, lo, hi)
        if bad is not None:
            raise InputError(
                f"the column '{column}' of {source.description} holds "
                f"{show_value(bad)}{where(column, bad)}, outside the declared "
                f"regression.bounds.{key} [{float(bounds[0]):g}, {float(bounds[1]):g}].",
                "Fix the value, or widen the declared bounds (the distribution-free "
                "intervals hold only for values within them).",
            )
    return cell_sums(source, block.used_attributes(), block.target, block.prediction, weight, d)
