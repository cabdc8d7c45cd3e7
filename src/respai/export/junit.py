"""JUnit XML: a ``testcase`` per battery test, rule, LL144 line and paired variant.

The verdicts map onto what every CI test reporter shows:

========================  ==============================================================
verdict                   JUnit
========================  ==============================================================
PASS                      a passing ``testcase``
FAIL                      ``<failure type="FAIL" message=reason>``
INSUFFICIENT_EVIDENCE     ``<skipped message="INSUFFICIENT_EVIDENCE: reason">``
MANUAL_REVIEW             ``<skipped message="MANUAL_REVIEW: reason">``
========================  ==============================================================

so a red build means a proven failure and nothing else, while the two verdicts that are
not a pass show up as skipped tests with their reason. The exit code, not the XML, is the
gate: INSUFFICIENT_EVIDENCE still exits 3.

The XML is built with :mod:`xml.etree.ElementTree`, which escapes markup characters;
every text from the record first goes through
:func:`respai.render.escape.terminal_text`, and the few characters XML 1.0 cannot carry
at all (U+FFFE, U+FFFF) are written as escapes too, so the file always parses.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from respai.export.outcomes import (
    Outcome,
    kinds,
    orientation_facts,
    record_outcomes,
    run_start_settings,
)
from respai.render.escape import terminal_text

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from respai.export.record import VerifiedRecord

__all__ = ["junit_xml", "record_junit", "write_junit"]

#: What XML 1.0 cannot hold even as a character reference (after terminal_text has
#: escaped the controls): the noncharacters U+FFFE and U+FFFF, and lone surrogates.
_NOT_XML = re.compile("[\ufffe\uffff\ud800-\udfff]")


def _suite_names() -> dict[str, str]:
    """The JUnit suite of each kind (:func:`respai.blocks.record_kinds`, then the unowned)."""
    from respai.blocks import UNOWNED, record_kinds

    return {k.outcome_kind: k.suite for k in (*record_kinds(), UNOWNED)}


def _clean(value: object, *, keep_newlines: bool = False) -> str:
    text = terminal_text(value, keep_newlines=keep_newlines)
    return _NOT_XML.sub(lambda m: f"\\u{ord(m.group()):04x}", text)


def _case(suite: ET.Element, outcome: Outcome, classname: str) -> None:
    label = f"{outcome.name} [{outcome.key}]" if outcome.key else outcome.name
    case = ET.SubElement(
        suite, "testcase", {"classname": classname, "name": _clean(label), "time": "0"}
    )
    reason = _clean(outcome.reason) or "no reason recorded"
    if outcome.verdict == "FAIL":
        failure = ET.SubElement(case, "failure", {"type": "FAIL", "message": reason})
        failure.text = _clean(f"{outcome.key}: {outcome.reason}", keep_newlines=True)
    elif outcome.verdict in ("INSUFFICIENT_EVIDENCE", "MANUAL_REVIEW"):
        ET.SubElement(case, "skipped", {"message": f"{outcome.verdict}: {reason}"})
    elif outcome.verdict != "PASS":
        error = ET.SubElement(
            case, "error", {"type": "UNKNOWN_VERDICT", "message": _clean(outcome.verdict)}
        )
        error.text = reason


def _counts(element: ET.Element, cases: Sequence[Outcome]) -> None:
    element.set("tests", str(len(cases)))
    element.set("failures", str(sum(o.verdict == "FAIL" for o in cases)))
    element.set(
        "errors",
        str(
            sum(
                o.verdict not in ("PASS", "FAIL", "INSUFFICIENT_EVIDENCE", "MANUAL_REVIEW")
                for o in cases
            )
        ),
    )
    element.set(
        "skipped",
        str(sum(o.verdict in ("INSUFFICIENT_EVIDENCE", "MANUAL_REVIEW") for o in cases)),
    )
    element.set("time", "0")  # the record times the run, not each test


def junit_xml(
    outcomes: Sequence[Outcome],
    *,
    name: str,
    timestamp: str | None = None,
    properties: Mapping[str, str] | None = None,
) -> bytes:
    """The run's verdicts as a JUnit XML document.

    Parameters
    ----------
    outcomes
        The run's outcomes (:func:`respai.export.outcomes.record_outcomes` or
        :func:`~respai.export.outcomes.fairness_outcomes`).
    name
        The ``testsuites`` name (the system's name, or the spec's).
    timestamp
        The run's RFC 3339 time, written as a property of each suite, or ``None``.
    properties
        Run facts written on each suite (verdict, run id, record digest, ...).

    Returns
    -------
    bytes
        UTF-8 XML with a declaration: ``<testsuites>``, one ``<testsuite>`` per kind
        that has outcomes, each registered kind's suite (``respai.battery``,
        ``respai.rules``, ``respai.ll144``, ``respai.paired``, ``respai.monitor``), then
        ``respai.unknown`` for test ids no registered kind owns.
    """
    root = ET.Element("testsuites", {"name": _clean(name)})
    _counts(root, outcomes)
    suites = _suite_names()
    for kind in kinds():
        cases = [o for o in outcomes if o.kind == kind]
        if not cases:
            continue
        suite = ET.SubElement(root, "testsuite", {"name": suites[kind]})
        _counts(suite, cases)
        facts = dict(properties or {})
        if timestamp is not None:
            facts["timestamp"] = timestamp
        if facts:
            props = ET.SubElement(suite, "properties")
            for key, value in facts.items():
                ET.SubElement(props, "property", {"name": _clean(key), "value": _clean(value)})
        for outcome in cases:
            _case(suite, outcome, suites[kind])
    ET.indent(root)
    body: bytes = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    return body + b"\n"


def record_junit(predicate: Mapping[str, Any], *, record_sha256: str | None = None) -> bytes:
    """The JUnit XML of a record's predicate (see :func:`junit_xml`).

    Parameters
    ----------
    predicate
        The record (verified, or just sealed by this run).
    record_sha256
        The record file's SHA-256, written as a suite property, when known.

    Returns
    -------
    bytes
        The JUnit XML document.
    """
    system = predicate.get("system")
    name = system.get("name") if isinstance(system, Mapping) else None
    facts = {
        "verdict": predicate.get("verdict"),
        "run_id": predicate.get("run_id"),
        "key_id": predicate.get("key_id"),
        "record_sha256": record_sha256,
        **orientation_facts(run_start_settings(predicate)),
    }
    return junit_xml(
        record_outcomes(predicate),
        name=f"respai: {name}" if isinstance(name, str) and name else "respai",
        timestamp=predicate.get("timestamp")
        if isinstance(predicate.get("timestamp"), str)
        else None,
        properties={k: v for k, v in facts.items() if isinstance(v, str)},
    )


def write_junit(
    record: VerifiedRecord,
    *,
    signing_key: tuple[Ed25519PrivateKey, str] | None = None,
    url: str | None = None,
) -> bytes:
    """The ``junit`` export: :func:`record_junit` of a verified record, citing its digest.

    Parameters
    ----------
    record
        A record that verified.
    signing_key
        Not used: JUnit XML is not signed.
    url
        Not used: JUnit XML has no field for it.

    Returns
    -------
    bytes
        The JUnit XML document.
    """
    return record_junit(record.predicate, record_sha256=record.sha256)
