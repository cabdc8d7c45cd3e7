"""The ``fairness:`` block: columns, declared attributes and groups, intersections, rules.

Attribute values are compared as text, so each declared value is kept as the text the file
holds. A rule names a rate, an attribute or a declared intersection, and exactly one
threshold (``max_group_gap``, ``min_group_ratio`` or ``worst_group``), and for a gap or a
ratio optionally the ``reference`` group the others are compared with; ``rate:
equalized_odds`` is a gap rule on both error rates. Which defaults applied is kept in
``sources`` for the record. ``favorable`` (1 or 0, or a value the maps map) names the
outcome that is good for the person; every rate is then of that outcome.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

from respai.errors import did_you_mean
from respai.metrics import Rate
from respai.spec.checks import (
    _alpha,
    _binary_map,
    _check_keys,
    _count,
    _Ctx,
    _distinct_roles,
    _format_and_delimiter,
    _fraction,
    _kind,
    _mapping,
    _name,
    _text,
    _value_text,
    _worst_group,
)
from respai.spec.parsed import (
    DEFAULT_ALPHA,
    DEFAULT_CALIBRATION_BINS,
    DEFAULT_MAX_LEFT_OUT,
    DEFAULT_MAX_MISSING,
    DEFAULT_MIN_CELL,
    FairnessSpec,
    Rule,
)
from respai.spelling import DeclaredValues, same_number_pair

__all__ = ["parse_fairness"]

_FAIRNESS_KEYS = (
    "name",
    "cases",
    "label",
    "prediction",
    "probability",
    "unit",
    "attributes",
    "intersections",
    "min_cell",
    "max_left_out",
    "max_missing",
    "calibration_bins",
    "rules",
    "alpha",
    "label_map",
    "prediction_map",
    "format",
    "delimiter",
    "favorable",
)
_RULE_KEYS = (
    "id",
    "rate",
    "attribute",
    "max_group_gap",
    "min_group_ratio",
    "worst_group",
    "reference",
    "max_left_out",
    "max_missing",
    "method",
)
#: How a gap or ratio rule decides PASS (``method:``); the first is the default.
RULE_METHODS = ("simultaneous", "pairwise")
_THRESHOLDS = ("max_group_gap", "min_group_ratio", "worst_group")
#: A ``rate:`` value that is not one rate: both error rates at once (a gap rule).
EQUALIZED_ODDS = "equalized_odds"


def parse_fairness(
    block: Any, *, base_dir: Path | None = None, origin: str = "spec"
) -> FairnessSpec:
    """Validate a ``fairness:`` mapping (as loaded from YAML) into a :class:`FairnessSpec`.

    Parameters
    ----------
    block
        The mapping under ``fairness:``.
    base_dir
        Folder that relative ``cases`` paths are resolved against.
    origin
        Name used in error messages (the spec file's path).

    Raises
    ------
    SpecError
        For any unknown key, wrong type or value out of range.

    Examples
    --------
    >>> spec = parse_fairness({
    ...     "label": "y", "prediction": "p",
    ...     "attributes": {"sex": ["female", "male"]},
    ...     "rules": [{"id": "sel", "rate": "selection", "attribute": "sex",
    ...                "max_group_gap": 0.1}],
    ... })
    >>> spec.rules[0].max_group_gap
    0.1
    """
    ctx = _Ctx(origin)
    fb = _mapping(ctx, "fairness", block)
    _check_keys(ctx, "fairness", fb, _FAIRNESS_KEYS, ("label", "prediction", "attributes"))
    label = _name(ctx, "fairness.label", fb["label"])
    prediction = _name(ctx, "fairness.prediction", fb["prediction"])
    probability = fb.get("probability")
    probability = None if probability is None else _name(ctx, "fairness.probability", probability)
    unit = fb.get("unit")
    unit = None if unit is None else _name(ctx, "fairness.unit", unit)

    roles = {"label": label, "prediction": prediction, "probability": probability, "unit": unit}
    _distinct_roles(ctx, "fairness", roles)
    attributes = _parse_attributes(ctx, fb["attributes"])
    reserved = {label, prediction, probability, unit} - {None}
    for attr in attributes:
        if attr in reserved:
            raise ctx.fail(
                f"fairness.attributes.{attr}",
                "is also declared as the label, prediction, probability or unit column.",
            )
    intersections = _parse_intersections(ctx, fb.get("intersections"), attributes)

    cases: Path | None = None
    if fb.get("cases") is not None:
        raw = Path(_text(ctx, "fairness.cases", fb["cases"])).expanduser()
        cases = raw if raw.is_absolute() or base_dir is None else (base_dir / raw)

    fmt, delimiter = _format_and_delimiter(ctx, "fairness", fb)

    spec = FairnessSpec(
        name=_text(ctx, "fairness.name", fb.get("name", "fairness")),
        cases=cases,
        label=label,
        prediction=prediction,
        probability=probability,
        unit=unit,
        attributes=attributes,
        intersections=intersections,
        min_cell=_count(
            ctx, "fairness.min_cell", fb.get("min_cell", DEFAULT_MIN_CELL), low=0, high=10**9
        ),
        max_left_out=_fraction(
            ctx, "fairness.max_left_out", fb.get("max_left_out", DEFAULT_MAX_LEFT_OUT)
        ),
        max_missing=_fraction(
            ctx, "fairness.max_missing", fb.get("max_missing", DEFAULT_MAX_MISSING)
        ),
        calibration_bins=_count(
            ctx,
            "fairness.calibration_bins",
            fb.get("calibration_bins", DEFAULT_CALIBRATION_BINS),
            low=1,
            high=1000,
        ),
        alpha=_alpha(ctx, "fairness.alpha", fb.get("alpha", DEFAULT_ALPHA)),
        rules=(),
        label_map=_binary_map(ctx, "fairness.label_map", fb["label_map"])
        if "label_map" in fb
        else {},
        prediction_map=_binary_map(ctx, "fairness.prediction_map", fb["prediction_map"])
        if "prediction_map" in fb
        else {},
        format=fmt,
        delimiter=delimiter,
    )
    if "favorable" in fb:
        favorable, written = _favorable(ctx, fb["favorable"], spec)
        spec = replace(spec, favorable=favorable, favorable_value=written)
    rules = _parse_rules(ctx, fb.get("rules"), spec)
    sources = {
        k: ("spec" if k in fb else "default")
        for k in ("alpha", "max_left_out", "min_cell", "max_missing")
    }
    return replace(spec, rules=rules, sources=sources)


def _favorable(ctx: _Ctx, value: Any, spec: FairnessSpec) -> tuple[int, str | None]:
    """``favorable:``: 0 or 1, or a value that ``label_map`` (and ``prediction_map``) map.

    A mapped value (``favorable: approved``) stands for the number the maps give it, so
    it must be a key of ``label_map`` and, when the spec has one, of ``prediction_map``,
    mapped to the same number in both. Returns the number and the value as written (or
    ``None`` when 0 or 1 was written).
    """
    key = "fairness.favorable"
    if isinstance(value, bool):
        raise ctx.fail(
            key,
            f"an unquoted yes/no/true/false/on/off was read by YAML as a boolean "
            f"({str(value).lower()}).",
            "Write 1 or 0 (the label and prediction value that is good for the person), "
            "or quote a value that label_map maps.",
        )
    if isinstance(value, int | float) and value in (0, 1):
        return int(value), None
    if not isinstance(value, str) or not value.strip():
        raise ctx.fail(
            key,
            f"must be 1 or 0 (or a value label_map maps), got {_kind(value)}.",
            "Write 1 when the value 1 is the good outcome for the person (approved, hired), "
            "0 when 1 is the adverse one (flagged, rejected).",
        )
    text = value.strip()
    if text in ("0", "1"):
        return int(text), None
    if not spec.label_map:
        raise ctx.fail(
            key,
            f"'{text}' is not 0 or 1, and there is no label_map that maps it.",
            "Write 1 or 0, or map the label's values with label_map and name one of them.",
        )
    targets: list[int] = []
    for role, mapping in (("label_map", spec.label_map), ("prediction_map", spec.prediction_map)):
        if not mapping:
            continue
        found = DeclaredValues(mapping).match(text)
        if found is None:
            raise ctx.fail(
                key,
                f"'{text}' is not a key of fairness.{role}." + did_you_mean(text, mapping),
                f"Name one of {', '.join(map(repr, mapping))}, or write 1 or 0.",
            )
        targets.append(mapping[found])
    if len(set(targets)) != 1:
        raise ctx.fail(
            key,
            f"'{text}' is mapped to {targets[0]} by label_map but to {targets[1]} by "
            "prediction_map, so it does not name one outcome.",
            "Map the favourable value to the same number in both maps.",
        )
    return targets[0], text


def _parse_attributes(
    ctx: _Ctx, value: Any, where: str = "fairness.attributes"
) -> dict[str, tuple[str, ...]]:
    block = _mapping(ctx, where, value)
    if not block:
        raise ctx.fail(
            where,
            "declares no attribute.",
            "Declare at least one, e.g. sex: [female, male].",
        )
    out: dict[str, tuple[str, ...]] = {}
    for attr, values in block.items():
        key = f"{where}.{attr}"
        name = _name(ctx, key, attr)
        if not isinstance(values, list) or not values:
            raise ctx.fail(
                key,
                f"must be a list of the declared values, got {_kind(values)}.",
                "For example: [female, male].",
            )
        texts = [_value_text(ctx, f"{key}[{i}]", v) for i, v in enumerate(values)]
        dupes = sorted(t for t, k in Counter(texts).items() if k > 1)
        if dupes:
            raise ctx.fail(key, f"declares {dupes[0]!r} more than once.")
        twins = same_number_pair(texts)
        if twins is not None:
            raise ctx.fail(
                key,
                f"declares {twins[0]!r} and {twins[1]!r}, which are the same number, so a "
                "cell such as 1.0 would match both (declared numbers match any spelling of "
                "the same number).",
                "Declare the number once.",
            )
        out[name] = tuple(texts)
    return out


def _parse_intersections(
    ctx: _Ctx, value: Any, attributes: Mapping[str, tuple[str, ...]]
) -> tuple[tuple[str, ...], ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise ctx.fail(
            "fairness.intersections",
            f"must be a list of attribute lists, got {_kind(value)}.",
            "For example: [[sex, age_band]].",
        )
    out: list[tuple[str, ...]] = []
    for i, item in enumerate(value):
        key = f"fairness.intersections[{i}]"
        if not isinstance(item, list) or len(item) < 2:
            raise ctx.fail(key, f"must list two or more attributes, got {_kind(item)}.")
        names = tuple(_name(ctx, key, a) for a in item)
        for name in names:
            if name not in attributes:
                raise ctx.fail(
                    key,
                    f"'{name}' is not a declared attribute." + did_you_mean(name, attributes),
                    "Declare it under fairness.attributes first.",
                )
        if len(set(names)) != len(names):
            raise ctx.fail(key, "names the same attribute twice.")
        if any(set(names) == set(seen) for seen in out):
            raise ctx.fail(key, "is declared twice.")
        out.append(names)
    return tuple(out)


def _parse_rules(ctx: _Ctx, value: Any, spec: FairnessSpec) -> tuple[Rule, ...]:
    if value is None:
        return ()
    if not isinstance(value, list):
        raise ctx.fail("fairness.rules", f"must be a list of rules, got {_kind(value)}.")
    rules: list[Rule] = []
    for i, item in enumerate(value):
        where = f"fairness.rules[{i}]"
        rb = _mapping(ctx, where, item)
        _check_keys(ctx, where, rb, _RULE_KEYS, ("id", "rate", "attribute"))
        rule_id = _text(ctx, f"{where}.id", rb["id"])
        if any(r.id == rule_id for r in rules):
            raise ctx.fail(
                f"{where}.id",
                f"'{rule_id}' is used by an earlier rule.",
                "Give every rule its own id.",
            )
        rate_text = _text(ctx, f"{where}.rate", rb["rate"])
        rates = [r.value for r in Rate] + [EQUALIZED_ODDS]
        if rate_text not in rates:
            raise ctx.fail(
                f"{where}.rate",
                f"'{rate_text}' is not a rate." + did_you_mean(rate_text, rates),
                f"Use one of {', '.join(rates)}.",
            )
        attrs = _rule_attributes(ctx, f"{where}.attribute", rb["attribute"], spec)
        given = [k for k in _THRESHOLDS if k in rb]
        if len(given) != 1:
            raise ctx.fail(
                where,
                "needs exactly one of max_group_gap, min_group_ratio and worst_group"
                + (f", not {' and '.join(given)}." if given else "."),
                "For example max_group_gap: 0.05, min_group_ratio: 0.8, or "
                "worst_group: {min: 0.8}.",
            )
        kind = given[0]
        odds = rate_text == EQUALIZED_ODDS
        if odds and kind != "max_group_gap":
            raise ctx.fail(
                f"{where}.{kind}",
                "rate equalized_odds is decided on the false positive and false negative "
                "gaps, so it needs max_group_gap.",
                "Write max_group_gap: 0.1, or name one rate (false_positive, "
                "false_negative) for a ratio or worst-group rule.",
            )
        gap = ratio = wmin = wmax = None
        if kind == "worst_group":
            wmin, wmax = _worst_group(ctx, f"{where}.worst_group", rb["worst_group"])
        else:
            if kind == "max_group_gap":
                gap = _fraction(ctx, f"{where}.max_group_gap", rb["max_group_gap"])
            else:
                ratio = _fraction(
                    ctx, f"{where}.min_group_ratio", rb["min_group_ratio"], open_low=True
                )
            n_groups = math.prod(len(spec.attributes[a]) for a in attrs)
            if n_groups < 2:
                what = "a gap" if gap is not None else "a ratio"
                raise ctx.fail(f"{where}.attribute", f"{what} needs two or more declared groups.")
        reference = None
        if "reference" in rb:
            if kind == "worst_group":
                raise ctx.fail(
                    f"{where}.reference",
                    "a worst_group rule compares each group with its bound, not with a "
                    "reference group.",
                    "Remove reference, or use max_group_gap or min_group_ratio.",
                )
            reference = _reference(ctx, f"{where}.reference", rb["reference"], attrs, spec)
        left = rb.get("max_left_out")
        missing = rb.get("max_missing")
        method = _method(ctx, f"{where}.method", rb.get("method", RULE_METHODS[0]), kind)
        rules.append(
            Rule(
                id=rule_id,
                rate=Rate.FALSE_POSITIVE if odds else Rate(rate_text),
                attributes=attrs,
                max_group_gap=gap,
                min_group_ratio=ratio,
                worst_min=wmin,
                worst_max=wmax,
                reference=reference,
                equalized_odds=odds,
                max_left_out=None
                if left is None
                else _fraction(ctx, f"{where}.max_left_out", left),
                max_missing=None
                if missing is None
                else _fraction(ctx, f"{where}.max_missing", missing),
                method=method,
            )
        )
    return tuple(rules)


def _method(ctx: _Ctx, where: str, value: Any, kind: str) -> str:
    """A rule's ``method:``: ``simultaneous`` or ``pairwise`` (a gap or ratio rule only)."""
    if value not in RULE_METHODS:
        raise ctx.fail(
            where,
            f"'{value}' is not a method." + did_you_mean(str(value), RULE_METHODS),
            "Use simultaneous (the default: every gap bounded from the group intervals at "
            "alpha / G) or pairwise (each pair's one-sided test at alpha).",
        )
    if value == "pairwise" and kind == "worst_group":
        raise ctx.fail(
            where,
            "a worst_group rule compares each group with its bound, so it has no pairs to test.",
            "Remove method, or use max_group_gap or min_group_ratio.",
        )
    return str(value)


def _reference(
    ctx: _Ctx, key: str, value: Any, attrs: tuple[str, ...], spec: FairnessSpec
) -> tuple[str, ...]:
    """The reference group: a declared value, or one per attribute of an intersection.

    For an intersection the values are given in the order of the declared intersection
    (``attrs``), as a list, or as a mapping from attribute to value.
    """
    if len(attrs) == 1:
        if isinstance(value, list | dict):
            raise ctx.fail(
                key,
                f"the rule reads one attribute, {attrs[0]}, so the reference is one of its "
                f"values, got {_kind(value)}.",
                f"Write one of {', '.join(spec.attributes[attrs[0]])}.",
            )
        texts = [_value_text(ctx, key, value)]
    elif isinstance(value, dict):
        unknown = [a for a in value if a not in attrs]
        if unknown or len(value) != len(attrs):
            raise ctx.fail(
                key,
                f"must give one value for each of {', '.join(attrs)}"
                + (f"; {unknown[0]!r} is not one of them." if unknown else "."),
                "For example: {" + ", ".join(f"{a}: ..." for a in attrs) + "}.",
            )
        texts = [_value_text(ctx, f"{key}.{a}", value[a]) for a in attrs]
    elif isinstance(value, list) and len(value) == len(attrs):
        texts = [_value_text(ctx, f"{key}[{i}]", v) for i, v in enumerate(value)]
    else:
        raise ctx.fail(
            key,
            f"the rule reads the intersection [{', '.join(attrs)}], so the reference is "
            f"one value of each, got {_kind(value)}.",
            "For example: [" + ", ".join(spec.attributes[a][0] for a in attrs) + "].",
        )
    for attr, text in zip(attrs, texts, strict=True):
        declared = spec.attributes[attr]
        if text not in declared:
            raise ctx.fail(
                key,
                f"'{text}' is not a declared value of {attr}." + did_you_mean(text, declared),
                f"Declared values of {attr}: {', '.join(declared)}.",
            )
    return tuple(texts)


def _rule_attributes(ctx: _Ctx, key: str, value: Any, spec: FairnessSpec) -> tuple[str, ...]:
    names = (
        tuple(_name(ctx, key, a) for a in value)
        if isinstance(value, list)
        else (_name(ctx, key, value),)
    )
    if not names:
        raise ctx.fail(key, "names no attribute.")
    for name in names:
        if name not in spec.attributes:
            raise ctx.fail(
                key,
                f"'{name}' is not a declared attribute." + did_you_mean(name, spec.attributes),
                f"Declared attributes: {', '.join(spec.attributes)}.",
            )
    if len(names) == 1:
        return names
    for inter in spec.intersections:
        if set(inter) == set(names) and len(inter) == len(names):
            return inter
    raise ctx.fail(
        key,
        f"the intersection [{', '.join(names)}] is not declared.",
        f"Add [{', '.join(names)}] under fairness.intersections.",
    )
