"""The ``ll144:`` block (NYC Local Law 144 bias audit) and its checks against the others.

The block names the tool's kind (``selection`` with a 0/1 ``selected`` column, or
``scoring`` with a numeric ``score``), the sex and race/ethnicity columns, and the
audit's settings and dates. The file's own spellings of the EEO-1 categories are checked
against :mod:`respai.eeo1` (pure domain data: this module depends on it, not on the
:mod:`respai.ll144` feature package). With an ``ll144:`` block, ``data.source`` and
``data.explanation`` are required, since the published summary states them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from respai.eeo1 import AXES, canonical_label, spelling_key
from respai.errors import did_you_mean
from respai.spec.checks import (
    _binary_map,
    _check_keys,
    _Ctx,
    _date,
    _distinct_roles,
    _fraction,
    _kind,
    _mapping,
    _name,
    _text,
)
from respai.spec.parsed import DataSpec, Spec, SystemInfo

__all__ = ["Auditor", "LL144Spec", "declared_ll144", "parse_ll144"]


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


def declared_ll144(spec: Spec) -> LL144Spec | None:
    """The spec's ``ll144:`` block, when it declares one."""
    found = spec.blocks.get("ll144")
    return found if isinstance(found, LL144Spec) else None
