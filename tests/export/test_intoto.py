"""The in-toto test result: a DSSE envelope any Ed25519 tool verifies, with the right lists."""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from respai.cli import main

LISTS = {
    "PASS": "passedTests",
    "FAIL": "failedTests",
    "INSUFFICIENT_EVIDENCE": "warnedTests",
    "MANUAL_REVIEW": "warnedTests",
}


def _pae(payload_type: str, payload: bytes) -> bytes:
    # written out here, not imported, so the test checks the envelope independently
    t = payload_type.encode()
    return (
        b"DSSEv1 "
        + str(len(t)).encode()
        + b" "
        + t
        + b" "
        + str(len(payload)).encode()
        + b" "
        + payload
    )


@pytest.fixture
def envelope(home: Any, tmp_path: Path) -> dict[str, Any]:
    out = tmp_path / "result.intoto.json"
    code = main(
        [
            "export",
            str(home.record),
            "--format",
            "in-toto-test-result",
            "-o",
            str(out),
            "--url",
            "https://ci.example/run/7",
        ]
    )
    assert code == 0
    return json.loads(out.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def test_the_envelope_verifies_with_the_users_key_over_the_pae(
    home: Any, envelope: dict[str, Any]
) -> None:
    key = serialization.load_pem_public_key((home.record.parent / "public_key.pem").read_bytes())
    assert isinstance(key, Ed25519PublicKey)
    payload = base64.b64decode(envelope["payload"])
    assert envelope["payloadType"] == "application/vnd.in-toto+json"
    (sig,) = envelope["signatures"]
    key.verify(base64.b64decode(sig["sig"]), _pae(envelope["payloadType"], payload))
    raw = key.public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    assert sig["keyid"] == "sha256:" + hashlib.sha256(raw).hexdigest()
    with pytest.raises(InvalidSignature):  # one changed byte of the payload is refused
        key.verify(base64.b64decode(sig["sig"]), _pae(envelope["payloadType"], payload + b" "))


def test_the_statement_names_the_record_and_lists_every_test_by_verdict(
    home: Any, envelope: dict[str, Any]
) -> None:
    statement = json.loads(base64.b64decode(envelope["payload"]))
    assert statement["_type"] == "https://in-toto.io/Statement/v1"
    assert statement["predicateType"] == "https://in-toto.io/attestation/test-result/v0.1"
    assert statement["subject"] == [
        {
            "name": "record.json",
            "digest": {"sha256": hashlib.sha256(home.record.read_bytes()).hexdigest()},
        }
    ]
    body = statement["predicate"]
    record = json.loads(
        base64.b64decode(json.loads(home.record.read_text(encoding="utf-8"))["payload"])
    )["predicate"]
    tests = [r for r in record["records"] if r["record_type"] == "test"]
    expected: dict[str, list[str]] = {"passedTests": [], "warnedTests": [], "failedTests": []}
    for rec in tests:
        expected[LISTS[rec["verdict"]]].append(rec["test_key"])
    assert {k: body[k] for k in expected} == expected
    assert body["failedTests"] and body["passedTests"]  # both kinds occur in this run
    assert body["result"] == "FAILED"
    assert body["url"] == "https://ci.example/run/7"
    names = [c["name"] for c in body["configuration"]]
    assert names[0] == "spec:spec.yaml"
    spec_sha = hashlib.sha256((home.folder / "spec.yaml").read_bytes()).hexdigest()
    assert body["configuration"][0]["digest"] == {"sha256": spec_sha}
    assert any(n.startswith("respai-evidence-engine/") for n in names)


def test_result_is_warned_when_nothing_failed_but_something_was_not_decided() -> None:
    from respai.export.intoto import test_result_statement

    def rec(key: str, verdict: str) -> dict[str, Any]:
        return {"record_type": "test", "test_id": "accuracy", "test_key": key, "verdict": verdict}

    def result(*verdicts: str) -> str:
        predicate = {"records": [rec(f"t{i}", v) for i, v in enumerate(verdicts)]}
        out = test_result_statement(predicate, record_name="r", record_sha256="0" * 64)
        return str(out["predicate"]["result"])

    assert result("PASS", "PASS") == "PASSED"
    assert result("PASS", "MANUAL_REVIEW") == "WARNED"
    assert result("INSUFFICIENT_EVIDENCE", "PASS") == "WARNED"
    assert result("MANUAL_REVIEW", "FAIL") == "FAILED"
