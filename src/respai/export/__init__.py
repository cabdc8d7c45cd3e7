"""Standard exports of a verified record: CycloneDX ML-BOM, in-toto test result, JUnit.

``respai export RECORD --format FORMAT`` verifies the record first (the checks of
``respai verify``, :func:`~respai.export.record.read_verified`) and writes nothing when
any check fails. Then one module per format turns the record into its document:

- :mod:`respai.export.cyclonedx`: ``cyclonedx``, a CycloneDX 1.6 ML-BOM (JSON);
- :mod:`respai.export.intoto`: ``in-toto-test-result``, an in-toto test-result
  Statement signed in a DSSE envelope;
- :mod:`respai.export.junit`: ``junit``, JUnit XML for CI test reporters (also written
  by ``respai evaluate --junit`` and ``respai fairness --junit``).

Every format reads the verdicts through :mod:`respai.export.outcomes`, so they agree.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from respai.export.record import VerifiedRecord, read_verified

__all__ = ["FORMATS", "VerifiedRecord", "export_document", "read_verified", "record_junit"]

FORMATS = ("cyclonedx", "in-toto-test-result", "junit")
"""The formats ``respai export`` writes."""


def _json(doc: Mapping[str, Any]) -> bytes:
    return (json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False) + "\n").encode()


def record_junit(predicate: Mapping[str, Any], *, record_sha256: str | None = None) -> bytes:
    """The JUnit XML of a record's predicate (see :func:`respai.export.junit.junit_xml`).

    Parameters
    ----------
    predicate
        The record (verified, or just sealed by this run).
    record_sha256
        The record file's SHA-256, written as a suite property, when known.
    """
    from respai.export.junit import junit_xml
    from respai.export.outcomes import record_outcomes

    system = predicate.get("system")
    name = system.get("name") if isinstance(system, Mapping) else None
    facts = {
        "verdict": predicate.get("verdict"),
        "run_id": predicate.get("run_id"),
        "key_id": predicate.get("key_id"),
        "record_sha256": record_sha256,
    }
    return junit_xml(
        record_outcomes(predicate),
        name=f"respai: {name}" if isinstance(name, str) and name else "respai",
        timestamp=predicate.get("timestamp")
        if isinstance(predicate.get("timestamp"), str)
        else None,
        properties={k: v for k, v in facts.items() if isinstance(v, str)},
    )


def export_document(
    fmt: str,
    record: VerifiedRecord,
    *,
    signing_key: tuple[Ed25519PrivateKey, str] | None = None,
    url: str | None = None,
) -> bytes:
    """The bytes of ``record`` exported as ``fmt``.

    Parameters
    ----------
    fmt
        One of :data:`FORMATS`.
    record
        A record that verified.
    signing_key
        ``(key, key_id)``; needed by ``in-toto-test-result`` only.
    url
        ``cyclonedx``: where the record is published; ``in-toto-test-result``: where
        the run can be seen. Ignored by ``junit``.

    Raises
    ------
    ValueError
        For an unknown format, or ``in-toto-test-result`` without a key.
    """
    if fmt == "cyclonedx":
        from respai.export.cyclonedx import cyclonedx_bom

        return _json(
            cyclonedx_bom(
                record.predicate,
                record_name=record.name,
                record_sha256=record.sha256,
                record_url=url,
            )
        )
    if fmt == "in-toto-test-result":
        from respai.export.intoto import signed_test_result, test_result_statement

        if signing_key is None:
            raise ValueError("in-toto-test-result needs a signing key")
        statement = test_result_statement(
            record.predicate, record_name=record.name, record_sha256=record.sha256, url=url
        )
        return _json(signed_test_result(statement, *signing_key))
    if fmt == "junit":
        return record_junit(record.predicate, record_sha256=record.sha256)
    raise ValueError(f"unknown export format {fmt!r}; expected one of {', '.join(FORMATS)}")
