"""DSSE: the PAE, signing, base64 forms, and interop with securesystemslib."""

from __future__ import annotations

import base64
import copy
from types import SimpleNamespace
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from securesystemslib.dsse import Envelope
from securesystemslib.exceptions import VerificationError as SslibVerificationError
from securesystemslib.signer import SSlibKey

from respai.record import (
    PAYLOAD_TYPE,
    PREDICATE_TYPE,
    STATEMENT_TYPE,
    KeyRing,
    RecordError,
    canonical_bytes,
    envelope_payload,
    key_id,
    pae,
    sign_envelope,
    signature_valid,
    verify_envelope,
)


def test_pae_spec_example() -> None:
    assert (
        pae("http://example.com/HelloWorld", b"hello world")
        == b"DSSEv1 29 http://example.com/HelloWorld 11 hello world"
    )


def test_pae_counts_bytes_not_characters() -> None:
    assert pae("t\u00e9", "\u00e9".encode()) == b"DSSEv1 3 t\xc3\xa9 2 \xc3\xa9"
    assert pae("", b"") == b"DSSEv1 0  0 "


def test_sign_and_check(signing_key: Ed25519PrivateKey, other_key: Ed25519PrivateKey) -> None:
    env = sign_envelope(b"payload", signing_key, "kid")
    assert env["payloadType"] == PAYLOAD_TYPE
    assert env["signatures"][0]["keyid"] == "kid"
    assert envelope_payload(env) == b"payload"
    assert signature_valid(env, signing_key.public_key())
    assert not signature_valid(env, other_key.public_key())
    tampered = dict(env, payload=base64.b64encode(b"payloaD").decode())
    assert not signature_valid(tampered, signing_key.public_key())
    assert not signature_valid(dict(env, payloadType="text/plain"), signing_key.public_key())


def test_keyid_is_only_a_hint(
    signing_key: Ed25519PrivateKey, other_key: Ed25519PrivateKey
) -> None:
    env = sign_envelope(b"x", signing_key, key_id(other_key.public_key()))
    assert signature_valid(env, signing_key.public_key())
    # A bad signature first does not stop a good one later from counting.
    bad = sign_envelope(b"x", other_key, "k2")["signatures"][0]
    env["signatures"].insert(0, bad)
    assert signature_valid(env, signing_key.public_key())


def test_url_safe_and_unpadded_base64_accepted(signing_key: Ed25519PrivateKey) -> None:
    payload = bytes(range(256)) * 3 + b"\xfb\xff"
    env = sign_envelope(payload, signing_key, "kid")
    sig = base64.b64decode(env["signatures"][0]["sig"])
    url = {
        "payload": base64.urlsafe_b64encode(payload).decode().rstrip("="),
        "payloadType": env["payloadType"],
        "signatures": [{"keyid": "kid", "sig": base64.urlsafe_b64encode(sig).decode()}],
    }
    assert "-" in url["payload"] or "_" in url["payload"]
    assert envelope_payload(url) == payload
    assert signature_valid(url, signing_key.public_key())


def test_envelope_payload_errors() -> None:
    with pytest.raises(RecordError, match="payload"):
        envelope_payload({"payloadType": PAYLOAD_TYPE})
    with pytest.raises(RecordError, match="base64"):
        envelope_payload({"payload": "!!!"})


def _sslib_key(private: Ed25519PrivateKey) -> SSlibKey:
    raw = private.public_key().public_bytes(
        serialization.Encoding.Raw, serialization.PublicFormat.Raw
    )
    return SSlibKey(
        keyid=key_id(private.public_key()),
        keytype="ed25519",
        scheme="ed25519",
        keyval={"public": raw.hex()},
    )


def test_sealed_envelope_verifies_with_securesystemslib(
    sealed: dict[str, Any], signing_key: Ed25519PrivateKey, rec: SimpleNamespace
) -> None:
    envelope = Envelope.from_dict(copy.deepcopy(sealed))
    verified = envelope.verify([_sslib_key(signing_key)], 1)
    assert key_id(signing_key.public_key()) in verified
    statement = rec.decode(sealed)
    assert statement["_type"] == STATEMENT_TYPE
    assert statement["predicateType"] == PREDICATE_TYPE
    assert envelope.pae() == pae(PAYLOAD_TYPE, canonical_bytes(statement))


def test_securesystemslib_rejects_a_tampered_payload(
    sealed: dict[str, Any], signing_key: Ed25519PrivateKey, rec: SimpleNamespace
) -> None:
    statement = rec.decode(sealed)
    statement["predicate"]["records"][1]["value"] = 0.0
    tampered = rec.with_statement(sealed, statement)
    with pytest.raises(SslibVerificationError):
        Envelope.from_dict(tampered).verify([_sslib_key(signing_key)], 1)


def test_securesystemslib_signed_envelope_verifies_with_us(
    signing_key: Ed25519PrivateKey, ring: KeyRing, rec: SimpleNamespace
) -> None:
    # The other direction: sslib's own PAE and signature over our payload.
    from securesystemslib.signer import CryptoSigner

    sealed = rec.resign(rec.decode(_fresh(signing_key, rec)), signing_key)
    payload = envelope_payload(sealed)
    signer = CryptoSigner(signing_key, _sslib_key(signing_key))
    envelope = Envelope(payload=payload, payload_type=PAYLOAD_TYPE, signatures={})
    envelope.sign(signer)
    report = verify_envelope(envelope.to_dict(), ring)
    assert report.ok, report.checks


def _fresh(key: Ed25519PrivateKey, rec: SimpleNamespace) -> dict[str, Any]:
    from respai.record import seal

    return seal(rec.make_predicate(), None, key, key_id(key.public_key()))
