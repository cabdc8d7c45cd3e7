"""C2SP signed-note checkpoints: the body, its Ed25519 signature line, parsing, verifying.

A checkpoint is a `tlog-checkpoint <https://github.com/C2SP/C2SP/blob/main/tlog-checkpoint.md>`_
body (the ledger's origin, the tree size and the base64 root, one per line) followed by a
blank line and `signed-note <https://github.com/C2SP/C2SP/blob/main/signed-note.md>`_
signature lines ``"— <name> " + base64(4-byte key hash || Ed25519 signature)``. It is the
format of Go's checksum database and Sigstore's Rekor; nothing here is respai's own.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import re
from collections.abc import Iterable
from typing import NamedTuple

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)

from respai.ledger.errors import CheckpointError
from respai.record import KeyRing
from respai.record.keys import public_key_raw

__all__ = [
    "Checkpoint",
    "check_origin",
    "checkpoint_body",
    "note_key_hash",
    "sign_checkpoint",
    "verify_checkpoint",
]

_SIZE = re.compile(r"^(0|[1-9][0-9]{0,18})\Z")  # at most 19 digits: no huge integers
_EM_DASH = "\u2014"


class Checkpoint(NamedTuple):
    """A verified checkpoint: what it commits to.

    Attributes
    ----------
    origin
        The ledger's id, the checkpoint's first line.
    size
        The number of runs the checkpoint covers (the tree size).
    root
        The 32-byte RFC 6962 root over those runs (see :func:`~respai.ledger.run_leaf`).
    """

    origin: str
    size: int
    root: bytes


def check_origin(origin: object) -> str:
    """Return ``origin`` if it can name a signed note, else raise :class:`CheckpointError`."""
    if (
        not isinstance(origin, str)
        or not origin
        or "+" in origin
        or any(c.isspace() or not c.isprintable() for c in origin)
    ):
        raise CheckpointError(
            f"The origin {origin!r} cannot name a signed note: it must be a non-empty "
            "string without spaces, control characters or '+'."
        )
    return origin


def checkpoint_body(origin: str, size: int, root: bytes) -> str:
    r"""Return a C2SP tlog-checkpoint body: ``origin``, ``size`` and base64 ``root`` lines.

    Examples
    --------
    >>> checkpoint_body("example.org/log", 0, bytes(32))
    'example.org/log\n0\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n'
    """
    check_origin(origin)
    given: object = size
    if isinstance(given, bool) or not isinstance(given, int) or size < 0:
        raise CheckpointError(f"A checkpoint size must be an integer >= 0, not {size!r}.")
    if len(root) != 32:
        raise CheckpointError(f"A checkpoint root must be 32 bytes, not {len(root)}.")
    return f"{origin}\n{size}\n{base64.b64encode(root).decode('ascii')}\n"


def note_key_hash(name: str, public_key: Ed25519PublicKey) -> bytes:
    """Return the signed-note key hash: ``SHA-256(name || 0x0A || 0x01 || pubkey)[:4]``."""
    data = name.encode("utf-8") + b"\n\x01" + public_key_raw(public_key)
    return hashlib.sha256(data).digest()[:4]


def sign_checkpoint(origin: str, size: int, root: bytes, key: Ed25519PrivateKey) -> str:
    """Return a signed checkpoint in C2SP signed-note form.

    The body (see :func:`checkpoint_body`), a blank line, then one signature line
    ``"— <origin> " + base64(key hash || Ed25519 signature of the body)``, with the key
    named by the origin.

    Parameters
    ----------
    origin
        The ledger's id.
    size
        The number of runs covered.
    root
        Their 32-byte RFC 6962 root.
    key
        The Ed25519 private key.

    Returns
    -------
    str
        The note text, ending in a newline.
    """
    body = checkpoint_body(origin, size, root)
    signature = key.sign(body.encode("utf-8"))
    blob = base64.b64encode(note_key_hash(origin, key.public_key()) + signature).decode("ascii")
    return f"{body}\n{_EM_DASH} {origin} {blob}\n"


def _public_keys(keys: KeyRing | Iterable[Ed25519PublicKey]) -> list[Ed25519PublicKey]:
    if isinstance(keys, KeyRing):
        # A checkpoint carries no time, so only revocation applies: a revoked key
        # vouches for nothing.
        return [e.public_key for e in keys if e.revoked_at is None]
    return list(keys)


def _parse_body(body: str, source: str) -> Checkpoint:
    lines = body[:-1].split("\n")
    if len(lines) < 3 or any(not line for line in lines):
        raise CheckpointError(
            f"{source} is not a checkpoint: its text must be three non-empty lines "
            "(origin, size, base64 root hash), optionally followed by extension lines."
        )
    origin, size_text, root_text = lines[:3]
    check_origin(origin)
    if not _SIZE.match(size_text):
        raise CheckpointError(
            f"{source}: the size line {size_text[:40]!r}{'...' if len(size_text) > 40 else ''} "
            "is not a decimal number of at most 19 digits without leading zeros."
        )
    try:
        root = base64.b64decode(root_text, validate=True)
    except (binascii.Error, ValueError):
        raise CheckpointError(f"{source}: the root hash line is not base64.") from None
    if len(root) != 32:
        raise CheckpointError(
            f"{source}: the root hash is {len(root)} bytes, not the 32 of a SHA-256."
        )
    return Checkpoint(origin, int(size_text), root)


def _parse_signatures(block: str, source: str) -> list[tuple[str, bytes]]:
    signatures = []
    for line in block[:-1].split("\n"):
        parts = line.split(" ")
        if len(parts) != 3 or parts[0] != _EM_DASH or not parts[1]:
            raise CheckpointError(
                f"{source}: the signature line {line[:60]!r} is not "
                f"'{_EM_DASH} <name> <base64 signature>' (with the em dash U+2014)."
            )
        try:
            blob = base64.b64decode(parts[2], validate=True)
        except (binascii.Error, ValueError):
            raise CheckpointError(
                f"{source}: the signature of {parts[1]!r} is not base64."
            ) from None
        if len(blob) < 5:
            raise CheckpointError(f"{source}: the signature of {parts[1]!r} is too short.")
        signatures.append((parts[1], blob))
    return signatures


def verify_checkpoint(
    text: str,
    public_keys: KeyRing | Iterable[Ed25519PublicKey],
    *,
    origin: str | None = None,
    source: str = "The checkpoint",
) -> Checkpoint:
    """Parse a signed checkpoint and check that a trusted key signed it.

    A signature counts when its name is the checkpoint's origin, its key hash is that of
    a trusted key under that name, and the Ed25519 signature of the body verifies.
    Signatures by unknown keys are ignored, as the signed-note format asks; the note is
    refused when none verifies.

    Parameters
    ----------
    text
        The note: body, blank line, signature lines.
    public_keys
        The trusted keys: a :class:`~respai.record.KeyRing` (revoked keys are left out)
        or Ed25519 public keys.
    origin
        The origin the checkpoint must have (the ledger's id), or ``None`` for any.
    source
        How messages name the checkpoint, for example its file name.

    Returns
    -------
    Checkpoint
        ``(origin, size, root)``.

    Raises
    ------
    CheckpointError
        If the note is malformed, has another origin, or no trusted key's signature
        verifies.
    """
    given: object = text
    if not isinstance(given, str):
        raise CheckpointError(f"{source} is not text.")
    if any(not c.isprintable() and c != "\n" for c in text):
        raise CheckpointError(f"{source} contains control characters; a signed note cannot.")
    if not text.endswith("\n"):
        raise CheckpointError(f"{source} does not end in a newline, so it is not a signed note.")
    split = text.rfind("\n\n")
    if split < 0:
        raise CheckpointError(
            f"{source} has no signature block (a blank line, then signature lines)."
        )
    body, block = text[: split + 1], text[split + 2 :]
    if not block:
        raise CheckpointError(f"{source} has a blank line but no signature line after it.")
    checkpoint = _parse_body(body, source)
    if origin is not None and checkpoint.origin != origin:
        raise CheckpointError(
            f"{source} is for the ledger {checkpoint.origin!r}, not {origin!r}.",
            "A checkpoint from another ledger proves nothing about this one.",
        )
    keys = _public_keys(public_keys)
    message = body.encode("utf-8")
    for name, blob in _parse_signatures(block, source):
        if name != checkpoint.origin:
            continue
        for public in keys:
            if note_key_hash(name, public) != blob[:4]:
                continue
            try:
                public.verify(blob[4:], message)
            except InvalidSignature:
                continue
            return checkpoint
    raise CheckpointError(
        f"{source} is not signed by any trusted key: no signature line under the name "
        f"{checkpoint.origin!r} verifies with the {len(keys)} key(s) given (a changed "
        "checkpoint, a damaged signature, or a key that is not in the key ring)."
    )
