"""The local append-only ledger: one signed run per file, a signed checkpoint after each run.

A ledger is a directory (``.respai/`` in the working directory by default)::

    ledger.json                         {"format", "origin", "created"}
    lock                                flock(2) target: one appender at a time
    runs/<seq, 12 digits>-<run_id>.json one DSSE envelope per run, written atomically
    checkpoints/<size>.txt              a C2SP signed-note checkpoint after each run
    tree.json                           cache of the Merkle frontier (never trusted)

Every run's first record links to the previous run's last record (``prev_record_id``,
global ``seq``), so a dropped, reordered or edited run breaks the chain, and
:func:`verify_ledger` names it. After each run a checkpoint, ``origin``, ``size`` and the
RFC 6962 Merkle root over every record id, is signed with the run's key. A copy of a
checkpoint kept elsewhere proves later that none of the first ``size`` records was
removed or changed. Someone holding the key can rewrite a purely local ledger, so the
checkpoints are worth most when copied out.

Appending takes the lock, reads the head, and writes the run file, then the checkpoint,
each with write-to-temporary, ``fsync``, ``os.replace`` and an ``fsync`` of the
directory. A crash at any point leaves a ledger that verifies: a run without its
checkpoint, or a stray ``.tmp-*`` file, is reported as a note.

This module imports no statistics, rules or dataframe code: the ledger needs only the
records.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import dataclasses
import fcntl
import hashlib
import os
import re
import time
import uuid
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, NamedTuple

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)

from respai.errors import Error
from respai.record import (
    GENESIS,
    KeyRing,
    RecordError,
    VerificationReport,
    canonical_bytes,
    envelope_payload,
    format_timestamp,
    key_id,
    loads_strict,
    now_utc,
    seal,
    verify_envelope,
)
from respai.record.chain import is_digest_id
from respai.record.keys import public_key_raw

__all__ = [
    "DEFAULT_DIRECTORY",
    "EMPTY_ROOT",
    "LEDGER_FORMAT",
    "Appended",
    "Checkpoint",
    "CheckpointCheck",
    "CheckpointError",
    "Head",
    "Ledger",
    "LedgerError",
    "LedgerReport",
    "RunCheck",
    "RunSummary",
    "checkpoint_body",
    "find_run",
    "last_envelope",
    "leaf_hash",
    "list_runs",
    "log_lines",
    "merkle_root",
    "node_hash",
    "note_key_hash",
    "read_run",
    "record_leaf",
    "run_file_name",
    "sign_checkpoint",
    "verify_checkpoint",
    "verify_ledger",
]

DEFAULT_DIRECTORY = Path(".respai")
"""Where the ledger lives when no directory is given: ``.respai/`` in the working directory."""

LEDGER_FORMAT = "respai-ledger/1"
"""The ``format`` of ``ledger.json``."""

ORIGIN_PREFIX = "respai.local/ledger/"
"""The start of a new ledger's origin (its id); a random UUID follows."""

LOCK_TIMEOUT = 60.0
"""Seconds to wait for another appender to release the lock before giving up."""

EMPTY_ROOT = hashlib.sha256(b"").digest()
"""The RFC 6962 Merkle root of no leaves: SHA-256 of the empty string."""

_LEDGER_JSON = "ledger.json"
_LOCK = "lock"
_TREE_JSON = "tree.json"
_RUNS = "runs"
_CHECKPOINTS = "checkpoints"
_TMP_PREFIX = ".tmp-"
_RUN_NAME = re.compile(r"^([0-9]{12,})-([A-Za-z0-9._-]+)\.json$")
_CHECKPOINT_NAME = re.compile(r"^(0|[1-9][0-9]*)\.txt$")
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")
_SIZE = re.compile(r"^(0|[1-9][0-9]*)$")
_EM_DASH = "\u2014"
_MAX_LISTED = 8


class LedgerError(Error):
    """The ledger directory cannot be used as it is.

    Raised for a directory that is not a ledger, a missing or malformed ``ledger.json``,
    a run that is not the ledger's next run, a ledger whose tail was removed (appending
    is refused so the evidence is kept), and files that cannot be read or written.
    """


class CheckpointError(LedgerError):
    """A checkpoint is malformed, belongs to another ledger, or no trusted key signed it."""


# -- RFC 6962 Merkle tree ----------------------------------------------------------------


def leaf_hash(leaf: bytes) -> bytes:
    """Return the RFC 6962 leaf hash ``SHA-256(0x00 || leaf)``.

    Examples
    --------
    >>> leaf_hash(b"").hex()[:16]
    '6e340b9cffb37a98'
    """
    return hashlib.sha256(b"\x00" + leaf).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    """Return the RFC 6962 interior node hash ``SHA-256(0x01 || left || right)``."""
    return hashlib.sha256(b"\x01" + left + right).digest()


class _MerkleTree:
    """Every perfect, aligned subtree hash of a leaf list, so any prefix's root is cheap."""

    def __init__(self, leaves: Sequence[bytes]) -> None:
        level = [leaf_hash(leaf) for leaf in leaves]
        self.size = len(level)
        self._levels = [level]
        while len(level) > 1:
            level = [node_hash(level[i], level[i + 1]) for i in range(0, len(level) - 1, 2)]
            self._levels.append(level)

    def root(self, size: int) -> bytes:
        """The RFC 6962 root of the first ``size`` leaves."""
        if not 0 <= size <= self.size:
            raise ValueError(f"size {size} is outside 0..{self.size}")
        subtrees: list[bytes] = []
        offset = 0
        for height in reversed(range(size.bit_length())):
            if size >> height & 1:
                subtrees.append(self._levels[height][offset >> height])
                offset += 1 << height
        return _bag(subtrees)


def _bag(subtrees: Sequence[bytes]) -> bytes:
    # The perfect subtrees of a size's binary decomposition, largest (leftmost) first,
    # hashed together from the right: exactly RFC 6962's split at the largest power of two.
    if not subtrees:
        return EMPTY_ROOT
    root = subtrees[-1]
    for left in reversed(subtrees[:-1]):
        root = node_hash(left, root)
    return root


def merkle_root(leaves: Sequence[bytes]) -> bytes:
    """Return the RFC 6962 Merkle Tree Hash of ``leaves``.

    ``MTH({}) = SHA-256()``, ``MTH({d}) = SHA-256(0x00 || d)``, and for ``n > 1``
    ``MTH(D[n]) = SHA-256(0x01 || MTH(D[0:k]) || MTH(D[k:n]))`` with ``k`` the largest
    power of two smaller than ``n``.

    Parameters
    ----------
    leaves
        The leaf data, in order. In a ledger, the 32-byte digests of the record ids in
        ``seq`` order (see :func:`record_leaf`).

    Returns
    -------
    bytes
        The 32-byte root.

    Examples
    --------
    >>> merkle_root([]).hex()[:16]
    'e3b0c44298fc1c14'
    >>> merkle_root([b""]).hex()[:16]
    '6e340b9cffb37a98'
    """
    return _MerkleTree(leaves).root(len(leaves))


def _frontier_append(frontier: list[tuple[int, bytes]], leaf: bytes) -> None:
    # The frontier holds (height, hash) of the perfect subtrees, largest first.
    height, digest = 0, leaf_hash(leaf)
    while frontier and frontier[-1][0] == height:
        left_height, left = frontier.pop()
        height, digest = left_height + 1, node_hash(left, digest)
    frontier.append((height, digest))


def record_leaf(rid: str) -> bytes:
    """Return the 32-byte digest a record id names: the Merkle leaf of that record.

    Raises
    ------
    LedgerError
        If ``rid`` is not ``"sha256:"`` and 64 lowercase hex digits.

    Examples
    --------
    >>> record_leaf("sha256:" + "00" * 32) == bytes(32)
    True
    """
    if not is_digest_id(rid):
        raise LedgerError(f"{rid!r} is not a record id ('sha256:' and 64 lowercase hex digits).")
    return bytes.fromhex(rid.removeprefix("sha256:"))


# -- C2SP signed-note checkpoints --------------------------------------------------------


class Checkpoint(NamedTuple):
    """A verified checkpoint: what it commits to.

    Attributes
    ----------
    origin
        The ledger's id, the checkpoint's first line.
    size
        The number of records the checkpoint covers.
    root
        The 32-byte RFC 6962 root over their record ids.
    """

    origin: str
    size: int
    root: bytes


def _check_origin(origin: object) -> str:
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
    _check_origin(origin)
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
        The number of records covered.
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
    _check_origin(origin)
    if not _SIZE.match(size_text):
        raise CheckpointError(
            f"{source}: the size line {size_text!r} is not a decimal number without leading zeros."
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


# -- files -------------------------------------------------------------------------------


def _safe_run_id(run_id: str) -> str:
    return _UNSAFE.sub("_", run_id)[:64] or "_"


def run_file_name(first_seq: int, run_id: str) -> str:
    """Return the file name of a run: ``<seq of its first record, 12 digits>-<run_id>.json``.

    Characters other than letters, digits, ``.``, ``_`` and ``-`` in the run id become
    ``_``, and it is cut to 64 characters.

    Examples
    --------
    >>> run_file_name(5, "0193f6a2-7c1e")
    '000000000005-0193f6a2-7c1e.json'
    """
    return f"{first_seq:012d}-{_safe_run_id(run_id)}.json"


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _atomic_write(directory: Path, name: str, data: bytes) -> Path:
    """Write ``directory/name`` so that it either holds all of ``data`` or does not exist."""
    final = directory / name
    tmp = directory / f"{_TMP_PREFIX}{uuid.uuid4().hex}"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, final)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _fsync_dir(directory)
    return final


def _write_checkpoint(directory: Path, size: int, text: str) -> Path:
    return _atomic_write(directory, f"{size}.txt", text.encode("utf-8"))


def _rel(directory: Path, path: Path) -> str:
    try:
        return path.relative_to(directory).as_posix()
    except ValueError:
        return str(path)


def _numbered_files(
    folder: Path, pattern: re.Pattern[str]
) -> tuple[list[tuple[int, Path]], list[Path], list[Path]]:
    """Files whose name matches ``pattern`` (by their number), stray temporary files, others."""
    found: list[tuple[int, Path]] = []
    strays: list[Path] = []
    others: list[Path] = []
    if not folder.is_dir():
        return found, strays, others
    for path in sorted(folder.iterdir()):
        match = pattern.match(path.name)
        if path.name.startswith(_TMP_PREFIX):
            strays.append(path)
        elif match and path.is_file():
            found.append((int(match.group(1)), path))
        else:
            others.append(path)
    found.sort(key=lambda item: (item[0], item[1].name))
    return found, strays, others


def _run_files(directory: Path) -> tuple[list[tuple[int, Path]], list[Path], list[Path]]:
    """The run files by name seq, the stray temporary files, and other unexpected files."""
    return _numbered_files(directory / _RUNS, _RUN_NAME)


def _checkpoint_files(directory: Path) -> tuple[list[tuple[int, Path]], list[Path], list[Path]]:
    """The checkpoint files by size, the stray temporary files, and other files."""
    return _numbered_files(directory / _CHECKPOINTS, _CHECKPOINT_NAME)


def read_run(path: Path | str) -> dict[str, Any]:
    """Read one run file: the DSSE envelope, parsed strictly, not verified.

    Parameters
    ----------
    path
        A ``runs/*.json`` file (or any envelope file).

    Returns
    -------
    dict
        The envelope.

    Raises
    ------
    LedgerError
        If the file cannot be read or is not a JSON object.
    """
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise LedgerError(f"Cannot read the run file {path}: {exc.strerror}.") from None
    try:
        envelope = loads_strict(data)
    except RecordError as exc:
        raise LedgerError(f"The run file {path} is not JSON: {exc.message}") from None
    if not isinstance(envelope, dict):
        raise LedgerError(f"The run file {path} does not hold a JSON object (a DSSE envelope).")
    return envelope


def _unverified_predicate(envelope: Any) -> dict[str, Any] | None:
    try:
        statement = loads_strict(envelope_payload(envelope))
    except RecordError:
        return None
    predicate = statement.get("predicate") if isinstance(statement, dict) else None
    return predicate if isinstance(predicate, dict) else None


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


@dataclasses.dataclass(frozen=True)
class _RunInfo:
    """What a run file says about itself, read without verification."""

    path: Path
    name_seq: int
    name_run: str
    data: bytes
    predicate: dict[str, Any] | None
    run_id: str | None
    first_seq: int | None
    last_seq: int | None
    first_prev: str | None
    last_id: str | None
    ids: tuple[tuple[int, str], ...]
    error: str | None


def _unreadable(path: Path, name_seq: int, name_run: str, data: bytes, error: str) -> _RunInfo:
    return _RunInfo(path, name_seq, name_run, data, None, None, None, None, None, None, (), error)


def _run_info(name_seq: int, path: Path) -> _RunInfo:
    match = _RUN_NAME.match(path.name)
    name_run = match.group(2) if match else ""
    try:
        data = path.read_bytes()
    except OSError as exc:
        return _unreadable(path, name_seq, name_run, b"", f"cannot be read: {exc.strerror}")
    try:
        envelope = loads_strict(data)
    except RecordError as exc:
        return _unreadable(path, name_seq, name_run, data, f"is not JSON: {exc.message}")
    predicate = _unverified_predicate(envelope)
    records = predicate.get("records") if predicate is not None else None
    if predicate is None or not isinstance(records, list) or not records:
        return _unreadable(
            path,
            name_seq,
            name_run,
            data,
            "holds no readable record (the envelope's payload is not a Statement with records)",
        )
    ids: list[tuple[int, str]] = []
    for record in records:
        if isinstance(record, Mapping):
            seq, rid = _int(record.get("seq")), record.get("record_id")
            if seq is not None and isinstance(rid, str):
                ids.append((seq, rid))
    first = records[0] if isinstance(records[0], Mapping) else {}
    last = records[-1] if isinstance(records[-1], Mapping) else {}
    run_id = predicate.get("run_id")
    first_prev, last_id = first.get("prev_record_id"), last.get("record_id")
    return _RunInfo(
        path=path,
        name_seq=name_seq,
        name_run=name_run,
        data=data,
        predicate=predicate,
        run_id=run_id if isinstance(run_id, str) else None,
        first_seq=_int(first.get("seq")),
        last_seq=_int(last.get("seq")),
        first_prev=first_prev if isinstance(first_prev, str) else None,
        last_id=last_id if isinstance(last_id, str) else None,
        ids=tuple(ids),
        error=None,
    )


# -- the ledger --------------------------------------------------------------------------


def _read_ledger_json(directory: Path) -> tuple[str, str | None]:
    path = directory / _LEDGER_JSON
    try:
        data = loads_strict(path.read_bytes())
    except OSError as exc:
        raise LedgerError(f"Cannot read {path}: {exc.strerror}.") from None
    except RecordError as exc:
        raise LedgerError(f"{path} is not valid JSON: {exc.message}") from None
    if not isinstance(data, dict) or data.get("format") != LEDGER_FORMAT:
        found = data.get("format") if isinstance(data, dict) else None
        raise LedgerError(
            f"{path} is not a respai ledger file of format {LEDGER_FORMAT!r} (its format "
            f"is {found!r})."
        )
    origin = data.get("origin")
    try:
        _check_origin(origin)
    except CheckpointError:
        raise LedgerError(
            f"{path} has no usable 'origin' (the ledger's id): {origin!r}."
        ) from None
    created = data.get("created")
    return str(origin), created if isinstance(created, str) else None


@contextlib.contextmanager
def _locked(directory: Path, timeout: float) -> Iterator[None]:
    path = directory / _LOCK
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as exc:
        raise LedgerError(f"Cannot open the ledger lock {path}: {exc.strerror}.") from None
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise LedgerError(
                        f"Another respai run has held the ledger lock {path} for more than "
                        f"{timeout:g} s; nothing was appended.",
                        "Wait for it to finish, then run again.",
                    ) from None
                time.sleep(0.01)
            except OSError as exc:
                raise LedgerError(
                    f"Cannot lock {path}: {exc.strerror} (the file system may not support flock)."
                ) from None
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


@dataclasses.dataclass(frozen=True)
class Appended:
    """What :meth:`Head.append` wrote.

    Attributes
    ----------
    run_file
        The run's file under ``runs/``.
    checkpoint
        The checkpoint file under ``checkpoints/``.
    first_seq, last_seq
        The run's ``seq`` range.
    size
        The number of records in the ledger now, the checkpoint's size.
    root
        The checkpoint's 32-byte RFC 6962 root.
    last_record_id
        The id of the run's last record: the next run links to it.
    """

    run_file: Path
    checkpoint: Path
    first_seq: int
    last_seq: int
    size: int
    root: bytes
    last_record_id: str


@dataclasses.dataclass(frozen=True)
class Ledger:
    """An opened ledger directory.

    Attributes
    ----------
    directory
        The ledger directory.
    origin
        The ledger's id, ``respai.local/ledger/<uuid4>``: the first line of every
        checkpoint.
    created
        When ``ledger.json`` was written (RFC 3339 UTC), or ``None``.

    Examples
    --------
    Seal and append a run under the lock (``predicate`` and ``key`` are the caller's)::

        ledger = Ledger.open(".respai")  # created when missing
        with ledger.append_lock() as head:
            envelope = seal(predicate, None, key, key_id(key.public_key()),
                            prev_record_id=head.last_record_id, start_seq=head.next_seq)
            head.append(envelope, key)
    """

    directory: Path
    origin: str
    created: str | None = None

    @classmethod
    def open(
        cls,
        directory: Path | str | None = None,
        *,
        create: bool = True,
        timeout: float = LOCK_TIMEOUT,
    ) -> Ledger:
        """Open the ledger in ``directory``, creating it when asked.

        Parameters
        ----------
        directory
            The ledger directory; ``.respai`` in the working directory when ``None``.
        create
            Create the directory, ``ledger.json`` (with a new random origin),
            ``runs/`` and ``checkpoints/`` when the ledger does not exist yet (the
            default); with ``False``, a missing ledger is an error. Creation happens
            under the lock, so two runs starting at once create one ledger.
        timeout
            Seconds to wait for the lock when creating.

        Returns
        -------
        Ledger
            The opened ledger.

        Raises
        ------
        LedgerError
            If the ledger does not exist and ``create`` is false, ``ledger.json`` is
            malformed, or it is missing while runs are present (it is never recreated
            over existing runs).
        """
        path = DEFAULT_DIRECTORY if directory is None else Path(directory)
        if (path / _LEDGER_JSON).is_file():
            return cls(path, *_read_ledger_json(path))
        if not create:
            if path.is_dir() and (path / _RUNS).is_dir():
                raise LedgerError(
                    f"The ledger {path} has no ledger.json, so its id (the checkpoints' "
                    "origin) is unknown.",
                    "Restore ledger.json from a backup; respai does not recreate it over "
                    "existing runs.",
                )
            raise LedgerError(
                f"{path} is not a respai ledger (no {_LEDGER_JSON}).",
                "Pass the directory that holds ledger.json, runs/ and checkpoints/, or "
                "record a run first to create one.",
            )
        if path.exists() and not path.is_dir():
            raise LedgerError(f"{path} exists and is not a directory, so it cannot hold a ledger.")
        try:
            path.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise LedgerError(
                f"Cannot create the ledger directory {path}: {exc.strerror}."
            ) from None
        with _locked(path, timeout):
            if (path / _LEDGER_JSON).is_file():
                return cls(path, *_read_ledger_json(path))
            runs, _, _ = _run_files(path)
            if runs:
                raise LedgerError(
                    f"The ledger {path} holds {len(runs)} run(s) but no ledger.json; "
                    "respai will not start a new ledger over them.",
                    "Restore ledger.json from a backup, or move the runs away.",
                )
            origin = ORIGIN_PREFIX + str(uuid.uuid4())
            created = format_timestamp(now_utc().replace(microsecond=0))
            info = {"format": LEDGER_FORMAT, "origin": origin, "created": created}
            try:
                # ledger.json first: a crash before it leaves no half-made ledger.
                _atomic_write(path, _LEDGER_JSON, canonical_bytes(info) + b"\n")
                (path / _RUNS).mkdir(exist_ok=True)
                (path / _CHECKPOINTS).mkdir(exist_ok=True)
            except OSError as exc:
                raise LedgerError(f"Cannot create the ledger in {path}: {exc.strerror}.") from None
            return cls(path, origin, created)

    @property
    def runs_dir(self) -> Path:
        """The ``runs/`` directory."""
        return self.directory / _RUNS

    @property
    def checkpoints_dir(self) -> Path:
        """The ``checkpoints/`` directory."""
        return self.directory / _CHECKPOINTS

    @contextlib.contextmanager
    def append_lock(self, *, timeout: float = LOCK_TIMEOUT) -> Iterator[Head]:
        """Lock the ledger and yield its head, read under the lock.

        Seal the run with ``prev_record_id=head.last_record_id`` and
        ``start_seq=head.next_seq``, then call :meth:`Head.append` before leaving the
        block. Another process calling this waits until the block ends.

        Parameters
        ----------
        timeout
            Seconds to wait for another appender.

        Yields
        ------
        Head
            The ledger's head; valid only inside the block.

        Raises
        ------
        LedgerError
            If the lock is not released in time, the newest run cannot be read, or a
            checkpoint covers more records than the ledger holds (the tail was
            removed: appending is refused so that the evidence is kept).
        """
        for sub in (self.runs_dir, self.checkpoints_dir):
            try:
                sub.mkdir(exist_ok=True)
            except OSError as exc:
                raise LedgerError(f"Cannot create {sub}: {exc.strerror}.") from None
        with _locked(self.directory, timeout):
            head = Head(self, *_read_head(self))
            try:
                yield head
            finally:
                head._active = False

    def seal_and_append(
        self,
        predicate: Mapping[str, Any],
        key: Ed25519PrivateKey,
        *,
        subjects: Sequence[Mapping[str, Any]] | None = None,
        timeout: float = LOCK_TIMEOUT,
    ) -> tuple[dict[str, Any], Appended]:
        """Seal ``predicate`` as the ledger's next run and append it, under the lock.

        Parameters
        ----------
        predicate
            The record, as :func:`respai.record.seal` takes it.
        key
            The Ed25519 private key; it signs the envelope and the checkpoint.
        subjects
            The Statement subjects, or ``None`` to derive them from the fingerprints.
        timeout
            Seconds to wait for another appender.

        Returns
        -------
        tuple
            The sealed envelope and what was written.

        Raises
        ------
        RecordError
            If the record cannot be sealed.
        LedgerError
            If it cannot be appended.
        """
        with self.append_lock(timeout=timeout) as head:
            envelope = seal(
                predicate,
                subjects,
                key,
                key_id(key.public_key()),
                prev_record_id=head.last_record_id,
                start_seq=head.next_seq,
            )
            return envelope, head.append(envelope, key)


def _read_head(ledger: Ledger) -> tuple[int, str]:
    directory = ledger.directory
    runs, _, _ = _run_files(directory)
    next_seq, last_id = 0, GENESIS
    if runs:
        name_seq, path = runs[-1]
        info = _run_info(name_seq, path)
        if (
            info.error is not None
            or info.first_seq != name_seq
            or info.last_seq is None
            or info.last_id is None
            or not is_digest_id(info.last_id)
        ):
            reason = info.error or "its records' seq or record_id are not what its name says"
            raise LedgerError(
                f"Cannot append to the ledger {directory}: the newest run file "
                f"{_rel(directory, path)} {reason}.",
                f"Run 'respai verify --ledger {directory}' to see what is wrong.",
            )
        next_seq, last_id = info.last_seq + 1, info.last_id
    checkpoints, _, _ = _checkpoint_files(directory)
    if checkpoints and checkpoints[-1][0] > next_seq:
        size, path = checkpoints[-1]
        raise LedgerError(
            f"Cannot append to the ledger {directory}: the checkpoint "
            f"{_rel(directory, path)} covers {size} records but the ledger holds "
            f"{next_seq}, so its tail was removed. Appending is refused so that the "
            "evidence is kept.",
            f"Run 'respai verify --ledger {directory}', and restore the missing runs "
            "from a backup.",
        )
    return next_seq, last_id


class Head:
    """The end of a ledger, read under its lock: where the next run goes.

    Obtained from :meth:`Ledger.append_lock`; valid only inside that block. After
    :meth:`append` it points past the run just written, so several runs may be appended
    under one lock.
    """

    __slots__ = ("_active", "_last_record_id", "_next_seq", "ledger")

    def __init__(self, ledger: Ledger, next_seq: int, last_record_id: str) -> None:
        self.ledger = ledger
        self._next_seq = next_seq
        self._last_record_id = last_record_id
        self._active = True

    @property
    def next_seq(self) -> int:
        """The ``seq`` of the next run's first record (the number of records so far)."""
        return self._next_seq

    @property
    def last_record_id(self) -> str:
        """The id of the ledger's last record, or :data:`~respai.record.GENESIS` if empty."""
        return self._last_record_id

    def __repr__(self) -> str:
        return (
            f"Head(directory={str(self.ledger.directory)!r}, next_seq={self._next_seq}, "
            f"last_record_id={self._last_record_id!r})"
        )

    def append(self, envelope: Mapping[str, Any] | bytes, key: Ed25519PrivateKey) -> Appended:
        """Write a sealed run as the ledger's next run, then a checkpoint over the ledger.

        The envelope must verify with ``key``'s public key as the run following this
        head (its first record at :attr:`next_seq`, linking to :attr:`last_record_id`).
        The run file is written first, then the checkpoint signed with ``key``, each
        atomically; a crash between them leaves a run without a checkpoint, which
        :func:`verify_ledger` reports as a note.

        Parameters
        ----------
        envelope
            The DSSE envelope, parsed, or its exact JSON bytes (written as they are).
            A parsed envelope is written as its RFC 8785 bytes and a newline.
        key
            The private key that signed the envelope; it signs the checkpoint.

        Returns
        -------
        Appended
            The files written and the checkpoint's size and root.

        Raises
        ------
        LedgerError
            If the head is used outside its lock, the envelope does not verify as the
            next run, or a file cannot be written. When the run was stored but its
            checkpoint was not, the message says so; the next run's checkpoint covers
            it.
        """
        ledger = self.ledger
        directory = ledger.directory
        if not self._active:
            raise LedgerError(
                f"The head of the ledger {directory} was used after its append_lock block "
                "ended; another run may have appended since.",
                "Call head.append inside the 'with ledger.append_lock() as head:' block.",
            )
        if isinstance(envelope, bytes | bytearray):
            data = bytes(envelope)
            try:
                parsed: Any = loads_strict(data)
            except RecordError as exc:
                raise LedgerError(f"The run to append is not JSON: {exc.message}") from None
        else:
            parsed = envelope
            data = canonical_bytes(envelope) + b"\n"
        report = verify_envelope(
            parsed,
            KeyRing.from_public_key(key.public_key()),
            expected_prev=self._last_record_id,
            expected_seq=self._next_seq,
        )
        predicate = report.predicate
        if not report.ok or predicate is None:
            details = " ".join(f"{c.name}: {c.detail}." for c in report.checks if not c.ok)
            raise LedgerError(
                f"The run cannot be appended to the ledger {directory}: it does not verify "
                f"as its next run (seq {self._next_seq}, after {self._last_record_id}) "
                f"signed by key {key_id(key.public_key())}; failed: "
                f"{', '.join(report.failed) or 'incomplete checks'}. {details}",
                "Seal it inside the append_lock block with prev_record_id="
                "head.last_record_id and start_seq=head.next_seq, and pass the signing key.",
            )
        records = predicate["records"]
        first_seq, last_seq = records[0]["seq"], records[-1]["seq"]
        name = run_file_name(first_seq, predicate["run_id"])
        final = ledger.runs_dir / name
        if final.exists():  # pragma: no cover - a new seq under the lock is a new name
            raise LedgerError(f"The run file {final} already exists; nothing was written.")
        # The Merkle frontier of the records before this run, before anything is written.
        frontier = _frontier_for(ledger, first_seq, self._last_record_id)
        try:
            run_file = _atomic_write(ledger.runs_dir, name, data)
        except OSError as exc:
            raise LedgerError(
                f"Cannot write the run file {final}: {exc.strerror}; nothing was appended."
            ) from None
        size = last_seq + 1
        self._next_seq, self._last_record_id = size, records[-1]["record_id"]
        for record in records:
            _frontier_append(frontier, record_leaf(record["record_id"]))
        root = _bag([digest for _, digest in frontier])
        text = sign_checkpoint(ledger.origin, size, root, key)
        try:
            checkpoint = _write_checkpoint(ledger.checkpoints_dir, size, text)
        except OSError as exc:
            raise LedgerError(
                f"The run was stored in {run_file}, but its checkpoint "
                f"{ledger.checkpoints_dir / f'{size}.txt'} could not be written: "
                f"{exc.strerror}. The ledger still verifies; the next run's checkpoint "
                "covers this run."
            ) from None
        _save_frontier(ledger, size, self._last_record_id, frontier)
        return Appended(
            run_file, checkpoint, first_seq, last_seq, size, root, self._last_record_id
        )


def _frontier_for(ledger: Ledger, size: int, last_id: str) -> list[tuple[int, bytes]]:
    """The Merkle frontier of the ledger's first ``size`` records, ending in ``last_id``.

    From ``tree.json`` when it describes exactly that prefix (it is a cache, written
    after each checkpoint), else recomputed from every run file.
    """
    cached = _load_frontier(ledger, size, last_id)
    if cached is not None:
        return cached
    by_seq: dict[int, str] = {}
    runs, _, _ = _run_files(ledger.directory)
    for name_seq, path in runs:
        if name_seq < size:
            for seq, rid in _run_info(name_seq, path).ids:
                by_seq.setdefault(seq, rid)
    frontier: list[tuple[int, bytes]] = []
    for seq in range(size):
        found = by_seq.get(seq)
        if found is None or not is_digest_id(found):
            raise LedgerError(
                f"Cannot checkpoint the ledger {ledger.directory}: no run file holds a "
                f"readable record at seq {seq} (a gap, a reorder or a damaged run).",
                f"Run 'respai verify --ledger {ledger.directory}' to see what is wrong.",
            )
        _frontier_append(frontier, record_leaf(found))
    return frontier


def _load_frontier(ledger: Ledger, size: int, last_id: str) -> list[tuple[int, bytes]] | None:
    if size == 0:
        return []
    try:
        data = loads_strict((ledger.directory / _TREE_JSON).read_bytes())
        if data["size"] != size or data["last_record_id"] != last_id:
            return None
        frontier = [(int(h), bytes.fromhex(d)) for h, d in data["frontier"]]
    except (OSError, RecordError, KeyError, TypeError, ValueError):
        return None
    heights = [h for h, _ in frontier]
    expected = [h for h in reversed(range(size.bit_length())) if size >> h & 1]
    if heights != expected or any(len(d) != 32 for _, d in frontier):
        return None
    return frontier


def _save_frontier(
    ledger: Ledger, size: int, last_id: str, frontier: list[tuple[int, bytes]]
) -> None:
    data = {
        "note": "cache of the Merkle frontier; verification never reads it",
        "size": size,
        "last_record_id": last_id,
        "frontier": [[h, d.hex()] for h, d in frontier],
    }
    with contextlib.suppress(OSError):  # a cache: the next append recomputes it
        _atomic_write(ledger.directory, _TREE_JSON, canonical_bytes(data) + b"\n")


# -- verification ------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class RunCheck:
    """The verification of one run file.

    Attributes
    ----------
    file
        The run file (``<ledger>/runs/000000000000-<run_id>.json``).
    run_id
        The run id its record holds, or ``None`` when unreadable.
    first_seq, last_seq
        The ``seq`` range its records hold, or ``None``.
    report
        :func:`~respai.record.verify_envelope`'s report, with the expected previous id
        and ``seq`` of the run's place in the chain.
    problems
        What is wrong with this run, each naming the file; empty when it is fine.
    """

    file: Path
    run_id: str | None
    first_seq: int | None
    last_seq: int | None
    report: VerificationReport
    problems: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        """Whether the run verifies in its place in the ledger."""
        return self.report.ok and not self.problems

    def to_json(self) -> dict[str, Any]:
        """Return the check as JSON-ready data."""
        return {
            "file": f"{_RUNS}/{self.file.name}",
            "run_id": self.run_id,
            "first_seq": self.first_seq,
            "last_seq": self.last_seq,
            "ok": self.ok,
            "problems": list(self.problems),
            "verification": self.report.to_json(),
        }


@dataclasses.dataclass(frozen=True)
class CheckpointCheck:
    """The verification of one checkpoint file.

    Attributes
    ----------
    file
        The checkpoint file (``<ledger>/checkpoints/<size>.txt``).
    size
        The size its name says.
    ok
        Whether it is signed by a trusted key and matches the ledger's first ``size``
        records.
    detail
        What was checked, or what is wrong.
    """

    file: Path
    size: int
    ok: bool
    detail: str

    def to_json(self) -> dict[str, Any]:
        """Return the check as JSON-ready data."""
        return {
            "file": f"{_CHECKPOINTS}/{self.file.name}",
            "size": self.size,
            "ok": self.ok,
            "detail": self.detail,
        }


@dataclasses.dataclass(frozen=True)
class LedgerReport:
    """Everything :func:`verify_ledger` found.

    Attributes
    ----------
    directory
        The ledger directory.
    origin
        The ledger's id from ``ledger.json``, or ``None`` when it is missing.
    size
        The number of records the ledger's runs cover (the last ``seq`` plus one).
    runs
        One check per run file, in ``seq`` order.
    checkpoints
        One check per checkpoint file, by size.
    problems
        Everything that makes the ledger fail, each naming the file and what is wrong.
    notes
        What is worth knowing but not a failure: a run without its checkpoint after a
        crash, a stray temporary file.
    """

    directory: Path
    origin: str | None
    size: int
    runs: tuple[RunCheck, ...]
    checkpoints: tuple[CheckpointCheck, ...]
    problems: tuple[str, ...]
    notes: tuple[str, ...]

    @property
    def ok(self) -> bool:
        """Whether the ledger verifies: no problems (notes do not count)."""
        return not self.problems

    @property
    def newest_checkpoint(self) -> CheckpointCheck | None:
        """The verified checkpoint with the largest size, or ``None``."""
        good = [c for c in self.checkpoints if c.ok]
        return max(good, key=lambda c: c.size) if good else None

    def to_json(self) -> dict[str, Any]:
        """Return the report as JSON-ready data (for ``respai verify --ledger --json``)."""
        newest = self.newest_checkpoint
        return {
            "ok": self.ok,
            "directory": str(self.directory),
            "origin": self.origin,
            "size": self.size,
            "newest_checkpoint": None
            if newest is None
            else {"file": f"{_CHECKPOINTS}/{newest.file.name}", "size": newest.size},
            "problems": list(self.problems),
            "notes": list(self.notes),
            "runs": [r.to_json() for r in self.runs],
            "checkpoints": [c.to_json() for c in self.checkpoints],
        }

    def lines(self) -> list[str]:
        """Return the report as lines for people, the verdict last."""
        span = f"seq 0..{self.size - 1}" if self.size else "no records"
        out = [
            f"Ledger {self.directory} ({self.origin or 'no ledger.json'}): "
            f"{len(self.runs)} run(s), {span}."
        ]
        for run in self.runs:
            status = "ok  " if run.ok else "FAIL"
            span = (
                f"seq {run.first_seq}..{run.last_seq}"
                if run.first_seq is not None and run.last_seq is not None
                else "seq ?"
            )
            failed = f"  failed: {', '.join(run.report.failed)}" if run.report.failed else ""
            out.append(f"  {status} {_RUNS}/{run.file.name}  {span}{failed}")
        newest = self.newest_checkpoint
        good = sum(c.ok for c in self.checkpoints)
        if newest is None:
            out.append(f"Checkpoints: {good} of {len(self.checkpoints)} verify.")
        else:
            out.append(
                f"Checkpoints: {good} of {len(self.checkpoints)} verify; the newest, "
                f"{_CHECKPOINTS}/{newest.file.name}, covers {newest.size} of "
                f"{self.size} record(s)."
            )
        if self.problems:
            out.append(f"Problems ({len(self.problems)}):")
            out.extend(f"  - {p}" for p in self.problems)
        if self.notes:
            out.append(f"Notes ({len(self.notes)}):")
            out.extend(f"  - {n}" for n in self.notes)
        out.append(
            "The ledger verifies."
            if self.ok
            else f"The ledger does NOT verify: {len(self.problems)} problem(s)."
        )
        return out


def _seq_span(first: int, last: int) -> str:
    return f"seq {first}" if first == last else f"seq {first}..{last}"


def _failed_details(report: VerificationReport, names: Sequence[str]) -> str:
    parts = []
    for name in names:
        check = report.check(name)
        parts.append(f"{name}: {check.detail}" if check is not None else name)
    return "; ".join(parts)


def verify_ledger(directory: Path | str, keys: KeyRing) -> LedgerReport:
    """Verify a whole ledger: every run, the links between runs, and every checkpoint.

    Each run is checked by :func:`~respai.record.verify_envelope` with the id and
    ``seq`` its place in the chain requires. Reported separately, each naming the file:
    a ``seq`` gap (a dropped run), a broken link to the previous run, run files out of
    order (names disagree with content order), an edited run (its own checks fail, the
    failed checks named), a file name whose ``seq`` or run id disagree with its content,
    two runs claiming the same ``seq``, a checkpoint that is not signed by a trusted key
    or whose root does not match the ledger's first ``size`` records, a checkpoint
    larger than the ledger (its tail was removed), and a missing ``ledger.json``.

    A run without its checkpoint (a crash between the two writes) and stray ``.tmp-*``
    files are notes, not problems.

    Parameters
    ----------
    directory
        The ledger directory.
    keys
        The public keys to trust, with validity windows.

    Returns
    -------
    LedgerReport
        ``ok`` is true when there is no problem.

    Raises
    ------
    LedgerError
        If ``directory`` does not exist or holds no ledger at all (no ``ledger.json``
        and no ``runs/``).
    """
    directory = Path(directory)
    if not directory.is_dir():
        raise LedgerError(
            f"The ledger directory {directory} does not exist or is not a directory.",
            "Pass the directory that holds ledger.json, runs/ and checkpoints/ "
            f"(by default {DEFAULT_DIRECTORY}/ in the directory where respai ran).",
        )
    has_json = (directory / _LEDGER_JSON).exists()
    if not has_json and not (directory / _RUNS).is_dir():
        raise LedgerError(
            f"{directory} is not a respai ledger: it has neither {_LEDGER_JSON} nor {_RUNS}/.",
            "Pass the directory that holds ledger.json, runs/ and checkpoints/.",
        )
    problems: list[str] = []
    notes: list[str] = []
    origin: str | None = None
    if not has_json:
        problems.append(
            f"{_LEDGER_JSON} is missing, so the ledger's id is unknown; the checkpoints "
            "are checked against the origin they name."
        )
    else:
        try:
            origin, _ = _read_ledger_json(directory)
        except LedgerError as exc:
            problems.append(exc.message)

    run_files, run_strays, run_others = _run_files(directory)
    cp_files, cp_strays, cp_others = _checkpoint_files(directory)
    root_strays = sorted(directory.glob(f"{_TMP_PREFIX}*"))
    notes.extend(
        f"{_rel(directory, stray)} is an unfinished write left by an interrupted run; "
        "it is ignored and may be deleted."
        for stray in [*root_strays, *run_strays, *cp_strays]
    )
    problems.extend(
        f"{_rel(directory, other)} is not a run or checkpoint file name "
        "(runs/<12-digit seq>-<run_id>.json, checkpoints/<size>.txt); it was not checked."
        for other in [*run_others, *cp_others]
    )

    infos = [_run_info(seq, path) for seq, path in run_files]
    run_problems: dict[Path, list[str]] = {info.path: [] for info in infos}

    def problem(info: _RunInfo, text: str) -> None:
        message = f"{_rel(directory, info.path)}: {text}"
        run_problems[info.path].append(message)
        problems.append(message)

    for info in infos:
        if info.error is not None:
            problem(info, f"{info.error}; it is not a readable signed run.")
            continue
        if info.first_seq != info.name_seq:
            problem(
                info,
                f"the file name says seq {info.name_seq} but its first record is seq "
                f"{info.first_seq} (the file was renamed or swapped).",
            )
        if info.run_id is not None and _safe_run_id(info.run_id) != info.name_run:
            problem(
                info,
                f"the file name says run {info.name_run!r} but it holds run "
                f"{info.run_id!r} (the file was renamed or swapped).",
            )

    chain = sorted(
        (i for i in infos if i.error is None and i.first_seq is not None),
        key=lambda i: (i.first_seq or 0, i.path.name),
    )
    by_name = [i for i in infos if i.error is None and i.first_seq is not None]
    if [i.path for i in by_name] != [i.path for i in chain]:
        problems.append(
            "The run files are out of order: by file name they are "
            + ", ".join(_rel(directory, i.path) for i in by_name[:_MAX_LISTED])
            + "; by the seq their records hold they are "
            + ", ".join(_rel(directory, i.path) for i in chain[:_MAX_LISTED])
            + " (runs were reordered or their files swapped)."
        )

    checks: dict[Path, RunCheck] = {}
    expected_seq, expected_prev = 0, GENESIS
    before: _RunInfo | None = None
    for info in chain:
        assert info.first_seq is not None
        after = f"after {_rel(directory, before.path)}" if before else "at the start"
        if info.first_seq > expected_seq:
            problem(
                info,
                f"seq {expected_seq}..{info.first_seq - 1} are missing {after}: a run was "
                f"dropped (this run's first record links to {info.first_prev}, which is "
                "not in the ledger).",
            )
        elif info.first_seq < expected_seq:
            problem(
                info,
                f"it starts at seq {info.first_seq}, but seq {info.first_seq}.."
                f"{expected_seq - 1} are already held by the runs before it (two runs "
                "claim the same seq: a forked or duplicated run).",
            )
        elif info.first_prev != expected_prev:
            wanted = (
                f"the last record of {_rel(directory, before.path)} has id {expected_prev} "
                "(a run before it was replaced or edited)"
                if before
                else f"the ledger's first record must link to the genesis id {GENESIS}"
            )
            problem(
                info,
                f"broken link: its first record (seq {info.first_seq}) links to "
                f"{info.first_prev}, but {wanted}.",
            )
        report = verify_envelope(
            info.data,
            keys,
            expected_prev=expected_prev if is_digest_id(expected_prev) else None,
            expected_seq=expected_seq,
        )
        own = [c.name for c in report.checks if not c.ok and c.name != "chain"]
        if "chain" in report.failed:
            alone = verify_envelope(info.data, keys)
            if "chain" in alone.failed:
                own.append("chain")
        if own:
            own.sort(key=[c.name for c in report.checks].index)
            problem(
                info,
                "the run does not verify (edited, damaged or signed by an untrusted key); "
                f"failed: {', '.join(own)}: {_failed_details(report, own)}.",
            )
        checks[info.path] = RunCheck(
            info.path,
            info.run_id,
            info.first_seq,
            info.last_seq,
            report,
            tuple(run_problems[info.path]),
        )
        if info.last_seq is not None and info.last_seq + 1 > expected_seq:
            expected_seq = info.last_seq + 1
        expected_prev = info.last_id or ""
        before = info

    for info in infos:
        if info.path not in checks:
            report = verify_envelope(info.data, keys)
            checks[info.path] = RunCheck(
                info.path,
                info.run_id,
                info.first_seq,
                info.last_seq,
                report,
                tuple(run_problems[info.path]),
            )
    in_chain = {i.path for i in chain}
    ordered = [checks[i.path] for i in chain] + [
        checks[i.path] for i in infos if i.path not in in_chain
    ]

    # The Merkle leaves: the record ids at seq 0, 1, 2, ... as far as they are contiguous.
    leaf_by_seq: dict[int, str] = {}
    for info in chain:
        for seq, rid in info.ids:
            leaf_by_seq.setdefault(seq, rid)
    size = max((i.last_seq + 1 for i in chain if i.last_seq is not None), default=0)
    contiguous: list[bytes] = []
    while len(contiguous) in leaf_by_seq and is_digest_id(leaf_by_seq[len(contiguous)]):
        contiguous.append(record_leaf(leaf_by_seq[len(contiguous)]))
    tree = _MerkleTree(contiguous)

    cp_checks: list[CheckpointCheck] = []
    for name_size, path in cp_files:
        rel = _rel(directory, path)
        check = _check_checkpoint(path, name_size, keys, origin, size, tree)
        cp_checks.append(check)
        if not check.ok:
            problems.append(f"{rel}: {check.detail}")
    newest = max((c.size for c in cp_checks if c.ok), default=0)
    if size and newest < size and all(c.ok for c in cp_checks):
        covered = (
            f"The newest checkpoint, checkpoints/{newest}.txt, covers {newest}"
            if newest
            else "No checkpoint covers any"
        )
        notes.append(
            f"{covered} of the ledger's {size} records: the last run(s) have no checkpoint "
            "(a run interrupted before writing it, or checkpoint files were deleted); the "
            "next run's checkpoint will cover them."
        )
    return LedgerReport(
        directory, origin, size, tuple(ordered), tuple(cp_checks), tuple(problems), tuple(notes)
    )


def _check_checkpoint(
    path: Path,
    name_size: int,
    keys: KeyRing,
    origin: str | None,
    size: int,
    tree: _MerkleTree,
) -> CheckpointCheck:
    try:
        text = path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return CheckpointCheck(path, name_size, False, f"cannot be read as UTF-8 text: {exc}.")
    try:
        checkpoint = verify_checkpoint(text, keys, origin=origin, source="the checkpoint")
    except CheckpointError as exc:
        return CheckpointCheck(path, name_size, False, exc.message)
    if checkpoint.size != name_size:
        return CheckpointCheck(
            path,
            name_size,
            False,
            f"the file name says size {name_size} but the signed checkpoint says "
            f"{checkpoint.size} (the file was renamed).",
        )
    if checkpoint.size > size:
        return CheckpointCheck(
            path,
            name_size,
            False,
            f"the signed checkpoint covers {checkpoint.size} records but the ledger holds "
            f"only {size}: its tail was removed ({_seq_span(size, checkpoint.size - 1)} "
            "are gone).",
        )
    if checkpoint.size > tree.size:
        return CheckpointCheck(
            path,
            name_size,
            False,
            f"the signed checkpoint covers {checkpoint.size} records, but seq {tree.size} "
            "is missing from the ledger (or unreadable), so records it commits to are gone.",
        )
    if tree.root(checkpoint.size) != checkpoint.root:
        return CheckpointCheck(
            path,
            name_size,
            False,
            f"the signed root does not match the ledger's first {checkpoint.size} records: "
            "records up to seq "
            f"{checkpoint.size - 1} were changed, replaced or re-sealed since it was signed.",
        )
    return CheckpointCheck(
        path,
        name_size,
        True,
        f"signed for {checkpoint.origin}; matches the first {checkpoint.size} records",
    )


# -- reading without keys ----------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class RunSummary:
    """One run as ``respai log`` lists it, read without verification.

    Attributes
    ----------
    file
        The run file (``<ledger>/runs/<seq>-<run_id>.json``).
    first_seq, last_seq
        The ``seq`` range of its records.
    run_id, timestamp
        The run's id and time.
    system_name, system_version
        The evaluated system, from the record's ``system``.
    dataset_name, dataset_sha256
        The dataset fingerprint.
    verdict
        The run's verdict.
    tests
        The number of test records.
    key_id
        The key the record names.
    problem
        Why the file could not be read, or ``None``.
    """

    file: Path
    first_seq: int | None = None
    last_seq: int | None = None
    run_id: str | None = None
    timestamp: str | None = None
    system_name: str | None = None
    system_version: str | None = None
    dataset_name: str | None = None
    dataset_sha256: str | None = None
    verdict: str | None = None
    tests: int = 0
    key_id: str | None = None
    problem: str | None = None

    @property
    def dataset_short(self) -> str | None:
        """``sha256:`` and the first 12 hex digits of the dataset digest, or ``None``."""
        return None if self.dataset_sha256 is None else f"sha256:{self.dataset_sha256[:12]}"

    def to_json(self) -> dict[str, Any]:
        """Return the summary as JSON-ready data (for ``respai log --json``)."""
        data = dataclasses.asdict(self)
        data["file"] = f"{_RUNS}/{self.file.name}"
        data["dataset_short"] = self.dataset_short
        return data


def _text(mapping: object, *path: str) -> str | None:
    value: Any = mapping
    for part in path:
        value = value.get(part) if isinstance(value, Mapping) else None
    return value if isinstance(value, str) else None


def _summary(info: _RunInfo) -> RunSummary:
    pred = info.predicate
    if info.error is not None or pred is None:
        return RunSummary(info.path, first_seq=info.name_seq, problem=info.error)
    records = pred.get("records")
    records = records if isinstance(records, list) else []
    verdict = _text(pred, "verdict")
    if verdict is None and records and isinstance(records[-1], Mapping):
        verdict = _text(records[-1], "verdict") or _text(records[-1], "worst_verdict")
    return RunSummary(
        file=info.path,
        first_seq=info.first_seq,
        last_seq=info.last_seq,
        run_id=info.run_id,
        timestamp=_text(pred, "timestamp"),
        system_name=_text(pred, "system", "name"),
        system_version=_text(pred, "system", "version"),
        dataset_name=_text(pred, "fingerprints", "dataset", "name"),
        dataset_sha256=_text(pred, "fingerprints", "dataset", "sha256"),
        verdict=verdict,
        tests=sum(1 for r in records if isinstance(r, Mapping) and r.get("record_type") == "test"),
        key_id=_text(pred, "key_id"),
    )


def list_runs(directory: Path | str | None = None) -> list[RunSummary]:
    """List the ledger's runs in ``seq`` order, for ``respai log``.

    Nothing is verified and no keys are needed: the summaries show what the files
    *say*. Use :func:`verify_ledger` to check that they are intact.

    Parameters
    ----------
    directory
        The ledger directory; ``.respai`` when ``None``.

    Returns
    -------
    list of RunSummary
        One per run file, by the ``seq`` in its name; an unreadable file is listed with
        its ``problem``.

    Raises
    ------
    LedgerError
        If ``directory`` is not a directory.
    """
    path = DEFAULT_DIRECTORY if directory is None else Path(directory)
    if not path.is_dir():
        raise LedgerError(
            f"The ledger directory {path} does not exist or is not a directory.",
            "Record a run first, or pass the directory that holds runs/.",
        )
    runs, _, _ = _run_files(path)
    return [_summary(_run_info(seq, p)) for seq, p in runs]


def log_lines(runs: Sequence[RunSummary]) -> list[str]:
    """Return the run summaries as aligned lines for people, oldest first.

    Examples
    --------
    >>> log_lines([])
    ['No runs in the ledger.']
    """
    if not runs:
        return ["No runs in the ledger."]
    rows = [("SEQ", "TIME", "RUN", "SYSTEM", "DATASET", "VERDICT", "TESTS", "KEY")]
    for r in runs:
        if r.problem is not None:
            rows.append(
                (str(r.first_seq), "?", r.file.name, "", "", "UNREADABLE", "", r.problem or "")
            )
            continue
        span = f"{r.first_seq}..{r.last_seq}"
        system = " ".join(x for x in (r.system_name, r.system_version) if x) or "-"
        dataset = " ".join(x for x in (r.dataset_name, r.dataset_short) if x) or "-"
        key = r.key_id.removeprefix("sha256:")[:12] if r.key_id else "-"
        rows.append(
            (
                span,
                r.timestamp or "-",
                (r.run_id or "-")[:36],
                system,
                dataset,
                r.verdict or "-",
                str(r.tests),
                key,
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    return [
        "  ".join(cell.ljust(w) for cell, w in zip(row[:-1], widths, strict=True)) + "  " + row[-1]
        for row in rows
    ]


def last_envelope(directory: Path | str | None = None) -> dict[str, Any] | None:
    """Return the envelope of the ledger's newest run (highest ``seq``), not verified.

    Returns
    -------
    dict or None
        The envelope, or ``None`` for a ledger without runs.

    Raises
    ------
    LedgerError
        If the directory does not exist or the newest run file cannot be read.
    """
    path = DEFAULT_DIRECTORY if directory is None else Path(directory)
    if not path.is_dir():
        raise LedgerError(f"The ledger directory {path} does not exist or is not a directory.")
    runs, _, _ = _run_files(path)
    return read_run(runs[-1][1]) if runs else None


def find_run(directory: Path | str | None, ref: str) -> Path:
    """Find a run by file path, run id, run id prefix, ``seq`` or position in the ledger.

    Parameters
    ----------
    directory
        The ledger directory; ``.respai`` when ``None``.
    ref
        The path of an existing file (returned as it is, the ledger is not read); a run
        id or a unique prefix of one (at least 4 characters); a ``seq`` number (the run
        holding that record); or ``-1`` for the newest run, ``-2`` for the one before,
        and so on.

    Returns
    -------
    Path
        The run file.

    Raises
    ------
    LedgerError
        If no run or more than one run matches.
    """
    if Path(ref).is_file():
        return Path(ref)
    path = DEFAULT_DIRECTORY if directory is None else Path(directory)
    if not path.is_dir():
        raise LedgerError(
            f"{ref!r} is not a file, and the ledger directory {path} to look it up in does "
            "not exist."
        )
    runs, _, _ = _run_files(path)
    if re.fullmatch(r"-[1-9][0-9]*", ref):
        back = int(ref)
        if -back > len(runs):
            raise LedgerError(
                f"The ledger {path} holds {len(runs)} run(s); there is no run {ref}."
            )
        return runs[back][1]
    if re.fullmatch(r"0|[1-9][0-9]*", ref):
        seq = int(ref)
        for info in (_run_info(s, p) for s, p in runs):
            first, last = info.first_seq, info.last_seq
            if first is not None and last is not None and first <= seq <= last:
                return info.path
        raise LedgerError(f"No run in the ledger {path} holds seq {seq}.")
    safe = _safe_run_id(ref)
    tails = [(p, p.name.split("-", 1)[1].removesuffix(".json")) for _, p in runs]
    exact = [p for p, tail in tails if tail == safe]
    if len(exact) == 1:
        return exact[0]
    matches = [p for p, tail in tails if len(ref) >= 4 and tail.startswith(safe)]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise LedgerError(
            f"No run in the ledger {path} has the run id {ref!r}.",
            "Use 'respai log' to list the runs, or pass a seq number or -1 for the newest.",
        )
    raise LedgerError(
        f"{len(matches)} runs in the ledger {path} have run ids starting with {ref!r}: "
        + ", ".join(p.name for p in matches[:_MAX_LISTED])
        + ".",
        "Give more characters of the run id.",
    )
