"""The ``regression:`` block: a numeric target and prediction, compared across groups.

The block reads the run's shared cases file (``fairness.cases`` or ``data.cases``, or the
DataFrame given to the API): the ``target`` and ``prediction`` columns, grouped by its own
``attributes:`` (the syntax of ``fairness.attributes``) or, without them, the fairness
block's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from typing import Any

from respai.errors import did_you_mean
from respai.spec.checks import (
    _check_keys,
    _count,
    _Ctx,
    _distinct_roles,
    _fraction,
    _kind,
    _mapping,
    _name,
    _text,
)
from respai.spec.parsed import FairnessSpec, Spec

__all__ = [
    "DEFAULT_DECIMALS",
    "DEFAULT_MIN_CELL",
    "METRICS",
    "RegressionRule",
    "RegressionSpec",
    "declared_regression",
    "parse_regression",
]

#: The metrics a rule may read, each with what it means.
METRICS = {
    "mean_error": "mean signed error (prediction - target)",
    "mean_absolute_error": "mean absolute error |prediction - target|",
    "mean_prediction": "mean prediction",
}
#: The fixed grid's decimals when the block sets none.
DEFAULT_DECIMALS = 6
#: ``min_cell`` when neither the block nor the fairness block sets one.
DEFAULT_MIN_CELL = 30

_KEYS = (
    "target",
    "prediction",
    "attributes",
    "decimals",
    "bounds",
    "min_cell",
    "max_missing",
    "rules",
)
_RULE_KEYS = ("id", "metric", "attribute", "max_group_gap", "worst_group")


@dataclass(frozen=True, slots=True)
class RegressionRule:
    """One rule: a metric over the groups of ``grouping``, against one limit.

    Exactly one of ``max_gap`` (the largest difference between two groups' values at most
    this) and ``worst_min`` / ``worst_max`` (every group's value at least / at most this)
    is set.
    """

    id: str
    metric: str
    grouping: tuple[str, ...]
    max_gap: float | None = None
    worst_min: float | None = None
    worst_max: float | None = None

    @property
    def kind(self) -> str:
        """``max_group_gap`` or ``worst_group``."""
        return "max_group_gap" if self.max_gap is not None else "worst_group"

    def threshold(self) -> dict[str, Any]:
        """The rule's limit, as the record's ``threshold`` states it."""
        if self.max_gap is not None:
            return {"comparison": "max_group_gap <=", "value": self.max_gap, "source": "spec"}
        if self.worst_min is not None:
            return {"comparison": "every group >=", "value": self.worst_min, "source": "spec"}
        return {"comparison": "every group <=", "value": self.worst_max, "source": "spec"}


@dataclass(frozen=True, slots=True)
class RegressionSpec:
    """A validated ``regression:`` block.

    ``attributes`` are the groups (the block's own or the fairness block's, with
    ``attributes_from`` saying which); ``bounds`` the declared ranges of the target and
    the prediction (``None``: not declared), ``min_cell`` and ``max_missing`` ``None``
    when the block leaves them to the run.
    """

    target: str
    prediction: str
    attributes: dict[str, tuple[str, ...]]
    attributes_from: str
    rules: tuple[RegressionRule, ...]
    decimals: int = DEFAULT_DECIMALS
    target_bounds: tuple[Fraction, Fraction] | None = None
    prediction_bounds: tuple[Fraction, Fraction] | None = None
    min_cell: int = DEFAULT_MIN_CELL
    max_missing: float | None = None

    @property
    def bounded(self) -> bool:
        """Whether both ranges are declared (the intervals are then distribution-free)."""
        return self.target_bounds is not None and self.prediction_bounds is not None

    def groupings(self) -> list[tuple[str, ...]]:
        """Every grouping a rule reads, in rule order, once each."""
        return list(dict.fromkeys(r.grouping for r in self.rules))

    def used_attributes(self) -> dict[str, tuple[str, ...]]:
        """The attribute columns the rules group by, with their declared values."""
        names = dict.fromkeys(a for g in self.groupings() for a in g)
        return {a: self.attributes[a] for a in self.attributes if a in names}


def _bound_pair(ctx: _Ctx, key: str, value: Any, decimals: int) -> tuple[Fraction, Fraction]:
    if not isinstance(value, list) or len(value) != 2:
        raise ctx.fail(key, f"must be a list [low, high], got {_kind(value)}.", "E.g. [0, 100].")
    out = []
    for i, v in enumerate(value):
        if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
            raise ctx.fail(f"{key}[{i}]", f"must be a finite number, got {_kind(v)}.")
        exact = Fraction(Decimal(str(v)))
        if (exact * 10**decimals).denominator != 1:
            raise ctx.fail(
                f"{key}[{i}]",
                f"{v} has more decimals than regression.decimals ({decimals}).",
                "Round the bound, or raise regression.decimals.",
            )
        out.append(exact)
    if out[0] >= out[1]:
        raise ctx.fail(key, f"low {value[0]} must be below high {value[1]}.")
    return out[0], out[1]


def _limit(ctx: _Ctx, key: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ctx.fail(key, f"must be a finite number, got {_kind(value)}.")
    return float(value)


def _rule(
    ctx: _Ctx, i: int, raw: Any, attributes: dict[str, tuple[str, ...]], seen: set[str]
) -> RegressionRule:
    where = f"regression.rules[{i}]"
    r = _mapping(ctx, where, raw)
    _check_keys(ctx, where, r, _RULE_KEYS, ("id", "metric", "attribute"))
    rid = _text(ctx, f"{where}.id", r["id"])
    if rid in seen:
        raise ctx.fail(f"{where}.id", f"'{rid}' is used by another rule.", "Give each an id.")
    seen.add(rid)
    metric = _text(ctx, f"{where}.metric", r["metric"])
    if metric not in METRICS:
        raise ctx.fail(
            f"{where}.metric",
            f"unknown metric '{metric}'." + did_you_mean(metric, list(METRICS)),
            f"Metrics: {', '.join(METRICS)}.",
        )
    raw_attr = r["attribute"]
    names = (
        tuple(_name(ctx, f"{where}.attribute", a) for a in raw_attr)
        if isinstance(raw_attr, list)
        else (_name(ctx, f"{where}.attribute", raw_attr),)
    )
    if not names:
        raise ctx.fail(f"{where}.attribute", "names no attribute.")
    for name in names:
        if name not in attributes:
            raise ctx.fail(
                f"{where}.attribute",
                f"'{name}' is not a declared attribute." + did_you_mean(name, list(attributes)),
                f"Declared attributes: {', '.join(attributes)}.",
            )
    if len(set(names)) != len(names):
        raise ctx.fail(f"{where}.attribute", "names the same attribute twice.")
    limits = [k for k in ("max_group_gap", "worst_group") if k in r]
    if len(limits) != 1:
        raise ctx.fail(
            where,
            "needs exactly one of max_group_gap and worst_group.",
            "For example max_group_gap: 2.5, or worst_group: {max: 10}.",
        )
    if limits[0] == "max_group_gap":
        gap = _limit(ctx, f"{where}.max_group_gap", r["max_group_gap"])
        if gap < 0:
            raise ctx.fail(f"{where}.max_group_gap", f"must be 0 or more, got {gap}.")
        return RegressionRule(rid, metric, names, max_gap=gap)
    block = _mapping(ctx, f"{where}.worst_group", r["worst_group"])
    _check_keys(ctx, f"{where}.worst_group", block, ("min", "max"), ())
    if len(block) != 1:
        raise ctx.fail(
            f"{where}.worst_group",
            "needs exactly one of min and max.",
            "For example {max: 10}: every group's value at most 10.",
        )
    if "min" in block:
        low = _limit(ctx, f"{where}.worst_group.min", block["min"])
        return RegressionRule(rid, metric, names, worst_min=low)
    high = _limit(ctx, f"{where}.worst_group.max", block["max"])
    return RegressionRule(rid, metric, names, worst_max=high)


def parse_regression(
    block: Any, *, fairness: FairnessSpec | None = None, origin: str = "spec"
) -> RegressionSpec:
    """Validate a ``regression:`` block into a :class:`RegressionSpec`.

    Raises
    ------
    respai.errors.SpecError
        For a missing or unknown key (with a did-you-mean), no attributes here nor in
        ``fairness:``, a bad bound, a rule naming an undeclared attribute, or a rule
        without exactly one limit.
    """
    from respai.spec.fairness import _parse_attributes

    ctx = _Ctx(origin)
    b = _mapping(ctx, "regression", block)
    _check_keys(ctx, "regression", b, _KEYS, ("target", "prediction", "rules"))
    target = _name(ctx, "regression.target", b["target"])
    prediction = _name(ctx, "regression.prediction", b["prediction"])
    _distinct_roles(ctx, "regression", {"target": target, "prediction": prediction})
    if "attributes" in b:
        attributes = _parse_attributes(ctx, b["attributes"], "regression.attributes")
        source = "regression"
    elif fairness is not None:
        attributes, source = dict(fairness.attributes), "fairness"
    else:
        raise ctx.fail(
            "regression.attributes",
            "is required when the spec has no fairness: block.",
            "Declare the groups, e.g. attributes: {sex: [female, male]}.",
        )
    for name in attributes:
        if name in (target, prediction):
            raise ctx.fail(
                "regression.attributes", f"'{name}' is also the target or prediction column."
            )
    decimals = (
        DEFAULT_DECIMALS
        if "decimals" not in b
        else _count(ctx, "regression.decimals", b["decimals"], low=0, high=12)
    )
    t_bounds = p_bounds = None
    if "bounds" in b:
        bounds = _mapping(ctx, "regression.bounds", b["bounds"])
        _check_keys(ctx, "regression.bounds", bounds, ("target", "prediction"), ())
        if set(bounds) != {"target", "prediction"}:
            raise ctx.fail(
                "regression.bounds",
                "needs both target and prediction.",
                "For example bounds: {target: [0, 100], prediction: [0, 100]}.",
            )
        t_bounds = _bound_pair(ctx, "regression.bounds.target", bounds["target"], decimals)
        p_bounds = _bound_pair(ctx, "regression.bounds.prediction", bounds["prediction"], decimals)
    min_cell = (
        _count(ctx, "regression.min_cell", b["min_cell"], low=0, high=10**9)
        if "min_cell" in b
        else (fairness.min_cell if fairness is not None else DEFAULT_MIN_CELL)
    )
    max_missing = (
        None
        if "max_missing" not in b
        else _fraction(ctx, "regression.max_missing", b["max_missing"])
    )
    raw_rules = b["rules"]
    if not isinstance(raw_rules, list) or not raw_rules:
        raise ctx.fail(
            "regression.rules",
            f"must be a list of rules, got {_kind(raw_rules)}.",
            "For example: [{id: mae_gap, metric: mean_absolute_error, attribute: sex, "
            "max_group_gap: 2.0}].",
        )
    seen: set[str] = set()
    rules = tuple(_rule(ctx, i, r, attributes, seen) for i, r in enumerate(raw_rules))
    return RegressionSpec(
        target=target,
        prediction=prediction,
        attributes=attributes,
        attributes_from=source,
        rules=rules,
        decimals=decimals,
        target_bounds=t_bounds,
        prediction_bounds=p_bounds,
        min_cell=min_cell,
        max_missing=max_missing,
    )


def declared_regression(spec: Spec) -> RegressionSpec | None:
    """The spec's ``regression:`` block, when it declares one."""
    found = spec.blocks.get("regression")
    return found if isinstance(found, RegressionSpec) else None
