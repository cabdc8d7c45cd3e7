"""The control mapping: which framework clauses each respai test *supports*.

The mapping ships as package data (``respai/controls.yaml``) and carries its own
``version`` and ``review_status``, so every record can say which mapping it used. The
one relation is ``supports``: a test produces a measurement a clause calls for. Whether
an obligation is met takes more evidence and judgment than any test gives, so the loader
refuses any other relation word.

Every entry has a review status (``status``): a mapped clause is ``confirmed`` (only
confirmed clauses are mapped), a left-out one ``unconfirmed``, ``superseded`` (its law is
reported repealed or replaced) or ``not_a_fit``. Every framework has a
``framework_status`` saying whether the law or standard as cited is confirmed to be the
one in force, and what was reported about changes to it but not confirmed.

The file is checked on load: known keys only, every test id one of
:class:`respai.battery.TestId`, ``relation: supports``, every clause's framework declared,
no clause twice for one test, a known review status on every entry and framework, and
nothing listed under ``left_out`` (candidates the research could not confirm) mapped to a
test anyway. A broken file raises :class:`respai.errors.Error`.

>>> mapping = load_controls()
>>> mapping.relation
'supports'
>>> mapping.for_test("no_such_test")
()
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from types import MappingProxyType
from typing import Any

from respai.battery import TestId
from respai.errors import Error, did_you_mean

__all__ = [
    "CLAIMS_DOES_NOT_STATE",
    "CLAIMS_STATES",
    "FRAMEWORK_STATUSES",
    "LEFT_OUT_STATUSES",
    "RELATION",
    "Clause",
    "ControlMapping",
    "FrameworkStatus",
    "LeftOut",
    "load_controls",
    "parse_controls",
]

#: What every evaluation record states, and what it does not (the record's ``claims``).
CLAIMS_STATES = [
    "These defined properties were measured on this dataset, by these methods, at this "
    "time, with this engine version.",
    "Each value is given with its interval, the threshold it was compared with, where that "
    "threshold came from, and the verdict.",
    "The SHA-256 fingerprints of the inputs and of the engine code are listed, and the "
    "whole record is signed.",
    "The framework clauses listed with a test call for the kind of measurement it makes "
    "(the test supports them).",
]
CLAIMS_DOES_NOT_STATE = [
    "That the system is safe, fair or compliant in general.",
    "That any legal obligation is met.",
    "That respai acts as an independent auditor under NYC Local Law 144 or as a notified "
    "body under the EU AI Act; it is neither.",
    "That the results hold for data the system meets after the evaluation.",
]

RELATION = "supports"
"""The only relation word a mapping may use between a test and a clause."""

CONFIRMED = "confirmed"
"""The review status of every mapped clause: the research notes confirm it."""

LEFT_OUT_STATUSES = ("unconfirmed", "superseded", "not_a_fit")
"""Why a considered clause is not mapped: not confirmed, of a law reported repealed or
replaced, or not about what the test measures."""

FRAMEWORK_STATUSES = (CONFIRMED, "unconfirmed")
"""Whether a framework, as cited, is confirmed to be the text in force."""

_FILE = "controls.yaml"
_TOP_KEYS = (
    "version",
    "review_status",
    "relation",
    "frameworks",
    "framework_status",
    "tests",
    "left_out",
)
_CLAUSE_KEYS = ("framework", "clause", "title", "status", "note")
_LEFT_OUT_KEYS = ("framework", "clause", "title", "status", "would_support", "reason")
_FRAMEWORK_STATUS_KEYS = ("status", "note")
_VERSION = re.compile(r"^\d{4}-\d{2}-\d{2}\.\d+$")
_TEST_IDS = tuple(t.value for t in TestId)


@dataclass(frozen=True, slots=True)
class Clause:
    """One framework clause a test supports.

    Parameters
    ----------
    framework
        Framework id, a key of :attr:`ControlMapping.frameworks` (e.g. ``"iso42001"``).
    clause
        Clause id within the framework, e.g. ``"A.6.2.4"`` or ``"Art. 10(2)(f)"``.
    title
        Short title of the clause.
    note
        How the test supports the clause and where its support ends, or ``None``.
    status
        The entry's review status; always ``"confirmed"``, since only confirmed clauses
        are mapped (so a record, which lists mapped clauses, does not repeat it).
    """

    framework: str
    clause: str
    title: str
    note: str | None = None
    status: str = CONFIRMED

    def to_dict(self) -> dict[str, str | None]:
        """Return the clause as a JSON-ready dict; ``note`` is ``None`` when absent.

        Examples
        --------
        >>> Clause("iso42001", "A.7.4", "Quality of data for AI systems").to_dict()["note"] is None
        True
        """
        return {
            "framework": self.framework,
            "clause": self.clause,
            "title": self.title,
            "note": self.note,
        }


@dataclass(frozen=True, slots=True)
class LeftOut:
    """A clause that was considered for a test and deliberately not mapped.

    Parameters
    ----------
    framework
        Framework id.
    clause
        Clause id, possibly naming a part of a clause (e.g. one sentence).
    title
        Short title.
    would_support
        Test ids the clause would have been mapped to.
    reason
        Why it was left out (usually: not confirmed against a primary text).
    status
        The entry's review status, one of :data:`LEFT_OUT_STATUSES`.
    """

    framework: str
    clause: str
    title: str
    would_support: tuple[str, ...]
    reason: str
    status: str = "unconfirmed"


@dataclass(frozen=True, slots=True)
class FrameworkStatus:
    """Whether a framework, as the mapping cites it, is confirmed to be the text in force.

    Parameters
    ----------
    status
        ``"confirmed"`` or ``"unconfirmed"`` (:data:`FRAMEWORK_STATUSES`).
    note
        What was checked; for ``"unconfirmed"``, what was reported and not confirmed.
    """

    status: str
    note: str


@dataclass(frozen=True, slots=True)
class ControlMapping:
    """A versioned mapping from test ids to the clauses each test supports.

    Parameters
    ----------
    version
        Mapping version, ``YYYY-MM-DD.N``; it changes whenever the mapping does.
    review_status
        Who has reviewed the mapping, e.g. ``"not reviewed by outside counsel"``.
    relation
        Always ``"supports"``.
    frameworks
        Framework id -> full citation.
    tests
        Test id -> the clauses that test supports.
    left_out
        Candidates considered and not mapped, each with its reason.
    framework_status
        Framework id -> whether the framework as cited is confirmed to be in force.
    """

    version: str
    review_status: str
    relation: str
    frameworks: Mapping[str, str]
    tests: Mapping[str, tuple[Clause, ...]]
    left_out: tuple[LeftOut, ...] = field(default=())
    framework_status: Mapping[str, FrameworkStatus] = field(
        default_factory=lambda: MappingProxyType({})
    )

    def not_confirmed(self) -> tuple[tuple[str, str], ...]:
        """Everything the mapping says it could not confirm, as ``(where, why)`` pairs.

        Each unconfirmed framework (with its note) and each left-out entry that is
        ``unconfirmed`` or ``superseded`` (with its reason), in file order; a clause left
        out as ``not_a_fit`` was confirmed not to fit, so it is not listed.

        Examples
        --------
        >>> where = [w for w, _ in load_controls().not_confirmed()]
        >>> "framework colorado" in where
        True
        """
        out = [
            (f"framework {fw}", st.note)
            for fw, st in self.framework_status.items()
            if st.status != CONFIRMED
        ]
        out += [
            (f"{lo.framework} {lo.clause} ({lo.status})", lo.reason)
            for lo in self.left_out
            if lo.status != "not_a_fit"
        ]
        return tuple(out)

    def for_test(self, test_id: str) -> tuple[Clause, ...]:
        """Return the clauses ``test_id`` supports; an empty tuple for an unknown id.

        Examples
        --------
        >>> any(c.clause == "§ 1607.4(D)" for c in load_controls().for_test("impact_ratio"))
        True
        """
        return self.tests.get(test_id, ())

    def to_record(self) -> dict[str, Any]:
        """Return the mapping's identity for an evidence record, JSON-ready.

        The per-test clauses go with each test record (:meth:`Clause.to_dict`); this is
        the part every record states once: version, review status, relation and the full
        citation of each framework.

        Examples
        --------
        >>> sorted(load_controls().to_record())
        ['frameworks', 'relation', 'review_status', 'version']
        """
        return {
            "version": self.version,
            "review_status": self.review_status,
            "relation": self.relation,
            "frameworks": dict(self.frameworks),
        }


@functools.cache
def load_controls() -> ControlMapping:
    """Load and check the control mapping shipped with respai.

    Returns
    -------
    ControlMapping
        The mapping; the same object on every call.

    Raises
    ------
    respai.errors.Error
        When the shipped file is malformed: an unknown or missing key, a test id that is
        not a :class:`~respai.battery.TestId`, a relation other than ``supports``, an
        undeclared framework, a clause listed twice for one test, or a left-out clause
        mapped to a test, or an entry or framework without a known review status.
    """
    text = resources.files("respai").joinpath(_FILE).read_text(encoding="utf-8")
    return parse_controls(text)


def parse_controls(text: str, source: str = _FILE) -> ControlMapping:
    """Parse and check a control-mapping document.

    Parameters
    ----------
    text
        The YAML text.
    source
        Name used in error messages.

    Returns
    -------
    ControlMapping
        The checked mapping.

    Raises
    ------
    respai.errors.Error
        When the document is not a valid mapping (see :func:`load_controls`).
    """
    doc = _read_yaml(text, source)
    top = _mapping(doc, source, _TOP_KEYS, required=_TOP_KEYS[:6])

    version = _text(top["version"], f"{source}: version")
    if not _VERSION.match(version):
        raise Error(
            f"{source}: version {version!r} is not of the form YYYY-MM-DD.N.",
            "Use the date of the change and a counter for that date, e.g. '2026-12-01.1'.",
        )
    review_status = _text(top["review_status"], f"{source}: review_status")
    relation = _text(top["relation"], f"{source}: relation")
    if relation != RELATION:
        raise Error(
            f"{source}: relation is {relation!r}; the only relation allowed is {RELATION!r}.",
            "A test supports a clause; it never settles an obligation on its own.",
        )

    frameworks = _frameworks(top["frameworks"], source)
    framework_status = _framework_status(top["framework_status"], frameworks, source)
    tests = _tests(top["tests"], frameworks, source)
    left_out = _left_out(top.get("left_out", []), frameworks, tests, source)
    return ControlMapping(
        version=version,
        review_status=review_status,
        relation=relation,
        frameworks=MappingProxyType(frameworks),
        tests=MappingProxyType(tests),
        left_out=left_out,
        framework_status=MappingProxyType(framework_status),
    )


def _framework_status(
    value: object, frameworks: Mapping[str, str], source: str
) -> dict[str, FrameworkStatus]:
    where = f"{source}: framework_status"
    if not isinstance(value, dict):
        raise Error(f"{where} must map each framework id to its status and note.")
    missing = [fw for fw in frameworks if fw not in value]
    if missing:
        raise Error(
            f"{where}: framework {missing[0]!r} has no review status.",
            "Say whether the framework as cited is confirmed to be in force.",
        )
    out: dict[str, FrameworkStatus] = {}
    for key, entry in value.items():
        fw = _framework_id(key, frameworks, f"{where}.{key}")
        item = _mapping(entry, f"{where}.{fw}", _FRAMEWORK_STATUS_KEYS, _FRAMEWORK_STATUS_KEYS)
        status = _status(item["status"], FRAMEWORK_STATUSES, f"{where}.{fw}")
        out[fw] = FrameworkStatus(status, _text(item["note"], f"{where}.{fw}.note"))
    return out


_KNOWN_STATUSES = tuple(dict.fromkeys((CONFIRMED, *LEFT_OUT_STATUSES, *FRAMEWORK_STATUSES)))


def _status(value: object, allowed: tuple[str, ...], where: str, why: str | None = None) -> str:
    """A review status from ``allowed``; ``why`` says where the others belong."""
    status = _text(value, f"{where}.status")
    if status in allowed:
        return status
    if status in _KNOWN_STATUSES:
        message = f"{where}.status: {status!r} is not allowed here." + (f" {why}" if why else "")
    else:
        message = f"{where}.status: {status!r} is not a review status." + did_you_mean(
            status, allowed
        )
    raise Error(message, f"Allowed here: {', '.join(allowed)}.")


def _frameworks(value: object, source: str) -> dict[str, str]:
    where = f"{source}: frameworks"
    if not isinstance(value, dict) or not value:
        raise Error(f"{where} must map each framework id to its full citation.")
    return {_text(k, f"{where} key"): _text(v, f"{where}.{k}") for k, v in value.items()}


def _tests(
    value: object, frameworks: Mapping[str, str], source: str
) -> dict[str, tuple[Clause, ...]]:
    if not isinstance(value, dict) or not value:
        raise Error(f"{source}: tests must map each test id to a list of clauses.")
    tests: dict[str, tuple[Clause, ...]] = {}
    for key, entries in value.items():
        test_id = _text(key, f"{source}: tests key")
        where = f"{source}: tests.{test_id}"
        if test_id not in _TEST_IDS:
            raise Error(
                f"{where}: {test_id!r} is not a respai test id."
                + did_you_mean(test_id, _TEST_IDS),
                f"Test ids (respai.battery.TestId): {', '.join(_TEST_IDS)}.",
            )
        if not isinstance(entries, list) or not entries:
            raise Error(f"{where} must be a non-empty list of clauses.")
        clauses: list[Clause] = []
        seen: set[tuple[str, str]] = set()
        for i, entry in enumerate(entries):
            here = f"{where}[{i}]"
            item = _mapping(entry, here, _CLAUSE_KEYS, required=_CLAUSE_KEYS[:4])
            clause = Clause(
                framework=_framework_id(item["framework"], frameworks, here),
                clause=_text(item["clause"], f"{here}.clause"),
                title=_text(item["title"], f"{here}.title"),
                note=None if item.get("note") is None else _text(item["note"], f"{here}.note"),
                status=_status(
                    item["status"],
                    (CONFIRMED,),
                    here,
                    "Only confirmed clauses are mapped; list this one under left_out, "
                    "with its status and reason.",
                ),
            )
            key = (clause.framework, clause.clause)
            if key in seen:
                raise Error(f"{here}: {clause.framework} {clause.clause} is listed twice.")
            seen.add(key)
            clauses.append(clause)
        tests[test_id] = tuple(clauses)
    return tests


def _left_out(
    value: object,
    frameworks: Mapping[str, str],
    tests: Mapping[str, tuple[Clause, ...]],
    source: str,
) -> tuple[LeftOut, ...]:
    if not isinstance(value, list):
        raise Error(f"{source}: left_out must be a list.")
    mapped = {(c.framework, c.clause) for clauses in tests.values() for c in clauses}
    out: list[LeftOut] = []
    for i, entry in enumerate(value):
        here = f"{source}: left_out[{i}]"
        item = _mapping(entry, here, _LEFT_OUT_KEYS, required=_LEFT_OUT_KEYS)
        would = item["would_support"]
        if not isinstance(would, list) or not would:
            raise Error(f"{here}.would_support must be a non-empty list of test ids.")
        for test_id in would:
            if test_id not in tests:
                raise Error(
                    f"{here}.would_support names {test_id!r}, which is not a test id"
                    f" under tests.{did_you_mean(str(test_id), tests)}"
                )
        lo = LeftOut(
            framework=_framework_id(item["framework"], frameworks, here),
            clause=_text(item["clause"], f"{here}.clause"),
            title=_text(item["title"], f"{here}.title"),
            would_support=tuple(str(t) for t in would),
            reason=_text(item["reason"], f"{here}.reason"),
            status=_status(
                item["status"],
                LEFT_OUT_STATUSES,
                here,
                "A confirmed clause is mapped under tests instead.",
            ),
        )
        if (lo.framework, lo.clause) in mapped:
            raise Error(
                f"{here}: {lo.framework} {lo.clause} is listed as left out but is mapped "
                "to a test.",
                "Remove it from one of the two places.",
            )
        out.append(lo)
    return tuple(out)


def _framework_id(value: object, frameworks: Mapping[str, str], where: str) -> str:
    fw = _text(value, f"{where}.framework")
    if fw not in frameworks:
        raise Error(
            f"{where}.framework: {fw!r} is not declared under frameworks.",
            did_you_mean(fw, frameworks).strip() or None,
        )
    return fw


def _mapping(
    value: object, where: str, allowed: tuple[str, ...], required: tuple[str, ...]
) -> dict[str, object]:
    if not isinstance(value, dict):
        raise Error(f"{where} must be a mapping with keys {', '.join(required)}.")
    for key in value:
        if key not in allowed:
            raise Error(
                f"{where}: unknown key {key!r}.{did_you_mean(str(key), allowed)}",
                f"Allowed keys: {', '.join(allowed)}.",
            )
    for key in required:
        if key not in value:
            raise Error(f"{where}: the key {key!r} is missing.")
    return value


def _text(value: object, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise Error(f"{where} must be a non-empty string, not {value!r}.")
    return value


def _read_yaml(text: str, source: str) -> object:
    # yaml is imported here so importing this module stays cheap (`respai --help`).
    import yaml

    # libyaml's C parser when PyYAML has it: ten times faster on the shipped mapping
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        root = yaml.compose(text, Loader=loader)
    except yaml.YAMLError as exc:
        raise Error(f"{source} is not valid YAML: {exc}") from exc
    _no_duplicate_keys(root, source)
    # the values from the nodes already composed: the text is not parsed a second time
    constructor = loader("")
    try:
        return constructor.construct_document(root) if root is not None else None
    finally:
        constructor.dispose()


def _no_duplicate_keys(node: object, source: str) -> None:
    import yaml

    if isinstance(node, yaml.MappingNode):
        seen: set[str] = set()
        for key, child in node.value:
            if isinstance(key, yaml.ScalarNode):
                if key.value in seen:
                    line = key.start_mark.line + 1
                    raise Error(f"{source}, line {line}: the key {key.value!r} is repeated.")
                seen.add(key.value)
            _no_duplicate_keys(child, source)
    elif isinstance(node, yaml.SequenceNode):
        for child in node.value:
            _no_duplicate_keys(child, source)
