"""The spec file: parse and validate a YAML declaration into frozen objects.

Validation happens here, before any data is read: unknown keys, wrong types, rules naming
undeclared attributes and thresholds out of range are each a :class:`SpecError` naming the
key, with a "did you mean" hint where a close spelling exists. Whether the declared
columns exist in the data is checked by :mod:`respai.load`, which reads only the header.

The ``fairness:`` block of seed 003 is accepted as written. Extension keys are documented
in ``docs/spec.md``.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from respai.errors import SpecError, did_you_mean
from respai.metrics import Rate

__all__ = [
    "Auditor",
    "DataSpec",
    "EvaluationSpec",
    "FairnessSpec",
    "LL144Spec",
    "Policy",
    "Rate",
    "Rule",
    "Spec",
    "SystemInfo",
    "load_policy",
    "load_spec",
    "parse_evaluation",
    "parse_fairness",
    "parse_ll144",
    "parse_policy",
]

DEFAULT_ALPHA = 0.05
DEFAULT_MIN_CELL = 30
DEFAULT_MAX_LEFT_OUT = 0.10
DEFAULT_CALIBRATION_BINS = 10
FORMATS = ("csv", "jsonl", "parquet")


@dataclass(frozen=True, slots=True)
class Rule:
    """One declared group rule.

    Exactly one of ``max_group_gap``, ``worst_min`` and ``worst_max`` is set.
    ``threshold_source`` says where the threshold came from (``"spec"`` or the policy).
    """

    id: str
    rate: Rate
    attributes: tuple[str, ...]
    max_group_gap: float | None = None
    worst_min: float | None = None
    worst_max: float | None = None
    max_left_out: float | None = None
    threshold_source: str = "spec"
    max_left_out_source: str = "spec"

    @property
    def kind(self) -> str:
        """``"max_group_gap"`` or ``"worst_group"``."""
        return "max_group_gap" if self.max_group_gap is not None else "worst_group"

    @property
    def group_label(self) -> str:
        """The attribute or intersection name, e.g. ``sex`` or ``sex × age_band``."""
        return " × ".join(self.attributes)


@dataclass(frozen=True, slots=True)
class FairnessSpec:
    """A validated ``fairness:`` declaration.

    ``attributes`` maps each protected attribute (a column name) to its declared values,
    as strings, in declared order. ``cases`` is an absolute path, or ``None`` when the data
    comes as a DataFrame through the Python API.
    """

    label: str
    prediction: str
    attributes: Mapping[str, tuple[str, ...]]
    name: str = "fairness"
    cases: Path | None = None
    probability: str | None = None
    unit: str | None = None
    intersections: tuple[tuple[str, ...], ...] = ()
    min_cell: int = DEFAULT_MIN_CELL
    max_left_out: float = DEFAULT_MAX_LEFT_OUT
    calibration_bins: int = DEFAULT_CALIBRATION_BINS
    alpha: float = DEFAULT_ALPHA
    rules: tuple[Rule, ...] = ()
    label_map: Mapping[str, int] = field(default_factory=dict)
    prediction_map: Mapping[str, int] = field(default_factory=dict)
    format: str | None = None
    delimiter: str = ","
    sources: Mapping[str, str] = field(default_factory=dict)

    @property
    def groupings(self) -> tuple[tuple[str, ...], ...]:
        """Every single attribute, then every declared intersection."""
        return tuple((a,) for a in self.attributes) + self.intersections

    def columns(self) -> tuple[str, ...]:
        """Every data column the declaration reads."""
        cols = [self.label, self.prediction]
        if self.probability:
            cols.append(self.probability)
        if self.unit:
            cols.append(self.unit)
        cols.extend(self.attributes)
        seen: dict[str, None] = dict.fromkeys(cols)
        return tuple(seen)


@dataclass(frozen=True, slots=True)
class SystemInfo:
    """The optional ``system:`` block: what is being evaluated."""

    name: str | None = None
    version: str | None = None
    owner: str | None = None
    use_case: str | None = None
    jurisdiction: str | None = None
    first_distributed: str | None = None

    def to_dict(self) -> dict[str, str]:
        """The fields that are set, by name (for records and summaries)."""
        return {
            k: v
            for k, v in (
                ("name", self.name),
                ("version", self.version),
                ("owner", self.owner),
                ("use_case", self.use_case),
                ("jurisdiction", self.jurisdiction),
                ("first_distributed", self.first_distributed),
            )
            if v is not None
        }


@dataclass(frozen=True, slots=True)
class EvaluationSpec:
    """The optional ``evaluation:`` block: which battery tests, and the score column."""

    tests: tuple[str, ...]
    score: str | None = None
    seed: int | None = None
    #: Whether ``tests`` was listed in the spec (else the default battery applies).
    explicit_tests: bool = False
    #: The model file for perturbation stability, and its feature columns in order.
    model: Path | None = None
    features: tuple[str, ...] = ()
    #: Columns to perturb (``None``: every feature column holding numbers).
    numeric: tuple[str, ...] | None = None
    noise: float = 0.05
    trials: int = 5
    trusted_types: tuple[str, ...] = ()
    positive_label: str | None = None


@dataclass(frozen=True, slots=True)
class DataSpec:
    """The optional ``data:`` block: where the cases and the self-ID come from.

    ``cases`` and ``demographics`` are absolute paths (or ``None``). ``join_on`` is the id
    column both files share; ``source`` is ``"historical"`` or ``"test"``.
    """

    cases: Path | None = None
    id: str | None = None
    demographics: Path | None = None
    join_on: str | None = None
    source: str | None = None
    explanation: str | None = None
    format: str | None = None
    delimiter: str = ","


@dataclass(frozen=True, slots=True)
class Auditor:
    """The optional ``ll144.auditor:`` block: who ran the audit and why they are independent."""

    name: str | None = None
    organisation: str | None = None
    independence_statement: str | None = None


@dataclass(frozen=True, slots=True)
class LL144Spec:
    """A validated ``ll144:`` block (NYC Local Law 144 bias audit).

    ``kind`` is ``"selection"`` (with ``selected``, a 0/1 column) or ``"scoring"`` (with
    ``score``, a numeric column). Dates are ISO ``YYYY-MM-DD`` strings. ``categories`` maps
    ``"sex"`` and ``"race"`` to the file's own spellings and their canonical labels.
    """

    kind: str
    sex: str
    race: str
    selected: str | None = None
    selected_map: Mapping[str, int] = field(default_factory=dict)
    score: str | None = None
    min_share: float = 0.02
    exclusion_justification: str | None = None
    cutoffs: tuple[float, ...] = ()
    stages: tuple[str, ...] = ()
    margin: float = 0.05
    audit_date: str | None = None
    distribution_date: str | None = None
    use_date: str | None = None
    categories: Mapping[str, Mapping[str, str]] = field(default_factory=dict)
    unknown_values: tuple[str, ...] = ()
    auditor: Auditor | None = None

    def columns(self) -> tuple[str, ...]:
        """Every data column the block reads, once each, in a stable order."""
        cols = [self.sex, self.race]
        if self.selected:
            cols.append(self.selected)
        if self.score:
            cols.append(self.score)
        cols.extend(self.stages)
        return tuple(dict.fromkeys(cols))


@dataclass(frozen=True, slots=True, init=False)
class Spec:
    """A whole spec file: its path and digest, and its blocks.

    ``fairness`` may be absent when the spec has an ``ll144:`` block (an LL144-only
    spec); reading :attr:`fairness` then raises a :class:`SpecError` that says so, so a
    command that needs group rules refuses the spec with exit code 2.
    """

    path: Path | None
    sha256: str | None
    system: SystemInfo
    fairness_block: FairnessSpec | None
    evaluation: EvaluationSpec | None
    data: DataSpec
    ll144: LL144Spec | None

    def __init__(
        self,
        path: Path | None,
        sha256: str | None,
        system: SystemInfo,
        fairness: FairnessSpec | None = None,
        evaluation: EvaluationSpec | None = None,
        *,
        data: DataSpec | None = None,
        ll144: LL144Spec | None = None,
        fairness_block: FairnessSpec | None = None,
    ) -> None:
        object.__setattr__(self, "path", path)
        object.__setattr__(self, "sha256", sha256)
        object.__setattr__(self, "system", system)
        # ``fairness_block`` is the field's own name, so dataclasses.replace() works too
        object.__setattr__(
            self, "fairness_block", fairness if fairness is not None else fairness_block
        )
        object.__setattr__(self, "evaluation", evaluation)
        object.__setattr__(self, "data", data if data is not None else DataSpec())
        object.__setattr__(self, "ll144", ll144)

    @property
    def fairness(self) -> FairnessSpec:
        """The ``fairness:`` block.

        Raises
        ------
        SpecError
            When the spec has no ``fairness:`` block (an LL144-only spec).
        """
        if self.fairness_block is None:
            origin = str(self.path) if self.path is not None else "spec"
            raise SpecError(
                f"{origin}: fairness: is required by this command but missing (the spec "
                "has only an ll144: block).",
                "Declare the label, prediction and attributes under fairness:, or run "
                f"respai ll144 {origin} for the LL144 bias audit.",
            )
        return self.fairness_block


@dataclass(frozen=True, slots=True)
class Policy:
    """A policy file's overrides, with its path and SHA-256 for the record."""

    path: Path | None
    sha256: str | None
    alpha: float | None = None
    max_left_out: float | None = None
    min_cell: int | None = None
    rules: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    tests: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    @property
    def source(self) -> str:
        """How the record names this policy: ``policy <path> sha256:<hex>``."""
        name = self.path.name if self.path else "<dict>"
        return f"policy {name} sha256:{self.sha256}" if self.sha256 else f"policy {name}"


# --- YAML reading ---------------------------------------------------------------------


class _StrictLoader(yaml.SafeLoader):
    """SafeLoader that refuses duplicate mapping keys."""


def _construct_mapping(loader: _StrictLoader, node: yaml.MappingNode) -> dict[Any, Any]:
    loader.flatten_mapping(node)
    out: dict[Any, Any] = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        if key in out:
            line = key_node.start_mark.line + 1
            raise SpecError(
                f"key '{key}' appears twice in the same block (line {line}).",
                "Keep one of them.",
            )
        out[key] = loader.construct_object(value_node, deep=True)
    return out


_StrictLoader.add_constructor(
    yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG,
    _construct_mapping,
)


def _read_yaml(path: Path, what: str) -> tuple[Any, str]:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise SpecError(f"{what} file {path} does not exist.", "Check the path.") from None
    except IsADirectoryError:
        raise SpecError(f"{what} file {path} is a directory, not a YAML file.") from None
    except OSError as exc:
        raise SpecError(f"cannot read {what} file {path}: {exc.strerror}.") from None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SpecError(
            f"{what} file {path} is not UTF-8 text (bad byte at offset {exc.start}).",
            "Save it as UTF-8.",
        ) from None
    try:
        doc = yaml.load(text, Loader=_StrictLoader)
    except SpecError as exc:
        raise SpecError(f"{path}: {exc.message}", exc.hint) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise SpecError(
            f"{what} file {path} is not valid YAML{where}: {problem}.",
            "Check indentation and quoting there.",
        ) from None
    return doc, hashlib.sha256(raw).hexdigest()


# --- small validators -------------------------------------------------------------------


class _Ctx:
    """Where we are in the file, for messages: ``spec.yaml: fairness.rules[1].rate``."""

    def __init__(self, origin: str) -> None:
        self.origin = origin

    def fail(self, key: str, message: str, hint: str | None = None) -> SpecError:
        return SpecError(f"{self.origin}: {key}: {message}", hint)


def _check_keys(
    ctx: _Ctx,
    where: str,
    block: Mapping[Any, Any],
    allowed: Sequence[str],
    required: Sequence[str],
) -> None:
    for key in block:
        if not isinstance(key, str):
            raise ctx.fail(where, f"key {key!r} is not a name.", "Keys are plain words.")
        if key not in allowed:
            raise ctx.fail(
                f"{where}.{key}" if where else key,
                "unknown key." + did_you_mean(key, allowed),
                f"Allowed keys here: {', '.join(allowed)}.",
            )
    for key in required:
        if key not in block:
            raise ctx.fail(f"{where}.{key}" if where else key, "is required but missing.")


def _mapping(ctx: _Ctx, key: str, value: Any) -> Mapping[Any, Any]:
    if not isinstance(value, Mapping):
        raise ctx.fail(key, f"must be a mapping of keys to values, got {_kind(value)}.")
    return value


def _name(ctx: _Ctx, key: str, value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, str | int) or str(value).strip() == "":
        raise ctx.fail(key, f"must be a column name (text), got {_kind(value)}.")
    return str(value)


def _text(ctx: _Ctx, key: str, value: Any) -> str:
    if isinstance(value, bool) or value is None or isinstance(value, Mapping | list):
        raise ctx.fail(key, f"must be text, got {_kind(value)}.")
    return str(value)


def _fraction(ctx: _Ctx, key: str, value: Any, *, open_low: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ctx.fail(key, f"must be a number between 0 and 1, got {_kind(value)}.")
    low_ok = value > 0 if open_low else value >= 0
    if not low_ok or value > 1:
        bound = "above 0" if open_low else "0 or more"
        raise ctx.fail(
            key,
            f"must be {bound} and at most 1, got {value}.",
            "Write shares as fractions: 5 percentage points is 0.05.",
        )
    return float(value)


def _count(ctx: _Ctx, key: str, value: Any, *, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ctx.fail(key, f"must be a whole number, got {_kind(value)}.")
    if not low <= value <= high:
        raise ctx.fail(key, f"must be between {low} and {high}, got {value}.")
    return value


def _kind(value: Any) -> str:
    if value is None:
        return "nothing (empty)"
    if isinstance(value, bool):
        return f"the boolean {str(value).lower()} (quote it if you meant text)"
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return f"the text '{value}'"
    return f"{type(value).__name__} {value!r}"


def _value_text(ctx: _Ctx, key: str, value: Any) -> str:
    """Declared attribute values are compared as text; refuse what YAML silently changed."""
    if isinstance(value, bool):
        raise ctx.fail(
            key,
            "an unquoted yes/no/true/false/on/off was read by YAML as a boolean "
            f"({str(value).lower()}).",
            "Quote it, e.g. 'yes' or 'no', so it stays text.",
        )
    if isinstance(value, float):
        if not value.is_integer():
            raise ctx.fail(key, f"the value {value} is not a category.", "Quote it as text.")
        return str(int(value))
    if isinstance(value, int | str):
        text = str(value)
        if text.strip() == "":
            raise ctx.fail(key, "an empty value cannot be a declared group.")
        if any(ord(c) < 32 or 127 <= ord(c) < 160 for c in text):
            raise ctx.fail(key, f"the value {text!r} holds control characters.")
        return text
    raise ctx.fail(key, f"each value must be text or a whole number, got {_kind(value)}.")


def _binary_map(ctx: _Ctx, key: str, value: Any) -> dict[str, int]:
    block = _mapping(ctx, key, value)
    out: dict[str, int] = {}
    for raw, target in block.items():
        if isinstance(target, bool) or target not in (0, 1):
            raise ctx.fail(f"{key}.{raw}", f"must map to 0 or 1, got {_kind(target)}.")
        if isinstance(raw, bool):
            raise ctx.fail(
                key,
                f"an unquoted yes/no/true/false/on/off key was read by YAML as a boolean "
                f"({str(raw).lower()}).",
                "Quote the keys, e.g. {'yes': 1, 'no': 0}, so they match the text in the file.",
            )
        out[str(raw)] = int(target)
    if not out:
        raise ctx.fail(key, "is empty.", "Map each value in the column to 0 or 1.")
    return out


# --- the fairness block -----------------------------------------------------------------

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
    "calibration_bins",
    "rules",
    "alpha",
    "label_map",
    "prediction_map",
    "format",
    "delimiter",
)
_RULE_KEYS = ("id", "rate", "attribute", "max_group_gap", "worst_group", "max_left_out")


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
    rules = _parse_rules(ctx, fb.get("rules"), spec)
    sources = {
        k: ("spec" if k in fb else "default") for k in ("alpha", "max_left_out", "min_cell")
    }
    return _replace(spec, rules=rules, sources=sources)


def _distinct_roles(ctx: _Ctx, block: str, roles: Mapping[str, str | None]) -> None:
    """Refuse one column named for two roles (label and prediction, sex and race, ...)."""
    seen: dict[str, str] = {}
    for role, column in roles.items():
        if column is None:
            continue
        if column in seen:
            raise ctx.fail(
                f"{block}.{role}",
                f"names the column '{column}', which is already the {seen[column]} column.",
                "Each role needs its own column.",
            )
        seen[column] = role


def _format_and_delimiter(
    ctx: _Ctx, where: str, block: Mapping[Any, Any]
) -> tuple[str | None, str]:
    """The ``format`` (lower case, or ``None``: from the suffix) and ``delimiter`` keys."""
    fmt = block.get("format")
    if fmt is not None:
        fmt = _text(ctx, f"{where}.format", fmt).lower()
        if fmt not in FORMATS:
            raise ctx.fail(
                f"{where}.format",
                f"'{fmt}' is not a supported format." + did_you_mean(fmt, FORMATS),
                f"Use one of {', '.join(FORMATS)}.",
            )
    delimiter = block.get("delimiter", ",")
    if not isinstance(delimiter, str) or len(delimiter) != 1:
        raise ctx.fail(
            f"{where}.delimiter",
            f"must be one character, got {_kind(delimiter)}.",
            "For a tab, write '\\t' in double quotes.",
        )
    return fmt, delimiter


def _alpha(ctx: _Ctx, key: str, value: Any) -> float:
    alpha = _fraction(ctx, key, value, open_low=True)
    if alpha >= 0.5:
        raise ctx.fail(key, f"must be below 0.5, got {alpha}.", "The usual choice is 0.05.")
    return alpha


def _replace(spec: FairnessSpec, **changes: Any) -> FairnessSpec:
    from dataclasses import replace

    return replace(spec, **changes)


def _parse_attributes(ctx: _Ctx, value: Any) -> dict[str, tuple[str, ...]]:
    block = _mapping(ctx, "fairness.attributes", value)
    if not block:
        raise ctx.fail(
            "fairness.attributes",
            "declares no attribute.",
            "Declare at least one, e.g. sex: [female, male].",
        )
    out: dict[str, tuple[str, ...]] = {}
    for attr, values in block.items():
        key = f"fairness.attributes.{attr}"
        name = _name(ctx, key, attr)
        if not isinstance(values, list) or not values:
            raise ctx.fail(
                key,
                f"must be a list of the declared values, got {_kind(values)}.",
                "For example: [female, male].",
            )
        texts = [_value_text(ctx, f"{key}[{i}]", v) for i, v in enumerate(values)]
        dupes = sorted({t for t in texts if texts.count(t) > 1})
        if dupes:
            raise ctx.fail(key, f"declares {dupes[0]!r} more than once.")
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
        rates = [r.value for r in Rate]
        if rate_text not in rates:
            raise ctx.fail(
                f"{where}.rate",
                f"'{rate_text}' is not a rate." + did_you_mean(rate_text, rates),
                f"Use one of {', '.join(rates)}.",
            )
        attrs = _rule_attributes(ctx, f"{where}.attribute", rb["attribute"], spec)
        has_gap, has_worst = "max_group_gap" in rb, "worst_group" in rb
        if has_gap == has_worst:
            raise ctx.fail(
                where,
                "needs exactly one of max_group_gap and worst_group.",
                "For example max_group_gap: 0.05, or worst_group: {min: 0.8}.",
            )
        gap = wmin = wmax = None
        if has_gap:
            gap = _fraction(ctx, f"{where}.max_group_gap", rb["max_group_gap"])
            n_groups = math.prod(len(spec.attributes[a]) for a in attrs)
            if n_groups < 2:
                raise ctx.fail(f"{where}.attribute", "a gap needs two or more declared groups.")
        else:
            wmin, wmax = _worst_group(ctx, f"{where}.worst_group", rb["worst_group"])
        left = rb.get("max_left_out")
        rules.append(
            Rule(
                id=rule_id,
                rate=Rate(rate_text),
                attributes=attrs,
                max_group_gap=gap,
                worst_min=wmin,
                worst_max=wmax,
                max_left_out=None
                if left is None
                else _fraction(ctx, f"{where}.max_left_out", left),
            )
        )
    return tuple(rules)


def _worst_group(ctx: _Ctx, key: str, value: Any) -> tuple[float | None, float | None]:
    block = _mapping(ctx, key, value)
    _check_keys(ctx, key, block, ("min", "max"), ())
    if len(block) != 1:
        raise ctx.fail(
            key,
            "needs exactly one of min and max.",
            "For example {min: 0.8}: every group's rate at least 0.8.",
        )
    if "min" in block:
        return _fraction(ctx, f"{key}.min", block["min"]), None
    return None, _fraction(ctx, f"{key}.max", block["max"])


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


# --- the whole file ---------------------------------------------------------------------

_TOP_KEYS = ("fairness", "system", "data", "evaluation", "ll144")
_SYSTEM_KEYS = ("name", "version", "owner", "use_case", "jurisdiction", "first_distributed")
_DATA_KEYS = (
    "cases",
    "id",
    "demographics",
    "join_on",
    "source",
    "explanation",
    "format",
    "delimiter",
)
_LATER_BLOCKS: tuple[str, ...] = ()
_EVALUATION_KEYS = (
    "tests",
    "score",
    "seed",
    "model",
    "features",
    "numeric",
    "noise",
    "trials",
    "trusted_types",
    "positive_label",
)


def load_spec(path: str | Path) -> Spec:
    """Read and validate a spec file.

    Parameters
    ----------
    path
        A YAML file with a ``fairness:`` block (and optionally ``system:``, ``data:``).

    Raises
    ------
    SpecError
        When the file cannot be read or does not validate.
    """
    p = Path(path)
    doc, digest = _read_yaml(p, "spec")
    return parse_spec(doc, base_dir=p.resolve().parent, origin=str(p), path=p, sha256=digest)


def parse_spec(
    doc: Any,
    *,
    base_dir: Path | None = None,
    origin: str = "spec",
    path: Path | None = None,
    sha256: str | None = None,
) -> Spec:
    """Validate a whole spec document (a mapping) into a :class:`Spec`."""
    ctx = _Ctx(origin)
    if doc is None:
        raise SpecError(f"{origin}: the spec is empty.", "Start from a fairness: block.")
    top = _mapping(ctx, "(top level)", doc)
    for key in top:
        if key in _LATER_BLOCKS:
            raise ctx.fail(
                str(key),
                "this engine version does not read this block yet.",
                "Remove it, or upgrade respai.",
            )
    _check_keys(ctx, "", top, _TOP_KEYS, ())
    data = _mapping(ctx, "data", top.get("data") or {})
    _check_keys(ctx, "data", data, _DATA_KEYS, ())
    for key in ("id", "explanation"):
        if key in data:
            _text(ctx, f"data.{key}", data[key])
    if "source" in data:
        source = _text(ctx, "data.source", data["source"])
        if source not in ("historical", "test"):
            raise ctx.fail(
                "data.source",
                f"'{source}' is not a data source kind."
                + did_you_mean(source, ("historical", "test")),
                "Use historical (real use) or test (with an explanation).",
            )
    if "fairness" not in top and "ll144" not in top:
        raise ctx.fail(
            "fairness",
            "is required but missing.",
            "Declare the label, prediction and attributes under fairness: (or an ll144: "
            "block for an LL144 bias audit).",
        )
    parsed_fairness: FairnessSpec | None = None
    if "fairness" in top:
        fairness = dict(_mapping(ctx, "fairness", top["fairness"]))
        for key in ("cases", "format", "delimiter"):
            if key in data:
                if key in fairness:
                    raise ctx.fail(
                        f"data.{key}", f"is also set as fairness.{key}.", "Set it in one place."
                    )
                fairness[key] = data[key]
        parsed_fairness = parse_fairness(fairness, base_dir=base_dir, origin=origin)
    system_block = _mapping(ctx, "system", top.get("system") or {})
    _check_keys(ctx, "system", system_block, _SYSTEM_KEYS, ())
    system = SystemInfo(**{k: _text(ctx, f"system.{k}", v) for k, v in system_block.items()})
    data_spec = _parse_data(ctx, data, base_dir, parsed_fairness)
    ll144 = None
    if "ll144" in top:
        ll144 = _check_ll144_with_data(
            ctx, parse_ll144(top["ll144"], origin=origin), data_spec, system
        )
    return Spec(
        path=path,
        sha256=sha256,
        system=system,
        fairness=parsed_fairness,
        evaluation=None
        if "evaluation" not in top
        else parse_evaluation(top["evaluation"], origin=origin, base_dir=base_dir),
        data=data_spec,
        ll144=ll144,
    )


# --- the data: block and the ll144: block -------------------------------------------------

_LL144_KEYS = (
    "kind",
    "selected",
    "selected_map",
    "score",
    "sex",
    "race",
    "min_share",
    "exclusion_justification",
    "cutoffs",
    "stages",
    "margin",
    "audit_date",
    "distribution_date",
    "use_date",
    "categories",
    "unknown_values",
    "auditor",
)
_LL144_KINDS = ("selection", "scoring")
_AUDITOR_KEYS = ("name", "organisation", "independence_statement")
_ISO_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def _path(ctx: _Ctx, key: str, value: Any, base_dir: Path | None) -> Path | None:
    if value is None:
        return None
    raw = Path(_text(ctx, key, value)).expanduser()
    return raw if raw.is_absolute() or base_dir is None else base_dir / raw


def _parse_data(
    ctx: _Ctx, data: Mapping[Any, Any], base_dir: Path | None, fairness: FairnessSpec | None
) -> DataSpec:
    """Validate the ``data:`` block into a :class:`DataSpec`."""
    if fairness is not None:
        cases, fmt, delimiter = fairness.cases, fairness.format, fairness.delimiter
    else:
        cases = _path(ctx, "data.cases", data.get("cases"), base_dir)
        fmt, delimiter = _format_and_delimiter(ctx, "data", data)
    id_col = None if data.get("id") is None else _name(ctx, "data.id", data["id"])
    join_on = None if data.get("join_on") is None else _name(ctx, "data.join_on", data["join_on"])
    demographics = _path(ctx, "data.demographics", data.get("demographics"), base_dir)
    if join_on is not None and demographics is None:
        raise ctx.fail(
            "data.join_on",
            "is set but data.demographics is not, so there is nothing to join.",
            "Name the self-identification file under data.demographics, or remove join_on.",
        )
    if demographics is not None and join_on is None:
        if id_col is None:
            raise ctx.fail(
                "data.join_on",
                "is required with data.demographics: it names the id column both files share.",
                "For example join_on: applicant_id.",
            )
        join_on = id_col
    source = None if data.get("source") is None else _text(ctx, "data.source", data["source"])
    explanation = (
        None
        if data.get("explanation") is None
        else _text(ctx, "data.explanation", data["explanation"]).strip() or None
    )
    if source == "test" and explanation is None:
        raise ctx.fail(
            "data.explanation",
            "is required when data.source is test: the published summary must say why "
            "historical data was not used and how the test data was made (6 RCNY § 5-302(b)).",
            "Write both in one or two sentences under data.explanation.",
        )
    return DataSpec(
        cases=cases,
        id=id_col,
        demographics=demographics,
        join_on=join_on,
        source=source,
        explanation=explanation,
        format=fmt,
        delimiter=delimiter,
    )


def _date(ctx: _Ctx, key: str, value: Any) -> str:
    """A date given as a YAML date or an ISO ``YYYY-MM-DD`` string, as an ISO string."""
    if isinstance(value, dt.datetime):
        raise ctx.fail(
            key,
            f"must be a date such as 2026-11-30, got a date and time ({value.isoformat()}).",
            "Drop the time of day.",
        )
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, str) and _ISO_DATE.match(value.strip()):
        try:
            return dt.date.fromisoformat(value.strip()).isoformat()
        except ValueError:
            raise ctx.fail(key, f"'{value}' is not a calendar date.") from None
    raise ctx.fail(
        key,
        f"must be a date such as 2026-11-30, got {_kind(value)}.",
        "Write it as YYYY-MM-DD.",
    )


def _spelling(ctx: _Ctx, key: str, value: Any) -> str:
    """A spelling of a category in the file: text or a whole number, never a boolean."""
    if isinstance(value, bool):
        raise ctx.fail(
            key,
            "an unquoted yes/no/true/false/on/off was read by YAML as a boolean "
            f"({str(value).lower()}).",
            "Quote it so it stays text.",
        )
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, int | str):
        text = str(value)
        if text.strip() == "":
            raise ctx.fail(key, "an empty spelling; empty cells always mean unknown.")
        return text
    raise ctx.fail(key, f"must be text, got {_kind(value)}.")


def _categories(ctx: _Ctx, value: Any, unknown: Sequence[str]) -> dict[str, dict[str, str]]:
    from respai.ll144.categories import AXES, canonical_label, spelling_key

    block = _mapping(ctx, "ll144.categories", value)
    _check_keys(ctx, "ll144.categories", block, tuple(AXES), ())
    unknown_keys = {spelling_key(u): u for u in unknown}
    out: dict[str, dict[str, str]] = {}
    for axis, spellings in block.items():
        where = f"ll144.categories.{axis}"
        mapping = _mapping(ctx, where, spellings)
        seen: dict[str, tuple[str, str]] = {}
        clean: dict[str, str] = {}
        for raw, target in mapping.items():
            spelling = _spelling(ctx, where, raw)
            label_text = _text(ctx, f"{where}.{spelling}", target)
            label = canonical_label(axis, label_text)
            if label is None:
                raise ctx.fail(
                    f"{where}.{spelling}",
                    f"'{label_text}' is not an EEO-1 {axis} category."
                    + did_you_mean(label_text, AXES[axis]),
                    f"Map each spelling to one of: {', '.join(AXES[axis])}.",
                )
            key = spelling_key(spelling)
            if key in unknown_keys:
                raise ctx.fail(
                    f"{where}.{spelling}",
                    f"is also listed in ll144.unknown_values ('{unknown_keys[key]}').",
                    "A spelling either names a category or means unknown, not both.",
                )
            if key in seen and seen[key][1] != label:
                raise ctx.fail(
                    f"{where}.{spelling}",
                    f"maps to '{label}', but '{seen[key][0]}' (the same spelling up to case "
                    f"and spaces) maps to '{seen[key][1]}'.",
                    "Spellings are matched ignoring case and spaces; keep one of them.",
                )
            seen[key] = (spelling, label)
            clean[spelling] = label
        out[str(axis)] = clean
    return out


def _column_list(ctx: _Ctx, key: str, value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not value:
        raise ctx.fail(
            key,
            f"must be a list of column names, got {_kind(value)}.",
            "For example: [parsed, knockout, ranked].",
        )
    names = tuple(_name(ctx, f"{key}[{i}]", v) for i, v in enumerate(value))
    for i, name in enumerate(names):
        if name in names[:i]:
            raise ctx.fail(f"{key}[{i}]", f"'{name}' is listed twice.")
    return names


def parse_ll144(block: Any, *, origin: str = "spec") -> LL144Spec:
    """Validate an ``ll144:`` mapping (as loaded from YAML) into an :class:`LL144Spec`.

    Parameters
    ----------
    block
        The mapping under ``ll144:``.
    origin
        Name used in error messages (the spec file's path).

    Raises
    ------
    SpecError
        For an unknown key, a wrong type, a value out of range, two roles on one column,
        or a category mapped to a label that is not an EEO-1 category.

    Examples
    --------
    >>> b = parse_ll144({"kind": "scoring", "score": "s", "sex": "sex", "race": "race",
    ...                  "cutoffs": [0.1, 0.25], "audit_date": "2026-11-30"})
    >>> b.kind, b.cutoffs, b.min_share, b.margin, b.audit_date
    ('scoring', (0.1, 0.25), 0.02, 0.05, '2026-11-30')
    """
    ctx = _Ctx(origin)
    lb = _mapping(ctx, "ll144", block)
    _check_keys(ctx, "ll144", lb, _LL144_KEYS, ("kind", "sex", "race"))
    kind = _text(ctx, "ll144.kind", lb["kind"])
    if kind not in _LL144_KINDS:
        raise ctx.fail(
            "ll144.kind",
            f"'{kind}' is not a kind of tool." + did_you_mean(kind, _LL144_KINDS),
            "Use selection (the tool moves people forward: selected: <0/1 column>) or "
            "scoring (the tool gives a score: score: <numeric column>).",
        )
    sex = _name(ctx, "ll144.sex", lb["sex"])
    race = _name(ctx, "ll144.race", lb["race"])
    selected = score = None
    if kind == "selection":
        for key in ("score", "cutoffs"):
            if key in lb:
                raise ctx.fail(
                    f"ll144.{key}",
                    "applies to scoring tools, but kind is selection.",
                    "Set kind: scoring with score: <column>, or remove it.",
                )
        if "selected" not in lb:
            raise ctx.fail(
                "ll144.selected",
                "is required when kind is selection: it names the 0/1 column of the tool's "
                "decision.",
            )
        selected = _name(ctx, "ll144.selected", lb["selected"])
    else:
        for key in ("selected", "selected_map"):
            if key in lb:
                raise ctx.fail(
                    f"ll144.{key}",
                    "applies to selection tools, but kind is scoring.",
                    "Set kind: selection, or remove it.",
                )
        if "score" not in lb:
            raise ctx.fail(
                "ll144.score",
                "is required when kind is scoring: it names the numeric score column.",
            )
        score = _name(ctx, "ll144.score", lb["score"])
    roles = {"sex": sex, "race": race, "selected": selected, "score": score}
    _distinct_roles(ctx, "ll144", roles)
    stages: tuple[str, ...] = ()
    if lb.get("stages") is not None:
        stages = _column_list(ctx, "ll144.stages", lb["stages"])
        for i, stage in enumerate(stages):
            if stage in (sex, race, score):
                raise ctx.fail(
                    f"ll144.stages[{i}]",
                    f"'{stage}' is already the "
                    f"{next(r for r, c in roles.items() if c == stage)} column; stages are 0/1 "
                    "columns, one per step of the hiring funnel.",
                )
    cutoffs: tuple[float, ...] = ()
    if lb.get("cutoffs") is not None:
        raw_cutoffs = lb["cutoffs"]
        if not isinstance(raw_cutoffs, list) or not raw_cutoffs:
            raise ctx.fail(
                "ll144.cutoffs",
                f"must be a list of top shares, got {_kind(raw_cutoffs)}.",
                "For example [0.10, 0.25]: the top 10% and the top 25% of scores.",
            )
        values: list[float] = []
        for i, item in enumerate(raw_cutoffs):
            value = _fraction(ctx, f"ll144.cutoffs[{i}]", item, open_low=True)
            if value >= 1:
                raise ctx.fail(
                    f"ll144.cutoffs[{i}]",
                    f"must be a share strictly between 0 and 1, got {item}.",
                    "The top 10% is 0.10.",
                )
            if value in values:
                raise ctx.fail(f"ll144.cutoffs[{i}]", f"{item} is listed twice.")
            values.append(value)
        cutoffs = tuple(values)
    min_share = _fraction(ctx, "ll144.min_share", lb.get("min_share", 0.02))
    if min_share >= 0.5:
        raise ctx.fail(
            "ll144.min_share",
            f"must be below 0.5, got {min_share}.",
            "The DCWP rules allow leaving out categories under 2% (0.02).",
        )
    margin = _fraction(ctx, "ll144.margin", lb.get("margin", 0.05))
    if margin > 0.2:
        raise ctx.fail(
            "ll144.margin",
            f"must be at most 0.2, got {margin}.",
            "Categories with a ratio under 0.8 + margin get the Fisher test and power; "
            "the usual margin is 0.05.",
        )
    justification = None
    if lb.get("exclusion_justification") is not None:
        justification = (
            _text(ctx, "ll144.exclusion_justification", lb["exclusion_justification"]).strip()
            or None
        )
    unknown: tuple[str, ...] = ()
    if lb.get("unknown_values") is not None:
        raw_unknown = lb["unknown_values"]
        if not isinstance(raw_unknown, list):
            raise ctx.fail(
                "ll144.unknown_values",
                f"must be a list of spellings, got {_kind(raw_unknown)}.",
                "For example: [Decline to answer, Unknown].",
            )
        unknown = tuple(
            _spelling(ctx, f"ll144.unknown_values[{i}]", v) for i, v in enumerate(raw_unknown)
        )
    categories: dict[str, dict[str, str]] = {}
    if lb.get("categories") is not None:
        categories = _categories(ctx, lb["categories"], unknown)
    auditor = None
    if lb.get("auditor") is not None:
        ab = _mapping(ctx, "ll144.auditor", lb["auditor"])
        _check_keys(ctx, "ll144.auditor", ab, _AUDITOR_KEYS, ())
        auditor = Auditor(
            **{k: _text(ctx, f"ll144.auditor.{k}", v) for k, v in ab.items() if v is not None}
        )
    dates = {
        key: None if lb.get(key) is None else _date(ctx, f"ll144.{key}", lb[key])
        for key in ("audit_date", "distribution_date", "use_date")
    }
    return LL144Spec(
        kind=kind,
        sex=sex,
        race=race,
        selected=selected,
        selected_map=_binary_map(ctx, "ll144.selected_map", lb["selected_map"])
        if "selected_map" in lb
        else {},
        score=score,
        min_share=min_share,
        exclusion_justification=justification,
        cutoffs=cutoffs,
        stages=stages,
        margin=margin,
        audit_date=dates["audit_date"],
        distribution_date=dates["distribution_date"],
        use_date=dates["use_date"],
        categories=categories,
        unknown_values=unknown,
        auditor=auditor,
    )


def _check_ll144_with_data(
    ctx: _Ctx, ll144: LL144Spec, data: DataSpec, system: SystemInfo
) -> LL144Spec:
    """Checks across the ``ll144:``, ``data:`` and ``system:`` blocks."""
    from dataclasses import replace

    for key in ("source", "explanation"):
        if getattr(data, key) is None:
            raise ctx.fail(
                f"data.{key}",
                "is required with an ll144: block: the published summary must state the "
                "source of the data and explain it (6 RCNY § 5-303).",
                "Set source: historical (or test) and one or two sentences under explanation:.",
            )
    for key in ("id", "join_on"):
        column = getattr(data, key)
        if column is not None and column in ll144.columns():
            raise ctx.fail(
                f"data.{key}",
                f"names the column '{column}', which the ll144: block also reads as a "
                "category, decision, score or stage column.",
                "The id column must be its own column.",
            )
    if system.first_distributed is not None:
        first = _date(ctx, "system.first_distributed", system.first_distributed)
        if ll144.distribution_date is None:
            return replace(ll144, distribution_date=first)
        if ll144.distribution_date != first:
            raise ctx.fail(
                "ll144.distribution_date",
                f"is {ll144.distribution_date}, but system.first_distributed is {first}.",
                "They are the same date (when the tool was first used); set it in one place.",
            )
    return ll144


def _names(ctx: _Ctx, key: str, value: Any) -> tuple[str, ...]:
    if not isinstance(value, list) or not value:
        raise ctx.fail(key, f"must be a list of column names, got {_kind(value)}.")
    names = tuple(_name(ctx, f"{key}[{i}]", v) for i, v in enumerate(value))
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise ctx.fail(key, f"names the column '{dupes[0]}' twice.")
    return names


def parse_evaluation(
    block: Any, *, origin: str = "spec", base_dir: Path | None = None
) -> EvaluationSpec:
    """Validate the ``evaluation:`` block (battery tests, score, model access, seed)."""
    from respai.battery import BATTERY

    ctx = _Ctx(origin)
    eb = _mapping(ctx, "evaluation", block if block is not None else {})
    _check_keys(ctx, "evaluation", eb, _EVALUATION_KEYS, ())
    model: Path | None = None
    features: tuple[str, ...] = ()
    if "model" in eb:
        raw_model = Path(_text(ctx, "evaluation.model", eb["model"])).expanduser()
        model = raw_model if raw_model.is_absolute() or base_dir is None else base_dir / raw_model
        if "features" not in eb:
            raise ctx.fail(
                "evaluation.features",
                "is required with evaluation.model.",
                "List the model's input columns in the order it expects.",
            )
        features = _names(ctx, "evaluation.features", eb["features"])
    elif "features" in eb:
        raise ctx.fail(
            "evaluation.features",
            "is set but evaluation.model is not.",
            "Name the model file, or remove features.",
        )
    numeric = _names(ctx, "evaluation.numeric", eb["numeric"]) if "numeric" in eb else None
    if numeric is not None:
        stray = [c for c in numeric if c not in features]
        if stray:
            raise ctx.fail(
                "evaluation.numeric",
                f"'{stray[0]}' is not one of the features." + did_you_mean(stray[0], features),
            )
    noise = (
        _fraction(ctx, "evaluation.noise", eb["noise"], open_low=True) if "noise" in eb else 0.05
    )
    trials = (
        _count(ctx, "evaluation.trials", eb["trials"], low=1, high=1000) if "trials" in eb else 5
    )
    trusted = (
        _names(ctx, "evaluation.trusted_types", eb["trusted_types"])
        if "trusted_types" in eb
        else ()
    )
    positive = (
        None
        if eb.get("positive_label") is None
        else _text(ctx, "evaluation.positive_label", eb["positive_label"])
    )
    tests: tuple[str, ...] = BATTERY
    if "tests" in eb:
        raw = eb["tests"]
        if not isinstance(raw, list) or not raw:
            raise ctx.fail(
                "evaluation.tests",
                f"must be a list of test ids, got {_kind(raw)}.",
                f"Test ids: {', '.join(BATTERY)}.",
            )
        chosen = []
        for i, item in enumerate(raw):
            name = _text(ctx, f"evaluation.tests[{i}]", item)
            if name not in BATTERY:
                raise ctx.fail(
                    f"evaluation.tests[{i}]",
                    f"'{name}' is not a battery test." + did_you_mean(name, BATTERY),
                    f"Test ids: {', '.join(BATTERY)}.",
                )
            if name in chosen:
                raise ctx.fail(f"evaluation.tests[{i}]", f"'{name}' is listed twice.")
            chosen.append(name)
        tests = tuple(chosen)
    score = None if eb.get("score") is None else _name(ctx, "evaluation.score", eb["score"])
    seed = (
        None
        if "seed" not in eb
        else _count(ctx, "evaluation.seed", eb["seed"], low=0, high=2**32 - 1)
    )
    return EvaluationSpec(
        tests=tests,
        explicit_tests="tests" in eb,
        score=score,
        seed=seed,
        model=model,
        features=features,
        numeric=numeric,
        noise=noise,
        trials=trials,
        trusted_types=trusted,
        positive_label=positive,
    )


# --- policy -----------------------------------------------------------------------------

_POLICY_KEYS = ("name", "description", "alpha", "max_left_out", "min_cell", "rules", "tests")
_POLICY_TEST_KEYS = ("threshold", "decision")


def load_policy(path: str | Path) -> Policy:
    """Read and validate a policy file (thresholds and overrides for one use)."""
    p = Path(path)
    doc, digest = _read_yaml(p, "policy")
    return parse_policy(doc, origin=str(p), path=p, sha256=digest)


def parse_policy(
    doc: Any, *, origin: str = "policy", path: Path | None = None, sha256: str | None = None
) -> Policy:
    """Validate a policy mapping.

    A policy may set ``alpha``, ``max_left_out``, ``min_cell`` and, per rule id under
    ``rules:``, ``max_group_gap``, ``worst_group`` or ``max_left_out``.
    """
    ctx = _Ctx(origin)
    block = _mapping(ctx, "(top level)", doc if doc is not None else {})
    _check_keys(ctx, "", block, _POLICY_KEYS, ())
    rules_block = _mapping(ctx, "rules", block.get("rules") or {})
    rules: dict[str, dict[str, Any]] = {}
    for rule_id, override in rules_block.items():
        where = f"rules.{rule_id}"
        ob = _mapping(ctx, where, override)
        _check_keys(ctx, where, ob, ("max_group_gap", "worst_group", "max_left_out"), ())
        clean: dict[str, Any] = {}
        if "max_group_gap" in ob:
            clean["max_group_gap"] = _fraction(ctx, f"{where}.max_group_gap", ob["max_group_gap"])
        if "worst_group" in ob:
            clean["worst_group"] = _worst_group(ctx, f"{where}.worst_group", ob["worst_group"])
        if "max_left_out" in ob:
            clean["max_left_out"] = _fraction(ctx, f"{where}.max_left_out", ob["max_left_out"])
        rules[str(rule_id)] = clean
    tests_block = _mapping(ctx, "tests", block.get("tests") or {})
    tests: dict[str, dict[str, Any]] = {}
    if tests_block:
        from respai.battery import BATTERY

        for test_id, override in tests_block.items():
            where = f"tests.{test_id}"
            if test_id not in BATTERY:
                raise ctx.fail(
                    where,
                    "is not a battery test." + did_you_mean(str(test_id), BATTERY),
                    f"Test ids: {', '.join(BATTERY)}.",
                )
            ob = _mapping(ctx, where, override)
            _check_keys(ctx, where, ob, _POLICY_TEST_KEYS, ())
            clean_test: dict[str, Any] = {}
            if "threshold" in ob:
                clean_test["threshold"] = _fraction(ctx, f"{where}.threshold", ob["threshold"])
            if "decision" in ob:
                decision = _text(ctx, f"{where}.decision", ob["decision"])
                if decision not in ("estimate", "interval"):
                    raise ctx.fail(
                        f"{where}.decision",
                        f"'{decision}' is not a decision rule."
                        + did_you_mean(decision, ("estimate", "interval")),
                        "Use estimate or interval.",
                    )
                clean_test["decision"] = decision
            tests[str(test_id)] = clean_test
    return Policy(
        path=path,
        sha256=sha256,
        tests=tests,
        alpha=None if "alpha" not in block else _alpha(ctx, "alpha", block["alpha"]),
        max_left_out=None
        if "max_left_out" not in block
        else _fraction(ctx, "max_left_out", block["max_left_out"]),
        min_cell=None
        if "min_cell" not in block
        else _count(ctx, "min_cell", block["min_cell"], low=0, high=10**9),
        rules=rules,
    )


def apply_policy(spec: FairnessSpec, policy: Policy | None) -> FairnessSpec:
    """Return ``spec`` with the policy's overrides applied and their sources noted.

    Raises
    ------
    SpecError
        When the policy names a rule the spec does not declare, or changes a rule's kind.
    """
    sources = {k: spec.sources.get(k, "spec") for k in ("alpha", "max_left_out", "min_cell")}
    if policy is None:
        return _replace(spec, sources=sources)
    changes: dict[str, Any] = {}
    for key in ("alpha", "max_left_out", "min_cell"):
        value = getattr(policy, key)
        if value is not None:
            changes[key] = value
            sources[key] = policy.source
    by_id = {r.id: r for r in spec.rules}
    for rule_id in policy.rules:
        if rule_id not in by_id:
            origin = str(policy.path) if policy.path else "policy"
            raise SpecError(
                f"{origin}: rules.{rule_id}: no rule with this id in the spec."
                + did_you_mean(rule_id, by_id),
                f"Rules in the spec: {', '.join(by_id) or 'none'}.",
            )
    origin = str(policy.path) if policy.path else "policy"
    new_rules = []
    for rule in spec.rules:
        override = policy.rules.get(rule.id, {})
        updates: dict[str, Any] = {}
        if policy.max_left_out is not None and "max_left_out" not in override:
            # the policy's file-wide limit outranks the spec, the rule's own setting too
            updates["max_left_out"] = policy.max_left_out
            updates["max_left_out_source"] = policy.source
        if not override:
            new_rules.append(_replace_rule(rule, updates) if updates else rule)
            continue
        if "max_group_gap" in override or "worst_group" in override:
            updates["threshold_source"] = policy.source
        if "max_group_gap" in override:
            if rule.kind != "max_group_gap":
                raise SpecError(
                    f"{origin}: rules.{rule.id}: the spec declares a worst_group "
                    "rule; a policy cannot turn it into a gap rule."
                )
            updates["max_group_gap"] = override["max_group_gap"]
        if "worst_group" in override:
            if rule.kind != "worst_group":
                raise SpecError(
                    f"{origin}: rules.{rule.id}: the spec declares a max_group_gap "
                    "rule; a policy cannot turn it into a worst_group rule."
                )
            wmin, wmax = override["worst_group"]
            if (wmin is None) != (rule.worst_min is None):
                side = "min" if rule.worst_min is not None else "max"
                raise SpecError(
                    f"{origin}: rules.{rule.id}: the spec declares worst_group "
                    f"{{{side}: ...}}; a policy can change the bound, not its "
                    "side.",
                    f"Write worst_group: {{{side}: <value>}}.",
                )
            updates["worst_min"], updates["worst_max"] = wmin, wmax
        if "max_left_out" in override:
            updates["max_left_out"] = override["max_left_out"]
            updates["max_left_out_source"] = policy.source
        new_rules.append(_replace_rule(rule, updates))
    return _replace(spec, rules=tuple(new_rules), sources=sources, **changes)


def _replace_rule(rule: Rule, updates: Mapping[str, Any]) -> Rule:
    from dataclasses import replace

    return replace(rule, **updates)
