"""The control mapping: which framework clauses each respai test *supports*.

The mapping ships as package data (``respai/controls.yaml``) and carries its own
``version`` and ``review_status``, so every record can say which mapping it used. The
one relation is ``supports``: a test produces a measurement a clause calls for. Whether
an obligation is met takes more evidence and judgment than any test gives, so the loader
refuses any other relation word.

The file is checked on load: known keys only, every test id one of
:class:`respai.battery.TestId`, ``relation: supports``, every clause's framework declared,
no clause twice for one test, and nothing listed under ``left_out``
(candidates the research could not confirm) mapped to a test anyway. A broken file
raises :class:`respai.errors.Error`.

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

__all__ = ["RELATION", "Clause", "ControlMapping", "LeftOut", "load_controls", "parse_controls"]

RELATION = "supports"
"""The only relation word a mapping may use between a test and a clause."""

_FILE = "controls.yaml"
_TOP_KEYS = ("version", "review_status", "relation", "frameworks", "tests", "left_out")
_CLAUSE_KEYS = ("framework", "clause", "title", "note")
_LEFT_OUT_KEYS = ("framework", "clause", "title", "would_support", "reason")
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
    """

    framework: str
    clause: str
    title: str
    note: str | None = None

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
    """

    framework: str
    clause: str
    title: str
    would_support: tuple[str, ...]
    reason: str


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
    """

    version: str
    review_status: str
    relation: str
    frameworks: Mapping[str, str]
    tests: Mapping[str, tuple[Clause, ...]]
    left_out: tuple[LeftOut, ...] = field(default=())

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
        mapped to a test.
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
    top = _mapping(doc, source, _TOP_KEYS, required=_TOP_KEYS[:5])

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
    tests = _tests(top["tests"], frameworks, source)
    left_out = _left_out(top.get("left_out", []), frameworks, tests, source)
    return ControlMapping(
        version=version,
        review_status=review_status,
        relation=relation,
        frameworks=MappingProxyType(frameworks),
        tests=MappingProxyType(tests),
        left_out=left_out,
    )


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
            item = _mapping(entry, here, _CLAUSE_KEYS, required=_CLAUSE_KEYS[:3])
            clause = Clause(
                framework=_framework_id(item["framework"], frameworks, here),
                clause=_text(item["clause"], f"{here}.clause"),
                title=_text(item["title"], f"{here}.title"),
                note=None if item.get("note") is None else _text(item["note"], f"{here}.note"),
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
    return yaml.load(text, Loader=loader)


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
