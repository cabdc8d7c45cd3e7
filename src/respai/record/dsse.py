"""DSSE v1 envelopes: pre-authentication encoding, Ed25519 signing and checking.

The envelope is ``{"payload": b64(payload), "payloadType": T, "signatures":
[{"keyid": ..., "sig": b64(sig)}]}`` where each signature is Ed25519 over
``PAE(T, payload)``. Signatures are checked over the payload bytes received, never over a
re-serialisation. A signature's ``keyid`` is an unauthenticated hint.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)

from respai.record.errors import RecordError

__all__ = [
    "PAYLOAD_TYPE",
    "b64decode_any",
    "envelope_payload",
    "pae",
    "sign_envelope",
    "signature_valid",
    "signature_verifies",
]

PAYLOAD_TYPE = "application/vnd.in-toto+json"
"""The DSSE payload type of an in-toto Statement."""


def pae(payload_type: str, payload: bytes) -> bytes:
    """Return the DSSE v1 pre-authentication encoding of ``payload``.

    ``"DSSEv1" SP LEN(type) SP type SP LEN(body) SP body``, lengths in ASCII decimal
    bytes.

    Examples
    --------
    >>> pae("http://example.com/HelloWorld", b"hello world")
    b'DSSEv1 29 http://example.com/HelloWorld 11 hello world'
    """
    kind = payload_type.encode("utf-8")
    return b"DSSEv1 %d %b %d %b" % (len(kind), kind, len(payload), payload)


def b64decode_any(text: object) -> bytes:
    """Decode standard or URL-safe base64, with or without padding.

    Raises
    ------
    RecordError
        If ``text`` is not base64.

    Examples
    --------
    >>> b64decode_any("-_8") == b64decode_any("+/8=") == bytes([0xFB, 0xFF])
    True
    """
    if not isinstance(text, str):
        raise RecordError(f"Expected a base64 string, got {type(text).__name__}.")
    body = text.strip().replace("-", "+").replace("_", "/").rstrip("=")
    try:
        return base64.b64decode(body + "=" * (-len(body) % 4), validate=True)
    except (binascii.Error, ValueError):
        raise RecordError("The text is not valid base64.") from None


def sign_envelope(
    payload: bytes,
    key: Ed25519PrivateKey,
    key_id: str,
    *,
    payload_type: str = PAYLOAD_TYPE,
) -> dict[str, Any]:
    """Sign ``payload`` and return the DSSE envelope.

    Parameters
    ----------
    payload
        The exact bytes to sign, normally the canonical bytes of an in-toto Statement.
    key
        The Ed25519 private key.
    key_id
        The key's id (see :func:`respai.record.keys.key_id`), written as the ``keyid``
        hint.
    payload_type
        The DSSE payload type.

    Returns
    -------
    dict
        ``{"payload", "payloadType", "signatures": [{"keyid", "sig"}]}`` with standard
        base64.
    """
    signature = key.sign(pae(payload_type, payload))
    return {
        "payload": base64.b64encode(payload).decode("ascii"),
        "payloadType": payload_type,
        "signatures": [{"keyid": key_id, "sig": base64.b64encode(signature).decode("ascii")}],
    }


def envelope_payload(envelope: Mapping[str, Any]) -> bytes:
    """Return the decoded payload bytes of a DSSE envelope.

    Raises
    ------
    RecordError
        If the envelope has no string ``payload`` or it is not base64.
    """
    given: object = envelope
    if not isinstance(given, Mapping) or not isinstance(given.get("payload"), str):
        raise RecordError("The DSSE envelope has no string 'payload' field.")
    try:
        return b64decode_any(envelope["payload"])
    except RecordError:
        raise RecordError("The DSSE envelope's 'payload' is not valid base64.") from None


def signature_verifies(
    payload_type: str, payload: bytes, signature: bytes, public_key: Ed25519PublicKey
) -> bool:
    """Return whether ``signature`` is ``public_key``'s Ed25519 signature of the PAE."""
    try:
        public_key.verify(signature, pae(payload_type, payload))
    except InvalidSignature:
        return False
    return True


def signature_valid(envelope: Mapping[str, Any], public_key: Ed25519PublicKey) -> bool:
    """Return whether any signature in ``envelope`` verifies with ``public_key``.

    Every signature is tried, whatever its ``keyid`` says; a malformed envelope or
    signature counts as not verifying.
    """
    try:
        payload = envelope_payload(envelope)
    except RecordError:
        return False
    payload_type = envelope.get("payloadType")
    signatures = envelope.get("signatures")
    if not isinstance(payload_type, str) or not isinstance(signatures, list):
        return False
    for entry in signatures:
        if not isinstance(entry, Mapping):
            continue
        try:
            signature = b64decode_any(entry.get("sig"))
        except RecordError:
            continue
        if signature_verifies(payload_type, payload, signature, public_key):
            return True
    return False
