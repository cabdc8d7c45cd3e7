"""A CycloneDX 1.6 ML-BOM of a verified record: the metrics, their intervals, the verdicts.

The BOM holds one ``machine-learning-model`` component (the evaluated system) whose
``modelCard`` carries:

- ``quantitativeAnalysis.performanceMetrics``: every measured value per slice, the
  slice ``overall`` for a test over every case, ``sex`` for a test over one attribute,
  ``sex: Female`` for one group, ``sex × age_band: female × under_30`` for an
  intersection; each with its ``confidenceInterval`` (``lowerBound``, ``upperBound``)
  when the record has one. A group rule's rates are typed ``<rate> rate (rule <id>)``
  (their Clopper-Pearson intervals are Bonferroni-adjusted, unlike the battery's 95%
  Wilson intervals of the same rate), and its largest gap ``largest gap in <rate> rate
  (rule <id>)``, with the lower bound shown as :mod:`respai.render.gap` defines it.
  CycloneDX gives a metric no field for the sample size, the interval's method or its
  confidence level, so they are ``modelCard.properties`` named
  ``respai:metric:<i>:n``, ``respai:metric:<i>:method``, ``respai:metric:<i>:confidence``
  and ``respai:metric:<i>:test_key``, where ``<i>`` is the metric's index in
  ``performanceMetrics``. An undefined value has no ``value`` and a
  ``respai:metric:<i>:undefined_reason``.
- ``considerations.fairnessAssessments``: one per group rule and per grouped battery
  test (impact ratio, selection-rate and equal-opportunity differences), naming the
  groups compared, the verdict and its reason.

The record itself is an external reference of type ``attestation`` with the SHA-256 of
the file that was verified, so the BOM points at the signed evidence it summarises; the
BOM is not signed itself. Its ``serialNumber`` is derived from that digest, so exporting
the same record twice gives the same BOM.

Numbers are written as the shortest decimal that round-trips (``repr``): CycloneDX
metric values are strings.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from respai.blocks import owner_of_test
from respai.export.formats import json_document
from respai.export.outcomes import orientation_facts, record_outcomes, run_start_settings
from respai.record.reading import as_dict as _as_dict
from respai.record.reading import as_list as _as_list
from respai.record.reading import number as _num
from respai.record.reading import text as _text

if TYPE_CHECKING:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    from respai.export.record import VerifiedRecord

__all__ = ["SPEC_VERSION", "cyclonedx_bom", "write_bom"]

SPEC_VERSION = "1.6"
"""The CycloneDX specification version written."""

#: Namespace of uuid5 serial numbers: a record digest names one BOM.
_NAMESPACE = uuid.UUID("6f1c3a52-3c53-5d55-9b3e-5d0a6a0c1e11")

_MITIGATION = {
    "PASS": "None needed on this evidence; keep re-running the evaluation on new data.",
    "FAIL": "The gap is proven on this data: investigate its cause before release.",
    "INSUFFICIENT_EVIDENCE": "The data cannot decide the rule: collect more cases for "
    "the small groups, or pool a longer window, and re-run.",
    "MANUAL_REVIEW": "A person must review this result; it was not decided automatically.",
}


class _Metrics:
    """The performance metrics and the properties that describe each one."""

    def __init__(self) -> None:
        self.metrics: list[dict[str, Any]] = []
        self.properties: list[dict[str, str]] = []
        self._seen: set[tuple[str, str]] = set()

    def add(
        self,
        kind: str,
        slice_: str,
        value: object,
        *,
        interval: object = None,
        bounds: tuple[float, float] | None = None,
        n: object = None,
        test_key: str = "",
        undefined: str = "",
    ) -> None:
        if (kind, slice_) in self._seen:  # the same rate reported by two tests
            return
        self._seen.add((kind, slice_))
        i = len(self.metrics)
        metric: dict[str, Any] = {"type": kind, "slice": slice_}
        number = _num(value)
        if number is not None:
            metric["value"] = repr(number)
        iv = _as_dict(interval)
        lo, hi = _num(iv.get("lo")), _num(iv.get("hi"))
        if bounds is not None:
            lo, hi = bounds
        if lo is not None and hi is not None:
            metric["confidenceInterval"] = {"lowerBound": repr(lo), "upperBound": repr(hi)}
        self.metrics.append(metric)
        facts = {
            "test_key": test_key,
            "n": "" if _num(n) is None else str(n),
            "method": _text(iv.get("method")),
            "confidence": "" if _num(iv.get("confidence")) is None else repr(iv["confidence"]),
            "undefined_reason": undefined if number is None else "",
        }
        self.properties += [
            {"name": f"respai:metric:{i}:{name}", "value": text}
            for name, text in facts.items()
            if text
        ]


def _fairness(predicate: Mapping[str, Any]) -> list[dict[str, str]]:
    by_key = {
        _text(r.get("test_key")): r
        for r in _as_list(predicate.get("records"))
        if isinstance(r, Mapping) and r.get("record_type") == "test"
    }
    out = []
    for o in record_outcomes(predicate):
        rec = by_key.get(o.key, {})
        grouping = _as_list(rec.get("grouping"))
        if not owner_of_test(rec.get("test_id")).assesses_fairness or not grouping:
            continue
        details = _as_dict(rec.get("details"))
        groups = [_text(_as_dict(g).get("group")) for g in _as_list(details.get("groups"))]
        attrs = " × ".join(str(a) for a in grouping)
        out.append(
            {
                "groupAtRisk": f"{attrs}: {', '.join(g for g in groups if g) or 'every group'}",
                "harms": f"{o.name}: {o.verdict}. {o.reason}".strip(),
                "mitigationStrategy": _MITIGATION.get(o.verdict, _MITIGATION["MANUAL_REVIEW"]),
            }
        )
    return out


def cyclonedx_bom(
    predicate: Mapping[str, Any],
    *,
    record_name: str,
    record_sha256: str,
    record_url: str | None = None,
) -> dict[str, Any]:
    """The CycloneDX 1.6 ML-BOM of a verified record.

    Parameters
    ----------
    predicate
        The verified record (read it only after every check passed).
    record_name
        The record file's name.
    record_sha256
        Hex SHA-256 of the record file that was verified.
    record_url
        Where the record is published; by default its file name (a relative
        reference).

    Returns
    -------
    dict
        The BOM, JSON-ready.
    """
    from respai.version import __version__

    metrics = _Metrics()
    for rec in _as_list(predicate.get("records")):
        if not isinstance(rec, Mapping) or rec.get("record_type") != "test":
            continue
        for row in owner_of_test(rec.get("test_id")).metrics(rec):  # its kind's own values
            metrics.add(
                row.kind,
                row.slice,
                row.value,
                interval=row.interval,
                bounds=row.bounds,
                n=row.n,
                test_key=_text(rec.get("test_key")),
                undefined=row.undefined,
            )
    system = _as_dict(predicate.get("system"))
    fingerprints = _as_dict(predicate.get("fingerprints"))
    engine = _as_dict(predicate.get("engine"))
    component: dict[str, Any] = {
        "type": "machine-learning-model",
        "bom-ref": "respai:system",
        "name": _text(system.get("name")) or "unnamed system",
    }
    if _text(system.get("version")):
        component["version"] = _text(system.get("version"))
    model = _as_dict(fingerprints.get("model"))
    if _text(model.get("sha256")):
        component["hashes"] = [{"alg": "SHA-256", "content": _text(model.get("sha256"))}]
    component["externalReferences"] = [
        {
            "type": "attestation",
            "url": record_url or record_name,
            "comment": "The signed respai evidence record (DSSE envelope, in-toto "
            "Statement) this BOM summarises; verify it with 'respai verify'.",
            "hashes": [{"alg": "SHA-256", "content": record_sha256}],
        }
    ]
    component["modelCard"] = {
        "bom-ref": "respai:model-card",
        "quantitativeAnalysis": {"performanceMetrics": metrics.metrics},
        "considerations": {"fairnessAssessments": _fairness(predicate)},
        "properties": metrics.properties,
    }
    dataset = _as_dict(fingerprints.get("dataset"))
    facts = {
        "respai:verdict": _text(predicate.get("verdict")),
        "respai:run_id": _text(predicate.get("run_id")),
        "respai:key_id": _text(predicate.get("key_id")),
        "respai:record_sha256": record_sha256,
        "respai:dataset_sha256": _text(dataset.get("sha256")),
        "respai:dataset_name": _text(dataset.get("name")),
        "respai:engine": f"{_text(engine.get('name'))}/{_text(engine.get('version'))}",
        **{f"respai:{k}": v for k, v in orientation_facts(run_start_settings(predicate)).items()},
    }
    component["properties"] = [{"name": k, "value": v} for k, v in facts.items() if v]
    return {
        "bomFormat": "CycloneDX",
        "specVersion": SPEC_VERSION,
        "serialNumber": f"urn:uuid:{uuid.uuid5(_NAMESPACE, record_sha256)}",
        "version": 1,
        "metadata": {
            "timestamp": _text(predicate.get("timestamp")),
            "tools": {
                "components": [{"type": "application", "name": "respai", "version": __version__}]
            },
        },
        "components": [component],
    }


def write_bom(
    record: VerifiedRecord,
    *,
    signing_key: tuple[Ed25519PrivateKey, str] | None = None,
    url: str | None = None,
) -> bytes:
    """The ``cyclonedx`` export: :func:`cyclonedx_bom` of a verified record, as JSON bytes.

    Parameters
    ----------
    record
        A record that verified.
    signing_key
        Not used: the BOM is not signed (it points at the record, which is).
    url
        Where the record is published; by default its file name.

    Returns
    -------
    bytes
        The BOM's JSON.
    """
    return json_document(
        cyclonedx_bom(
            record.predicate,
            record_name=record.name,
            record_sha256=record.sha256,
            record_url=url,
        )
    )
