"""An in-toto test-result attestation of a verified record, signed in a DSSE envelope.

The Statement (``https://in-toto.io/Statement/v1``) has predicate type
``https://in-toto.io/attestation/test-result/v0.1``; its subject is the record file
(name and SHA-256 of the bytes that were verified), so the attestation vouches for that
exact record. Each battery test, group rule and LL144 line is listed by its ``test_key``:

- ``passedTests``: PASS;
- ``warnedTests``: INSUFFICIENT_EVIDENCE and MANUAL_REVIEW (not a proven failure, not a
  pass either);
- ``failedTests``: FAIL.

``result`` is FAILED when any test failed, WARNED when any was warned and none failed,
else PASSED. ``configuration`` names what fixed the run: the spec, the policy (when
one was used) and the engine code, each with its SHA-256. ``url`` (optional) is where
the run can be seen, a CI job's page for example.

The Statement's RFC 8785 canonical bytes are signed with Ed25519 over the DSSE PAE, as
records are (:func:`respai.record.sign_envelope`), so the same DSSE tools check it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from respai.export.formats import json_document
from respai.export.outcomes import record_outcomes
from respai.record import STATEMENT_TYPE, canonical_bytes, sign_envelope

if TYPE_CHECKING:
    from respai.export.record import VerifiedRecord

__all__ = ["TEST_RESULT_TYPE", "signed_test_result", "test_result_statement", "write_test_result"]

TEST_RESULT_TYPE = "https://in-toto.io/attestation/test-result/v0.1"
"""The predicate type of an in-toto test result."""

_LIST = {
    "PASS": "passedTests",
    "INSUFFICIENT_EVIDENCE": "warnedTests",
    "MANUAL_REVIEW": "warnedTests",
    "FAIL": "failedTests",
}


def _as_dict(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _configuration(predicate: Mapping[str, Any]) -> list[dict[str, Any]]:
    records = predicate.get("records")
    start = _as_dict(records[0]) if isinstance(records, list) and records else {}
    found: list[dict[str, Any]] = []
    for role in ("spec", "policy"):
        item = _as_dict(start.get(role))
        sha = item.get("sha256")
        if isinstance(sha, str) and sha:
            name = item.get("name") or item.get("path") or role
            found.append({"name": f"{role}:{name}", "digest": {"sha256": sha}})
    engine = _as_dict(predicate.get("engine"))
    code = _as_dict(_as_dict(predicate.get("fingerprints")).get("engine_code"))
    if isinstance(code.get("sha256"), str):
        found.append(
            {
                "name": f"{engine.get('name', 'respai-evidence-engine')}/"
                f"{engine.get('version', code.get('version', ''))}",
                "digest": {"sha256": code["sha256"]},
            }
        )
    return found


def test_result_statement(
    predicate: Mapping[str, Any],
    *,
    record_name: str,
    record_sha256: str,
    url: str | None = None,
) -> dict[str, Any]:
    """The in-toto test-result Statement of a verified record.

    Parameters
    ----------
    predicate
        The verified record (read it only after every check passed).
    record_name
        The record file's name: the subject's name.
    record_sha256
        Hex SHA-256 of the record file that was verified: the subject's digest.
    url
        Where the run can be seen (a CI job), or ``None`` to leave ``url`` out.

    Returns
    -------
    dict
        The Statement.
    """
    lists: dict[str, list[str]] = {"passedTests": [], "warnedTests": [], "failedTests": []}
    for outcome in record_outcomes(predicate):
        lists[_LIST.get(outcome.verdict, "failedTests")].append(outcome.key)
    if lists["failedTests"]:
        result = "FAILED"
    elif lists["warnedTests"]:
        result = "WARNED"
    else:
        result = "PASSED"
    body: dict[str, Any] = {"result": result, "configuration": _configuration(predicate)}
    if url:
        body["url"] = url
    body.update(lists)
    return {
        "_type": STATEMENT_TYPE,
        "subject": [{"name": record_name, "digest": {"sha256": record_sha256}}],
        "predicateType": TEST_RESULT_TYPE,
        "predicate": body,
    }


def signed_test_result(
    statement: Mapping[str, Any], key: Ed25519PrivateKey, key_id: str
) -> dict[str, Any]:
    """Sign ``statement``'s canonical bytes in a DSSE envelope.

    Parameters
    ----------
    statement
        From :func:`test_result_statement`.
    key, key_id
        The signing key and its id (the envelope's ``keyid`` hint).

    Returns
    -------
    dict
        The DSSE envelope (payload type ``application/vnd.in-toto+json``).
    """
    return sign_envelope(canonical_bytes(statement), key, key_id)


def write_test_result(
    record: VerifiedRecord,
    *,
    signing_key: tuple[Ed25519PrivateKey, str] | None,
    url: str | None = None,
) -> bytes:
    """The ``in-toto-test-result`` export: the record's signed test result, as JSON bytes.

    Parameters
    ----------
    record
        A record that verified.
    signing_key
        ``(key, key_id)`` that signs the attestation.
    url
        Where the run can be seen (the Statement's ``url``); left out when ``None``.

    Returns
    -------
    bytes
        The DSSE envelope's JSON.

    Raises
    ------
    ValueError
        Without a signing key.
    """
    if signing_key is None:
        raise ValueError("in-toto-test-result needs a signing key")
    statement = test_result_statement(
        record.predicate, record_name=record.name, record_sha256=record.sha256, url=url
    )
    return json_document(signed_test_result(statement, *signing_key))
