"""RFC 3161 timestamps over a signed record: asked for when it is signed, checked offline.

A record's ``timestamp`` is the signer's own clock. A time-stamping authority (RFC 3161)
signs a token saying that a given SHA-256 digest existed no later than the time in the
token (its ``genTime``); anyone who trusts the authority's certificate can check that
later, offline. The token proves existence no later than that time; it proves nothing
about whether the record is correct, nor that the record did not exist earlier.

**What is stamped.** The message is the envelope's RFC 8785 canonical bytes followed by a
newline (:func:`record_message`): exactly the bytes of the run's file in a ledger
(``runs/<seq>-<run_id>.json``), and the same for ``record.json`` (written indented) or the
envelope an HTML report embeds, because the message is computed from the parsed envelope,
not from the file's layout. The envelope holds the payload, the key id and the signature,
so the token binds the signed record; it cannot be inside the envelope (a token over
itself), so it is kept beside it, in a sidecar ``timestamps.json`` (:data:`SIDECAR`):

.. code-block:: json

    {"format": "respai-timestamps/1",
     "message": "rfc8785-envelope+LF",
     "sha256": "<hex SHA-256 of the message>",
     "tokens": [{"authority": "<URL asked>", "response": "<base64 DER TimeStampResp>"}]}

The sidecar is not signed and needs not be: each token is signed by its authority, and
checking it (:func:`check_tokens`) recomputes the message from the record, so a sidecar
moved beside another record, or a record edited after it was stamped, fails.

**Checking** uses the maintained ``rfc3161-client`` library (the PKCS #7 signature, the
chain to a certificate the user trusts, the critical ``timeStamping`` extended key usage,
the message imprint). :func:`clock_finding` compares the record's own time with the
token's: more than :data:`CLOCK_TOLERANCE` apart, the signer's clock is named as wrong.
"""

from __future__ import annotations

import base64
import dataclasses
import datetime as dt
import hashlib
import json
import urllib.error
import urllib.request
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from respai.errors import Error
from respai.record.canonical import canonical_bytes, loads_strict
from respai.record.errors import RecordError
from respai.record.times import format_timestamp

__all__ = [
    "CHECKPOINT_MESSAGE",
    "CLOCK_TOLERANCE",
    "FORMAT",
    "MAX_TOKEN_BYTES",
    "MESSAGE",
    "SIDECAR",
    "TIMEOUT",
    "TimestampError",
    "TokenCheck",
    "check_tokens",
    "clock_finding",
    "load_trusted",
    "read_sidecar",
    "record_message",
    "request_token",
    "sidecar",
    "sidecar_bytes",
    "stamp",
]

SIDECAR = "timestamps.json"
"""The file beside a record that holds its tokens."""

FORMAT = "respai-timestamps/1"
"""The ``format`` of a sidecar."""

MESSAGE = "rfc8785-envelope+LF"
"""How the stamped message is made from the envelope (see :func:`record_message`)."""

CHECKPOINT_MESSAGE = "checkpoint-file"
"""The message of a ledger checkpoint's tokens: the checkpoint file's exact bytes."""

CLOCK_TOLERANCE = dt.timedelta(minutes=5)
"""How far a record's own time may be from its token's time before the clock is named.

respai asks for the token right after signing, so an honest clock is seconds from the
authority's; 5 minutes allows for a slow authority, a slow network and a machine whose
clock drifts without being set back or ahead on purpose.
"""

TIMEOUT = 10.0
"""Seconds to wait for an authority's answer."""

MAX_TOKEN_BYTES = 256 * 1024
"""The largest answer read from an authority (a token with its certificates is a few KiB)."""


class TimestampError(Error):
    """An authority named with ``--timestamp`` gave no valid token (exit code 2)."""


def record_message(envelope: Mapping[str, Any]) -> bytes:
    """The bytes a token is over: the envelope's RFC 8785 bytes and a newline.

    Equal to the run's file in a ledger; independent of how ``record.json`` is indented.
    """
    return canonical_bytes(envelope) + b"\n"


def request_token(url: str, message: bytes, *, timeout: float = TIMEOUT) -> bytes:
    """Ask the authority at ``url`` for a token over SHA-256(``message``); its DER answer.

    The request carries a nonce and asks for the authority's certificate; the answer must
    be granted, over this digest, with this nonce.

    Raises
    ------
    TimestampError
        When the authority cannot be reached or answers with anything but such a token.
    """
    from rfc3161_client import (
        HashAlgorithm,
        PKIStatus,
        TimestampRequestBuilder,
        decode_timestamp_response,
    )

    def refuse(reason: str) -> TimestampError:
        return TimestampError(
            f"the timestamp authority {url} gave no token: {reason}. Nothing was written: "
            "a run asked to be stamped is written only with every token it asked for.",
            "Check the --timestamp URL (or RESPAI_TIMESTAMP) and the network, or run "
            "without that authority.",
        )

    if not url.startswith(("http://", "https://")):
        raise refuse("the address is not an http:// or https:// URL")
    query = (
        TimestampRequestBuilder()
        .data(message)
        .hash_algorithm(HashAlgorithm.SHA256)
        .nonce(nonce=True)
        .cert_request(cert_request=True)
        .build()
    )
    request = urllib.request.Request(
        url,
        data=query.as_bytes(),
        headers={"Content-Type": "application/timestamp-query"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as answer:
            body: bytes = answer.read(MAX_TOKEN_BYTES + 1)
    except urllib.error.HTTPError as exc:
        raise refuse(f"it answered HTTP {exc.code} {exc.reason}") from None
    except (urllib.error.URLError, OSError) as exc:
        reason = getattr(exc, "reason", None) or exc
        raise refuse(f"it could not be reached ({reason})") from None
    if len(body) > MAX_TOKEN_BYTES:
        raise refuse(f"its answer is larger than {MAX_TOKEN_BYTES} bytes")
    try:
        response = decode_timestamp_response(body)
    except ValueError as exc:
        raise refuse(f"its answer is not an RFC 3161 response ({exc})") from None
    if PKIStatus(response.status) not in (PKIStatus.GRANTED, PKIStatus.GRANTED_WITH_MODS):
        raise refuse(f"it refused the request (status {response.status})")
    info = response.tst_info
    if info.message_imprint.message != hashlib.sha256(message).digest():
        raise refuse("its token is over another digest")
    if info.nonce != query.nonce:
        raise refuse("its token does not carry the request's nonce")
    return body


def stamp(
    message: bytes, urls: Iterable[str], *, timeout: float = TIMEOUT, kind: str = MESSAGE
) -> dict[str, Any]:
    """A token over ``message`` from each authority in ``urls``, as a sidecar document.

    ``kind`` says what the message is (:data:`MESSAGE`, :data:`CHECKPOINT_MESSAGE`).

    Raises
    ------
    TimestampError
        At the first authority that gives no token.
    """
    tokens = [(url, request_token(url, message, timeout=timeout)) for url in urls]
    return sidecar(message, tokens, kind=kind)


def sidecar(
    message: bytes, tokens: Sequence[tuple[str, bytes]], *, kind: str = MESSAGE
) -> dict[str, Any]:
    """The sidecar document of ``tokens`` (authority URL, DER answer) over ``message``."""
    return {
        "format": FORMAT,
        "message": kind,
        "sha256": hashlib.sha256(message).hexdigest(),
        "tokens": [
            {"authority": url, "response": base64.b64encode(der).decode("ascii")}
            for url, der in tokens
        ],
    }


def sidecar_bytes(doc: Mapping[str, Any]) -> bytes:
    """The sidecar as written: indented JSON with one trailing newline."""
    return (json.dumps(doc, indent=2, sort_keys=True) + "\n").encode("utf-8")


def read_sidecar(path: Path, kind: str = MESSAGE) -> dict[str, Any] | str | None:
    """The sidecar at ``path``; ``None`` when there is none; why it is unusable, as text.

    ``kind`` is the message the sidecar must say its tokens are over.
    """
    from respai.io import FileTooLarge, NotARegularFile, read_bounded

    try:
        data = read_bounded(path, 64 * MAX_TOKEN_BYTES, "timestamps.json size")
    except FileNotFoundError:
        return None
    except (NotARegularFile, FileTooLarge, OSError) as exc:
        return f"{path} cannot be read ({getattr(exc, 'strerror', None) or exc})"
    try:
        doc = loads_strict(data)
    except RecordError as exc:
        return f"{path} is not JSON: {exc.message}"
    tokens = doc.get("tokens") if isinstance(doc, dict) else None
    if (
        not isinstance(doc, dict)
        or doc.get("format") != FORMAT
        or doc.get("message") != kind
        or not isinstance(tokens, list)
        or not all(
            isinstance(t, dict)
            and isinstance(t.get("authority"), str)
            and isinstance(t.get("response"), str)
            for t in tokens
        )
    ):
        return f"{path} is not a {FORMAT} sidecar"
    return doc


def load_trusted(paths: Iterable[Path]) -> list[Any]:
    """The certificates in the PEM files ``paths`` (``--tsa-cert``), every one a trust anchor.

    Raises
    ------
    respai.errors.InputError
        When a file cannot be read or holds no PEM certificate.
    """
    from cryptography import x509

    from respai.errors import InputError

    found: list[x509.Certificate] = []
    for path in paths:
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise InputError(
                f"--tsa-cert {path} cannot be read ({exc.strerror or exc}).",
                "Pass the PEM certificate of the time-stamping authority's root.",
            ) from None
        try:
            certs = x509.load_pem_x509_certificates(data)
        except ValueError:
            certs = []
        if not certs:
            raise InputError(
                f"--tsa-cert {path} holds no PEM certificate.",
                "Pass the authority's root certificate, as PEM (-----BEGIN CERTIFICATE-----).",
            )
        found += certs
    return found


@dataclasses.dataclass(frozen=True)
class TokenCheck:
    """What one token says and whether it verified.

    Attributes
    ----------
    authority
        The URL the token was asked from (as the sidecar states it).
    name
        The common name of the certificate that signed the token, or ``None``.
    time
        The token's ``genTime``, or ``None`` when the token could not be read.
    ok
        ``True`` verified against a trusted certificate, ``False`` failed, ``None`` not
        checked (no ``--tsa-cert``).
    detail
        What was found, for people.
    """

    authority: str
    name: str | None
    time: dt.datetime | None
    ok: bool | None
    detail: str

    def to_json(self) -> dict[str, Any]:
        """JSON-ready data."""
        return {
            "authority": self.authority,
            "name": self.name,
            "time": None if self.time is None else format_timestamp(self.time),
            "ok": self.ok,
            "detail": self.detail,
        }


def _signer_name(response: Any) -> str | None:
    from cryptography import x509
    from cryptography.x509.oid import NameOID

    for der in response.signed_data.certificates:
        cert = x509.load_der_x509_certificate(der)
        for info in response.signed_data.signer_infos:
            if cert.issuer == info.issuer and cert.serial_number == info.serial_number:
                names = cert.subject.get_attributes_for_oid(NameOID.COMMON_NAME)
                return str(names[0].value) if names else cert.subject.rfc4514_string()
    return None


def _why(exc: Exception) -> str:
    text = str(exc)
    if "Mismatch between messages" in text:
        return "the token is over other bytes: the record was changed after it was stamped"
    if "certificate verify error" in text or "local issuer" in text:
        return "its signer does not chain to a --tsa-cert certificate"
    if "signature failure" in text:
        return "the token's signature does not verify: the token was altered"
    return text.split(": ErrorStack")[0]


def check_tokens(
    doc: Mapping[str, Any], message: bytes, trusted: Sequence[Any] | None
) -> list[TokenCheck]:
    """Check each token of the sidecar ``doc`` over ``message`` with ``rfc3161-client``.

    Parameters
    ----------
    doc
        A sidecar (:func:`read_sidecar`).
    message
        :func:`record_message` of the record the sidecar lies beside.
    trusted
        The certificates to trust (:func:`load_trusted`), or ``None`` to read the tokens
        without checking them (``ok`` is then ``None``).
    """
    from rfc3161_client import VerificationError, VerifierBuilder, decode_timestamp_response

    out: list[TokenCheck] = []
    for token in doc["tokens"]:
        url = token["authority"]
        try:
            der = base64.b64decode(token["response"], validate=True)
            response = decode_timestamp_response(der)
            when = response.tst_info.gen_time.astimezone(dt.UTC)
            name = _signer_name(response)
        except ValueError as exc:
            out.append(TokenCheck(url, None, None, False, f"the token cannot be read ({exc})"))
            continue
        said = f"existed no later than {format_timestamp(when)} (authority {name or url})"
        if trusted is None:
            out.append(TokenCheck(url, name, when, None, f"says it {said}; not checked"))
            continue
        try:
            VerifierBuilder(roots=list(trusted)).build().verify_message(response, message)
        except (VerificationError, ValueError) as exc:
            out.append(TokenCheck(url, name, when, False, f"{_why(exc)} ({url})"))
            continue
        out.append(TokenCheck(url, name, when, True, said))
    return out


def clock_finding(
    stated: dt.datetime, stamped: dt.datetime, *, tolerance: dt.timedelta = CLOCK_TOLERANCE
) -> str | None:
    """Why the record's own time ``stated`` disagrees with a token's time, or ``None``.

    A record cannot be signed after it was stamped, so ``stated`` later than ``stamped``
    (beyond ``tolerance``) means the signer's clock was ahead. respai asks for the token
    right after signing, so ``stated`` much earlier means the clock was set back (or the
    token was obtained long after): either way the record's own time is not to be relied
    on, and the token's is the one to quote.
    """
    gap = stamped - stated
    if abs(gap) <= tolerance:
        return None
    t0, t1 = format_timestamp(stated), format_timestamp(stamped)
    if gap < dt.timedelta(0):
        return (
            f"the record states {t0}, {_span(-gap)} after the authority stamped it "
            f"({t1}): the signer's clock was ahead"
        )
    return (
        f"the record states {t0}, but it existed no later than {t1} by the authority, "
        f"{_span(gap)} later: the signer's clock was set back, or the record was stamped "
        "long after it was signed; its own time cannot be relied on"
    )


def _span(gap: dt.timedelta) -> str:
    seconds = int(gap.total_seconds())
    if seconds >= 2 * 86400:
        return f"{seconds // 86400} days"
    if seconds >= 2 * 3600:
        return f"{seconds // 3600} hours"
    if seconds >= 120:
        return f"{seconds // 60} minutes"
    return f"{seconds} s"
