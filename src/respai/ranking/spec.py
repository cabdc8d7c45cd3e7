"""The ``ranking:`` block: ranked or scored lists, their top-k rates and exposure by group.

Columns of the run's shared cases file, one row per ranked item: the list (query) id,
exactly one of ``position`` (1 = top, whole numbers) or ``score`` (higher ranks first),
and the group columns (``attributes:``, or the ``fairness:`` block's).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

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
from respai.spec.parsed import DEFAULT_MAX_MISSING, DataSpec, Spec

__all__ = [
    "DEFAULT_MIN_ITEMS",
    "DEFAULT_MIN_LISTS",
    "METRICS",
    "RankingRule",
    "RankingSpec",
    "declared_ranking",
    "parse_ranking",
]

#: The metrics a ranking rule may test.
METRICS = ("top_k_rate", "exposure_ratio")
#: The fewest lists a group must appear in before its interval may decide a verdict: the
#: measured coverage of the cluster-robust t interval is at or above nominal from here on
#: (docs/methods/ranking.md).
DEFAULT_MIN_LISTS = 20
#: The fewest items a group must have before its interval may decide a verdict (the
#: block's ``min_cell`` default): with fewer, the exposure ratio's measured coverage fell
#: below nominal in some shapes.
DEFAULT_MIN_ITEMS = 100
_KEYS = (
    "list",
    "position",
    "score",
    "attributes",
    "top_k",
    "exposure",
    "decimals",
    "min_cell",
    "min_lists",
    "max_missing",
    "rules",
)
_RULE_KEYS = ("id", "metric", "k", "attribute", "max_group_gap", "min_group_ratio", "worst_group")
_LIMITS = ("max_group_gap", "min_group_ratio", "worst_group")


@dataclass(frozen=True, slots=True)
class RankingRule:
    """One rule of the ``ranking:`` block.

    ``metric`` is ``top_k_rate`` (with ``k``) or ``exposure_ratio``; exactly one limit:
    ``max_group_gap`` (largest difference between two groups), ``min_group_ratio``
    (smallest ratio between two groups) or ``worst_min`` / ``worst_max`` (every group's
    value at least / at most the limit).
    """

    id: str
    metric: str
    attribute: str
    k: int | None = None
    max_group_gap: float | None = None
    min_group_ratio: float | None = None
    worst_min: float | None = None
    worst_max: float | None = None

    @property
    def limit(self) -> tuple[str, float]:
        """The rule's limit: its kind and value."""
        for kind, value in (
            ("max_group_gap", self.max_group_gap),
            ("min_group_ratio", self.min_group_ratio),
            ("worst_group_min", self.worst_min),
            ("worst_group_max", self.worst_max),
        ):
            if value is not None:
                return kind, value
        raise AssertionError("a parsed rule has a limit")

    @property
    def measure(self) -> str:
        """The measure's name: ``top_10_rate`` or ``exposure_ratio``."""
        return f"top_{self.k}_rate" if self.metric == "top_k_rate" else self.metric


@dataclass(frozen=True, slots=True)
class RankingSpec:
    """A validated ``ranking:`` block."""

    list: str
    position: str | None
    score: str | None
    attributes: dict[str, tuple[str, ...]]
    top_k: tuple[int, ...]
    rules: tuple[RankingRule, ...]
    exposure: str = "log2"
    decimals: int = 6
    min_cell: int = DEFAULT_MIN_ITEMS
    min_lists: int = DEFAULT_MIN_LISTS
    max_missing: float = DEFAULT_MAX_MISSING
    attributes_source: str = "ranking"

    @property
    def order_column(self) -> str:
        """The column that orders each list: ``position`` or ``score``."""
        found = self.position or self.score
        assert found is not None
        return found


def _positive_number(ctx: _Ctx, key: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ctx.fail(key, f"must be a number, got {_kind(value)}.")
    if value <= 0:
        raise ctx.fail(key, f"must be above 0, got {value}.")
    return float(value)


def _parse_rule(
    ctx: _Ctx, i: int, raw: Any, attributes: dict[str, tuple[str, ...]], top_k: tuple[int, ...]
) -> RankingRule:
    from respai.errors import did_you_mean

    where = f"ranking.rules[{i}]"
    rb = _mapping(ctx, where, raw)
    _check_keys(ctx, where, rb, _RULE_KEYS, ("id", "metric"))
    rid = _text(ctx, f"{where}.id", rb["id"])
    metric = _text(ctx, f"{where}.metric", rb["metric"])
    if metric not in METRICS:
        raise ctx.fail(
            f"{where}.metric",
            f"unknown metric '{metric}'." + did_you_mean(metric, METRICS),
            f"Use one of: {', '.join(METRICS)}.",
        )
    k: int | None = None
    if metric == "top_k_rate":
        if "k" not in rb:
            raise ctx.fail(f"{where}.k", "is required for top_k_rate.", f"One of {list(top_k)}.")
        k = _count(ctx, f"{where}.k", rb["k"], low=1, high=10**6)
        if k not in top_k:
            raise ctx.fail(
                f"{where}.k", f"{k} is not declared in ranking.top_k.", f"Add it to {list(top_k)}."
            )
    elif "k" in rb:
        raise ctx.fail(f"{where}.k", "applies to top_k_rate only.", "Remove it.")
    if "attribute" in rb:
        attribute = _name(ctx, f"{where}.attribute", rb["attribute"])
    elif len(attributes) == 1:
        attribute = next(iter(attributes))
    else:
        raise ctx.fail(
            f"{where}.attribute",
            "is required when more than one attribute is declared.",
            f"One of: {', '.join(attributes)}.",
        )
    if attribute not in attributes:
        raise ctx.fail(
            f"{where}.attribute",
            f"'{attribute}' is not a declared attribute." + did_you_mean(attribute, attributes),
            f"Declared: {', '.join(attributes)}.",
        )
    limits = [key for key in _LIMITS if key in rb]
    if len(limits) != 1:
        raise ctx.fail(
            where,
            "needs exactly one of max_group_gap, min_group_ratio, worst_group.",
            "For example min_group_ratio: 0.8.",
        )
    key = limits[0]
    gap = ratio = lo = hi = None
    if key == "max_group_gap":
        if metric == "exposure_ratio":
            gap = _positive_number(ctx, f"{where}.max_group_gap", rb[key])
        else:
            gap = _fraction(ctx, f"{where}.max_group_gap", rb[key], open_low=True)
    elif key == "min_group_ratio":
        ratio = _fraction(ctx, f"{where}.min_group_ratio", rb[key], open_low=True)
    else:
        wb = _mapping(ctx, f"{where}.worst_group", rb[key])
        _check_keys(ctx, f"{where}.worst_group", wb, ("min", "max"), ())
        if len(wb) != 1:
            raise ctx.fail(
                f"{where}.worst_group",
                "needs exactly one of min and max.",
                "For example {min: 0.8}.",
            )
        side = next(iter(wb))
        check = _positive_number if metric == "exposure_ratio" else _fraction
        value = check(ctx, f"{where}.worst_group.{side}", wb[side])
        lo, hi = (value, None) if side == "min" else (None, value)
    return RankingRule(rid, metric, attribute, k, gap, ratio, lo, hi)


def parse_ranking(
    block: Any,
    *,
    origin: str = "spec",
    fairness_attributes: Any = None,
    data: DataSpec | None = None,
) -> RankingSpec:
    """Validate a ``ranking:`` block into a :class:`RankingSpec`.

    ``fairness_attributes`` are the ``fairness:`` block's declared attributes, used when
    the block declares none of its own.

    Raises
    ------
    respai.errors.SpecError
        For a missing or unknown key (with a did-you-mean), both or neither of
        ``position`` and ``score``, no attributes anywhere, a ``top_k`` that is not a list
        of distinct whole numbers, an unknown ``exposure``, or a bad rule.
    """
    from respai.spec.fairness import _parse_attributes

    ctx = _Ctx(origin)
    b = _mapping(ctx, "ranking", block)
    _check_keys(ctx, "ranking", b, _KEYS, ("list", "rules"))
    list_col = _name(ctx, "ranking.list", b["list"])
    if ("position" in b) == ("score" in b):
        raise ctx.fail(
            "ranking",
            "needs exactly one of position and score.",
            "position: a column of whole positions (1 = top); score: higher ranks first.",
        )
    position = _name(ctx, "ranking.position", b["position"]) if "position" in b else None
    score = _name(ctx, "ranking.score", b["score"]) if "score" in b else None
    if "attributes" in b:
        attributes = _parse_attributes(ctx, b["attributes"], "ranking.attributes")
        source = "ranking"
    elif fairness_attributes:
        attributes = dict(fairness_attributes)
        source = "fairness"
    else:
        raise ctx.fail(
            "ranking.attributes",
            "is required when the spec has no fairness: block.",
            "For example attributes: {sex: [female, male]}.",
        )
    roles: dict[str, str | None] = {"list": list_col, "position": position, "score": score}
    roles |= {f"attributes.{a}": a for a in attributes}
    if data is not None and data.weight is not None:
        roles["weight"] = data.weight
    _distinct_roles(ctx, "ranking", roles)
    raw_k = b.get("top_k", [10])
    if not isinstance(raw_k, list) or not raw_k:
        raise ctx.fail("ranking.top_k", f"must be a list of whole numbers, got {_kind(raw_k)}.")
    top_k = tuple(
        _count(ctx, f"ranking.top_k[{i}]", v, low=1, high=10**6) for i, v in enumerate(raw_k)
    )
    if len(set(top_k)) != len(top_k):
        raise ctx.fail("ranking.top_k", "lists a k more than once.", "List each k once.")
    exposure = _text(ctx, "ranking.exposure", b.get("exposure", "log2"))
    if exposure != "log2":
        raise ctx.fail(
            "ranking.exposure",
            f"unknown exposure '{exposure}'.",
            "Use log2 (the discount 1 / log2(1 + position)).",
        )
    rules_raw = b["rules"]
    if not isinstance(rules_raw, list) or not rules_raw:
        raise ctx.fail("ranking.rules", f"must be a list of rules, got {_kind(rules_raw)}.")
    rules = tuple(_parse_rule(ctx, i, r, attributes, top_k) for i, r in enumerate(rules_raw))
    ids = [r.id for r in rules]
    for i, rid in enumerate(ids):
        if rid in ids[:i]:
            raise ctx.fail(
                f"ranking.rules[{i}].id", f"'{rid}' is used twice.", "Give each rule its own id."
            )
    return RankingSpec(
        list=list_col,
        position=position,
        score=score,
        attributes=attributes,
        top_k=tuple(sorted(top_k)),
        rules=rules,
        exposure=exposure,
        decimals=_count(ctx, "ranking.decimals", b.get("decimals", 6), low=0, high=9),
        min_cell=_count(
            ctx, "ranking.min_cell", b.get("min_cell", DEFAULT_MIN_ITEMS), low=0, high=10**9
        ),
        min_lists=_count(
            ctx, "ranking.min_lists", b.get("min_lists", DEFAULT_MIN_LISTS), low=2, high=10**9
        ),
        max_missing=_fraction(
            ctx, "ranking.max_missing", b.get("max_missing", DEFAULT_MAX_MISSING)
        ),
        attributes_source=source,
    )


def declared_ranking(spec: Spec) -> RankingSpec | None:
    """The spec's ``ranking:`` block, when it declares one."""
    found = spec.blocks.get("ranking")
    return found if isinstance(found, RankingSpec) else None
