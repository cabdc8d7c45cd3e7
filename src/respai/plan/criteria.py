"""The criteria of an audit, fixed before the numbers: what they are, their id, what changed.

:func:`criteria` reads a parsed spec and policy (no data file, not even its header) and
returns the criteria as plain JSON: the system, the scope memo, every group rule with its
threshold and where the threshold came from, the groups and intersections, ``min_cell``,
``alpha``, ``max_left_out``, the battery tests with their thresholds and decision rules,
the LL144 settings, the paired test's settings and the policy's content. Where the data
is (file paths, formats, delimiters) is not a criterion: the same plan holds wherever the
data ends up. :func:`input_names` lists the files by name, for information only.

:func:`plan_id` is ``sha256:`` and the SHA-256 of the criteria's RFC 8785 canonical
JSON, so the same criteria written in another key order or YAML layout have the same id.
:func:`changes` names every criterion that differs between two such documents.

The smaller document a monitoring stream is named by is the monitor's own
(:func:`respai.monitor.criteria.monitor_criteria`), built from :func:`fairness_criteria`.

This module is pure: it reads no file, prints nothing and signs nothing.
"""

from __future__ import annotations

import dataclasses
import enum
import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from respai.record.canonical import canonical_bytes
from respai.spec.parsed import FairnessSpec, Policy, Rule, Spec

__all__ = [
    "ABSENT",
    "CRITERIA_VERSION",
    "Change",
    "changes",
    "criteria",
    "criteria_bytes",
    "criteria_values",
    "describe",
    "fairness_criteria",
    "input_names",
    "plan_id",
    "source_criterion",
]

CRITERIA_VERSION = "1"
"""The layout of the criteria document; a new layout gets a new number."""

#: Objects whose members are names from the spec (rule ids, test ids, columns): their
#: members are written ``[name]`` in a change's path, the others ``.name``.
_KEYED = frozenset(
    {
        "rules",
        "thresholds",
        "tests",
        "attributes",
        "label_map",
        "prediction_map",
        "selected_map",
        "categories",
        "sources",
    }
)
_WORD = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def source_criterion(text: str) -> str:
    """Where a threshold came from, without the policy file's name and digest.

    ``policy p.yaml sha256:...`` becomes ``policy``: the policy's content is itself a
    criterion, so renaming or reformatting the policy file changes nothing.
    """
    return "policy" if text.startswith("policy") else text


def criteria_values(obj: Any) -> Any:
    """``obj`` as JSON values: dataclasses by field, tuples as lists, enums by value."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return {f.name: criteria_values(getattr(obj, f.name)) for f in dataclasses.fields(obj)}
    if isinstance(obj, enum.Enum):
        return criteria_values(obj.value)
    if isinstance(obj, Mapping):
        return {str(k): criteria_values(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [criteria_values(v) for v in obj]
    if isinstance(obj, Path):  # every path is left out before this
        raise TypeError(f"a path is not a criterion: {obj}")
    return obj


def _rule(rule: Rule) -> dict[str, Any]:
    # the ratio, reference and equalized-odds keys only when set, so earlier plans keep their id
    richer: dict[str, Any] = {}
    if rule.min_group_ratio is not None:
        richer["min_group_ratio"] = rule.min_group_ratio
    if rule.reference is not None:
        richer["reference"] = list(rule.reference)
    if rule.method != "simultaneous":  # how a PASS is decided (engine 0.4.0), only when set
        richer["method"] = rule.method
    return {
        **richer,
        "rate": rule.rate_name,
        "attributes": list(rule.attributes),
        "kind": rule.kind,
        "max_group_gap": rule.max_group_gap,
        "worst_min": rule.worst_min,
        "worst_max": rule.worst_max,
        "threshold_source": source_criterion(rule.threshold_source),
        "max_left_out": rule.max_left_out,
        "max_left_out_source": source_criterion(rule.max_left_out_source),
        "max_missing": rule.max_missing,
        "max_missing_source": source_criterion(rule.max_missing_source),
    }


def fairness_criteria(fs: FairnessSpec) -> dict[str, Any]:
    """The criteria of a ``fairness:`` block in force (the policy applied).

    ``favorable`` is a criterion only when it is 0, and ``familywise`` (run-level
    family-wise control, engine 0.4.0) only when set, so earlier plans keep their id:
    which outcome the rates count and how alpha is shared are fixed before the data is
    seen, as the rules are.
    """
    richer: dict[str, Any] = {} if fs.favorable == 1 else {"favorable": fs.favorable}
    if fs.familywise is not None:
        richer["familywise"] = fs.familywise
    return {
        **richer,
        "name": fs.name,
        "label": fs.label,
        "prediction": fs.prediction,
        "probability": fs.probability,
        "unit": fs.unit,
        "attributes": {a: list(v) for a, v in fs.attributes.items()},
        "intersections": [list(i) for i in fs.intersections],
        "min_cell": fs.min_cell,
        "max_left_out": fs.max_left_out,
        "max_missing": fs.max_missing,
        "alpha": fs.alpha,
        "calibration_bins": fs.calibration_bins,
        "label_map": dict(fs.label_map),
        "prediction_map": dict(fs.prediction_map),
        "sources": {k: source_criterion(v) for k, v in fs.sources.items()},
        "rules": {r.id: _rule(r) for r in fs.rules},
    }


def _policy(policy: Policy | None) -> dict[str, Any] | None:
    if policy is None:
        return None
    return {
        "alpha": policy.alpha,
        "max_left_out": policy.max_left_out,
        "max_missing": policy.max_missing,
        "min_cell": policy.min_cell,
        **({} if policy.familywise is None else {"familywise": policy.familywise}),
        "rules": criteria_values(policy.rules),
        "tests": criteria_values(policy.tests),
    }


def criteria(spec: Spec, policy: Policy | None) -> dict[str, Any]:
    """The criteria of ``spec`` under ``policy``, as plain JSON (no data file is read).

    The group rules and settings are those in force once the policy is applied, each
    threshold with its source (``spec``, ``default`` or ``policy``); the policy's own
    content is a criterion too. The battery (tests and thresholds) is listed when the
    spec has a ``fairness:`` block (``respai evaluate`` runs it then).

    Raises
    ------
    respai.errors.SpecError
        When the policy does not fit the spec (a rule id the spec does not declare, a
        rule's kind changed) or ``evaluation.tests`` lists ``auc`` without a score.
    """
    from respai.blocks import blocks

    return {
        "version": CRITERIA_VERSION,
        "system": spec.system.to_dict(),
        "scope": None
        if spec.scope is None
        else {k: v for k, v in criteria_values(spec.scope).items() if v is not None},
        # every registered block, null when the spec does not declare it
        **{
            b.name: None if (found := b.declared(spec)) is None else b.criteria(found, policy)
            for b in blocks()
        },
        "policy": _policy(policy),
    }


def input_names(spec: Spec, policy: Policy | None) -> dict[str, Any]:
    """The files a run of ``spec`` will read, by name only: information, not criteria.

    The spec's and policy's names and SHA-256 are here too: a plan is about what they
    declare, not about their bytes (a reformatted spec has the same criteria).
    """
    from respai.blocks import block_named

    files: dict[str, str] = {}
    fs = spec.fairness_block
    roles: list[tuple[str, Any]] = [
        ("cases", fs.cases if fs is not None else spec.data.cases),
        ("demographics", spec.data.demographics),
        ("model", spec.evaluation.model if spec.evaluation else None),
    ]
    for name, declared in spec.blocks.items():  # each block's files, by the block's name
        roles += [(name, path) for _, path in block_named(name).inputs(declared)]
    for role, path in roles:
        if path is not None:
            files.setdefault(role, Path(path).name)
    return {
        "spec": {"name": spec.path.name if spec.path else None, "sha256": spec.sha256},
        "policy": None
        if policy is None
        else {"name": policy.path.name if policy.path else None, "sha256": policy.sha256},
        "files": files,
    }


def criteria_bytes(doc: Mapping[str, Any]) -> bytes:
    """The RFC 8785 canonical JSON bytes of a criteria document (what the id hashes)."""
    return canonical_bytes(doc)


def plan_id(doc: Mapping[str, Any]) -> str:
    """``sha256:`` and the hex SHA-256 of the criteria's canonical JSON.

    Examples
    --------
    >>> plan_id({"b": 1, "a": [0.5]}) == plan_id({"a": [0.5], "b": 1.0})
    True
    """
    return "sha256:" + hashlib.sha256(criteria_bytes(doc)).hexdigest()


@dataclasses.dataclass(frozen=True, slots=True)
class Change:
    """One criterion that differs: where it is, its planned value and its value now.

    ``planned`` or ``now`` is :data:`ABSENT` when the criterion exists on one side only.
    """

    path: str
    planned: Any
    now: Any

    def sentence(self) -> str:
        """``fairness.rules[r].max_group_gap: planned 0.1, now 0.2``."""
        return f"{self.path}: planned {_shown(self.planned)}, now {_shown(self.now)}"


ABSENT = object()
"""The value of a criterion that one of two documents does not have."""


def _shown(value: Any) -> str:
    if value is ABSENT:
        return "absent"
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value) if isinstance(value, float) else str(value)
    if isinstance(value, str):
        return repr(value)
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


def _step(parent: str, key: str, keyed: bool) -> str:
    if keyed or not _WORD.match(key):
        return f"{parent}[{key}]"
    return f"{parent}.{key}" if parent else key


def _diff(a: Any, b: Any, path: str, keyed: bool, out: list[Change]) -> None:
    """Compare ``a`` and ``b`` at ``path``; ``keyed``: their members are spec names."""
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        for key in [*a, *(k for k in b if k not in a)]:
            name = str(key)
            where = _step(path, name, keyed)
            inner = not keyed and name in _KEYED
            _diff(a.get(key, ABSENT), b.get(key, ABSENT), where, inner, out)
        return
    if canonical_bytes(_jsonish(a)) != canonical_bytes(_jsonish(b)):
        out.append(Change(path, a, b))


def _jsonish(value: Any) -> Any:
    """A value as canonical JSON can hold it (:data:`ABSENT` as a marker string)."""
    return "\x00absent" if value is ABSENT else value


def changes(planned: Mapping[str, Any], now: Mapping[str, Any]) -> list[Change]:
    """Every criterion whose value differs, in the planned document's order.

    Objects are compared member by member; any other value (a number, a text, a list)
    is one criterion. Numbers compare as canonical JSON does, so ``1`` equals ``1.0``.

    Examples
    --------
    >>> [c.sentence() for c in changes({"fairness": {"alpha": 0.05}},
    ...                                {"fairness": {"alpha": 0.01}})]
    ['fairness.alpha: planned 0.05, now 0.01']
    """
    out: list[Change] = []
    _diff(planned, now, "", False, out)
    return out


def describe(found: Sequence[Change]) -> str:
    """The changes as one sentence per criterion, joined with ``; ``."""
    return "; ".join(c.sentence() for c in found)
