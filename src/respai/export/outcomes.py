"""The verdicts a CI system reads: one :class:`Outcome` per battery test, rule or LL144 line.

Every export (JUnit, the in-toto test result, the CycloneDX fairness assessments) reads
the same list, drawn either from a verified record's predicate
(:func:`record_outcomes`) or from the JSON of an unsigned ``respai fairness`` run
(:func:`fairness_outcomes`), so the formats cannot disagree about what passed.

Kinds: one per registered kind of test record (:func:`respai.blocks.record_kinds`,
:attr:`RecordKind.kind <respai.blocks.RecordKind.kind>`): each spec block's, ``battery``
(the RESPAI battery of ``evaluation:``), ``rule`` (the group rules of ``fairness.rules``),
``ll144`` (one line per LL144 category; the law sets no pass mark, so these read
MANUAL_REVIEW unless a policy gates them) and ``paired``, then each kind written by a
command that is no block (``monitor``); last ``unknown``, for a test id no registered
kind owns (a record of another engine version), shown by its own id and never filed
under a block (:data:`respai.blocks.UNOWNED`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "Outcome",
    "fairness_outcomes",
    "kinds",
    "orientation_facts",
    "outcome_kind",
    "record_outcomes",
    "run_start_settings",
    "worst_verdict",
]


def kinds() -> tuple[str, ...]:
    """The kinds of outcome, in the order the exports list them.

    Each registered kind's (:func:`respai.blocks.record_kinds`), in its order: the
    battery, the group rules, the optional blocks, the kinds that are no block; then the
    kind of the test ids no registered kind owns.

    Examples
    --------
    >>> kinds()
    ('battery', 'rule', 'll144', 'paired', 'regression', 'ranking', 'monitor', 'unknown')
    """
    from respai.blocks import UNOWNED, record_kinds

    return (*(k.outcome_kind for k in record_kinds()), UNOWNED.outcome_kind)


def orientation_facts(settings: Any) -> dict[str, str]:
    """The favourable outcome a run's rates count, as export properties (text values).

    ``settings`` is a record's ``run_start`` settings or the ``settings`` of an unsigned
    ``respai fairness`` JSON; a record made before ``favorable`` existed gives nothing.

    Examples
    --------
    >>> orientation_facts({"favorable": 0, "orientation": "favorable: 0. ..."})
    {'favorable': '0', 'orientation': 'favorable: 0. ...'}
    >>> orientation_facts(None)
    {}
    """
    if not isinstance(settings, Mapping):
        return {}
    out: dict[str, str] = {}
    favorable = settings.get("favorable")
    if isinstance(favorable, int) and not isinstance(favorable, bool):
        out["favorable"] = str(favorable)
    orientation = settings.get("orientation")
    if isinstance(orientation, str):
        out["orientation"] = orientation
    return out


def run_start_settings(predicate: Mapping[str, Any]) -> Any:
    """The ``settings`` of a record's ``run_start`` (``None`` when there is none)."""
    records = predicate.get("records")
    for rec in records if isinstance(records, list) else []:
        if isinstance(rec, Mapping) and rec.get("record_type") == "run_start":
            return rec.get("settings")
    return None


#: From best to worst (DESIGN.md section 2): the worst verdict of a run decides.
_SEVERITY = {"PASS": 0, "MANUAL_REVIEW": 1, "INSUFFICIENT_EVIDENCE": 2, "FAIL": 3}


@dataclass(frozen=True, slots=True)
class Outcome:
    """One verdict of a run, as every export shows it.

    Attributes
    ----------
    kind
        One of :func:`kinds`.
    key
        The record's ``test_key`` (``accuracy``, ``impact_ratio:sex``, ``rule:fnr``,
        ``ll144:race:Asian``), unique within a run.
    name
        A readable name (the battery test's name, ``Group rule fnr``, ...).
    verdict
        ``PASS``, ``FAIL``, ``INSUFFICIENT_EVIDENCE`` or ``MANUAL_REVIEW``.
    reason
        Why: the record's reason, or the undefined reason when there is no value.
    value
        The measured value, or ``None`` when undefined.
    record_id
        The test record's id in the signed chain (``None`` for an unsigned run).
    """

    kind: str
    key: str
    name: str
    verdict: str
    reason: str
    value: float | None = None
    record_id: str | None = None


def outcome_kind(test_id: object) -> str:
    """The kind of a test record from its ``test_id``.

    Examples
    --------
    >>> outcome_kind("group_rule"), outcome_kind("ll144_impact_ratio"), outcome_kind("auc")
    ('rule', 'll144', 'battery')
    >>> outcome_kind("no_such_test")
    'unknown'
    """
    from respai.blocks import owner_of_test

    return owner_of_test(test_id).outcome_kind


def _number(value: object) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value)


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def _name(rec: Mapping[str, Any]) -> str:
    from respai.blocks import owner_of_test, test_names

    key = _text(rec.get("test_key"))
    named = owner_of_test(rec.get("test_id")).outcome_name(rec)
    if named is not None:
        return named
    name = test_names().get(_text(rec.get("test_id")), _text(rec.get("test_id")) or key)
    grouping = rec.get("grouping")
    if isinstance(grouping, list) and grouping:
        return f"{name} by {' x '.join(str(g) for g in grouping)}"
    return name


def record_outcomes(predicate: Mapping[str, Any]) -> tuple[Outcome, ...]:
    """Every test record of a verified record's predicate, in chain order.

    Parameters
    ----------
    predicate
        The Statement's predicate (read it only after the record verified).

    Returns
    -------
    tuple of Outcome
        One per ``test`` record; ``run_start`` and ``run_end`` are not outcomes.
    """
    from respai.blocks import owner_of_test

    out = []
    records = predicate.get("records")
    for rec in records if isinstance(records, list) else ():
        if not isinstance(rec, Mapping) or rec.get("record_type") != "test":
            continue
        owner = owner_of_test(rec.get("test_id"))
        reason = owner.outcome_reason(rec) or (
            _text(rec.get("reason")) or _text(rec.get("undefined_reason"))
        )
        out.append(
            Outcome(
                kind=owner.outcome_kind,
                key=_text(rec.get("test_key")),
                name=_name(rec),
                verdict=_text(rec.get("verdict")),
                reason=reason,
                value=_number(rec.get("value")),
                record_id=_text(rec.get("record_id")) or None,
            )
        )
    return tuple(out)


def fairness_outcomes(result: Mapping[str, Any]) -> tuple[Outcome, ...]:
    """The rules of an unsigned ``respai fairness`` result (its ``--json`` document).

    Parameters
    ----------
    result
        :meth:`respai.results.FairnessResult.to_dict`.

    Returns
    -------
    tuple of Outcome
        One ``rule`` outcome per declared rule, in declared order.
    """
    from respai.blocks import block_named

    rules_kind = block_named("fairness")  # the group rules' kind, through the seam
    rules = result.get("rules")
    out = []
    for rule in rules if isinstance(rules, list) else ():
        if not isinstance(rule, Mapping):
            continue
        key = f"rule:{_text(rule.get('id'))}"
        out.append(
            Outcome(
                kind=rules_kind.outcome_kind,
                key=key,
                name=rules_kind.outcome_name({"test_key": key}) or key,
                verdict=_text(rule.get("verdict")),
                reason=_text(rule.get("reason")),
                value=None,
            )
        )
    return tuple(out)


def worst_verdict(outcomes: Iterable[Outcome], *, default: str = "PASS") -> str:
    """The worst verdict among ``outcomes`` (FAIL, then INSUFFICIENT_EVIDENCE, ...).

    Examples
    --------
    >>> worst_verdict([Outcome("rule", "a", "a", "PASS", ""),
    ...                Outcome("rule", "b", "b", "MANUAL_REVIEW", "")])
    'MANUAL_REVIEW'
    """
    found: Sequence[str] = [o.verdict for o in outcomes]
    if not found:
        return default
    return max(found, key=lambda v: _SEVERITY.get(v, 3))
