r"""Witness cosignatures of ledger checkpoints (C2SP tlog-cosignature, Ed25519).

A witness is someone other than the ledger's signer who keeps, for each ledger origin,
the last checkpoint it cosigned. Shown a newer checkpoint, it checks the log's signature,
recomputes the Merkle tree from the ledger's run files, checks that the new tree extends
the one it cosigned before (an RFC 6962 consistency proof, verified knowing only the old
and new roots), and only then signs. It refuses a smaller size (a rollback) and a tree
that does not extend what it saw (a fork). Readers who require cosignatures from several
independent witnesses (a quorum) know that those witnesses were all shown one history:
no split view among those who asked. A cosignature says nothing about whether the runs
are right, nor about views shown to people who asked no witness.

Formats, all from C2SP, nothing respai's own:

- the cosignature is a `signed-note <https://c2sp.org/signed-note>`_ signature line
  ``"— <witness name> " + base64(key ID || u64 time || Ed25519 signature)``, the key ID
  ``SHA-256(name || "\n" || 0x04 || public key)[:4]``, the signature over
  ``"cosignature/v1\ntime <time>\n" + checkpoint body``
  (`tlog-cosignature <https://c2sp.org/tlog-cosignature>`_);
- the witness's public key is given as a signed-note verifier key (vkey)
  ``<name>+<key ID hex>+base64(0x04 || public key)``.

Files::

    <ledger>/witness/<size>/<witness>.txt   the checkpoint with the witness's line added
    <state>/witness.json                    {"format", "name", "created", "log_keys"}
    <state>/witness.key                     the witness's private key (PKCS#8 PEM, 0600)
    <state>/witness.pub, witness.vkey       its public key, as PEM and as a vkey
    <state>/logs/<sha256(origin)>.json      the last checkpoint cosigned for that origin
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import fcntl
import hashlib
import json
import os
import re
import time as _time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)

from respai import io
from respai.ledger.checkpoint import Checkpoint, verify_checkpoint
from respai.ledger.consistency import consistency_proof, verify_consistency
from respai.ledger.errors import CheckpointError, LedgerError
from respai.ledger.layout import (
    atomic_write,
    checkpoint_files,
    read_ledger_file,
    read_ledger_json,
    rel,
    run_files,
)
from respai.ledger.merkle import MerkleTree, run_leaf
from respai.limits import MAX_CHECKPOINT_BYTES
from respai.record.keys import load_private_key, public_key_raw

__all__ = [
    "COSIGNATURE_HEADER",
    "WITNESS",
    "WITNESS_FORMAT",
    "Cosigned",
    "Witness",
    "WitnessCheck",
    "WitnessRefusal",
    "WitnessReport",
    "check_cosignatures",
    "cosign",
    "cosignature_key_id",
    "cosignature_message",
    "init_witness",
    "parse_vkey",
    "witness_vkey",
]

WITNESS = "witness"
"""The ledger's folder of cosigned checkpoints, one subfolder per checkpoint size."""

WITNESS_FORMAT = "respai-witness/1"
"""The ``format`` of a witness's ``witness.json``."""

COSIGNATURE_HEADER = "cosignature/v1"
"""The first line of the message a witness signs (C2SP tlog-cosignature, Ed25519)."""

FUTURE_TOLERANCE = 300
"""Seconds a cosignature's time may be ahead of the verifier's clock before it is refused."""

_EM_DASH = "\u2014"
_ED25519_COSIGNATURE = 0x04
_NAME = re.compile(r"^[!-*,-~]+\Z")  # printable ASCII, no space, no '+'
_MAX_FILES = 256


class WitnessRefusal(LedgerError):
    """The witness refused to cosign: a rollback, a fork, or a checkpoint it cannot check."""


def _check_name(name: object) -> str:
    if not isinstance(name, str) or not _NAME.match(name):
        raise LedgerError(
            f"The witness name {name!r} cannot name a signed note: it must be non-empty "
            "printable ASCII without spaces or '+' (for example example.org/witness1)."
        )
    return name


def cosignature_key_id(name: str, public_key: Ed25519PublicKey) -> bytes:
    r"""Return the Ed25519 cosigner key ID: ``SHA-256(name || "\n" || 0x04 || pubkey)[:4]``."""
    kind = bytes([_ED25519_COSIGNATURE])
    data = name.encode("utf-8") + b"\n" + kind + public_key_raw(public_key)
    return hashlib.sha256(data).digest()[:4]


def witness_vkey(name: str, public_key: Ed25519PublicKey) -> str:
    """Return the witness's signed-note verifier key ``name+<key ID hex>+base64(0x04||key)``."""
    _check_name(name)
    material = bytes([_ED25519_COSIGNATURE]) + public_key_raw(public_key)
    key_id = cosignature_key_id(name, public_key).hex()
    return f"{name}+{key_id}+{base64.b64encode(material).decode('ascii')}"


def parse_vkey(text: str) -> tuple[str, Ed25519PublicKey]:
    """Return ``(name, public key)`` of a witness vkey (see :func:`witness_vkey`).

    Raises
    ------
    LedgerError
        If the text is not an Ed25519 cosigner vkey or its key ID does not match.
    """
    text = text.strip()
    parts = text.split("+", 2)  # the name has no "+"; the base64 may
    bad = f"{text[:80]!r} is not a witness verifier key (name+<8 hex>+<base64 of 0x04||key>)"
    if len(parts) != 3 or not re.fullmatch(r"[0-9a-f]{8}", parts[1]):
        raise LedgerError(bad + ".")
    name = _check_name(parts[0])
    try:
        material = base64.b64decode(parts[2], validate=True)
    except (binascii.Error, ValueError):
        raise LedgerError(bad + ": its key is not base64.") from None
    if len(material) != 33 or material[0] != _ED25519_COSIGNATURE:
        raise LedgerError(
            bad + ": its key is not of type 0x04 (an Ed25519 cosignature/v1 key) "
            "followed by 32 bytes."
        )
    public = Ed25519PublicKey.from_public_bytes(material[1:])
    if cosignature_key_id(name, public).hex() != parts[1]:
        raise LedgerError(bad + ": its key ID does not match its name and key.")
    return name, public


def cosignature_message(body: str, timestamp: int) -> bytes:
    """Return the bytes a witness signs: header line, time line, checkpoint body."""
    return f"{COSIGNATURE_HEADER}\ntime {timestamp}\n{body}".encode()


def _split_note(text: str) -> tuple[str, list[str]]:
    split = text.rfind("\n\n")
    if split < 0 or not text.endswith("\n"):
        raise CheckpointError("the text is not a signed note (body, blank line, signatures)")
    return text[: split + 1], text[split + 2 : -1].split("\n")


def _cosignature_line(name: str, key: Ed25519PrivateKey, body: str, timestamp: int) -> str:
    signature = key.sign(cosignature_message(body, timestamp))
    blob = cosignature_key_id(name, key.public_key()) + timestamp.to_bytes(8, "big") + signature
    return f"{_EM_DASH} {name} {base64.b64encode(blob).decode('ascii')}\n"


# -- the witness's own folder ------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Witness:
    """A witness loaded from its state folder: name, key, and the log keys it trusts."""

    state: Path
    name: str
    key: Ed25519PrivateKey
    log_keys: tuple[Ed25519PublicKey, ...]

    @property
    def vkey(self) -> str:
        """The witness's verifier key, to give to readers (``respai verify --witness``)."""
        return witness_vkey(self.name, self.key.public_key())

    @classmethod
    def load(cls, state: Path | str) -> Witness:
        """Load the witness of the state folder ``state``.

        Raises
        ------
        LedgerError
            If the folder is not a witness's (made by :func:`init_witness`).
        """
        state = Path(state)
        path = state / "witness.json"
        try:
            data = json.loads(io.read_bounded(path, 1 << 20, "witness.json"))
        except OSError as exc:
            raise LedgerError(
                f"{state} is not a witness folder: {path} cannot be read ({exc.strerror or exc}).",
                "Make one with: respai witness init --name NAME --dir STATE --log-key PUB",
            ) from None
        except ValueError:
            raise LedgerError(f"{path} is not valid JSON.") from None
        if not isinstance(data, dict) or data.get("format") != WITNESS_FORMAT:
            raise LedgerError(f"{path} is not a witness file of format {WITNESS_FORMAT!r}.")
        keys = data.get("log_keys")
        if not isinstance(keys, list) or not keys or not all(isinstance(k, str) for k in keys):
            raise LedgerError(f"{path} lists no log key to trust.")
        try:
            log_keys = tuple(
                Ed25519PublicKey.from_public_bytes(base64.b64decode(k, validate=True))
                for k in keys
            )
        except (binascii.Error, ValueError):
            raise LedgerError(f"{path} holds a log key that is not base64 Ed25519.") from None
        key = load_private_key(state / "witness.key", None)
        return cls(state, _check_name(data.get("name")), key, log_keys)


def init_witness(state: Path | str, name: str, log_keys: Sequence[Ed25519PublicKey]) -> Witness:
    """Make a witness: a new Ed25519 key and a state folder that trusts ``log_keys``.

    Parameters
    ----------
    state
        The folder to create (it must not hold a witness already).
    name
        The witness's name, a schema-less URL by convention (``example.org/w1``).
    log_keys
        The public keys of the ledgers' signers whose checkpoints it will cosign.

    Raises
    ------
    LedgerError
        If the name is unusable, no log key is given, or the folder holds a witness.
    """
    _check_name(name)
    if not log_keys:
        raise LedgerError("A witness needs at least one log key to trust (--log-key PUB).")
    state = Path(state)
    if (state / "witness.json").exists() or (state / "witness.key").exists():
        raise LedgerError(
            f"{state} already holds a witness; respai never overwrites a witness key.",
            "Choose another --dir.",
        )
    state.mkdir(parents=True, exist_ok=True, mode=0o700)
    (state / "logs").mkdir(exist_ok=True, mode=0o700)
    key = Ed25519PrivateKey.generate()
    pem = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )
    fd = os.open(state / "witness.key", os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    os.fchmod(fd, 0o600)
    with os.fdopen(fd, "wb") as fh:
        fh.write(pem)
        fh.flush()
        os.fsync(fh.fileno())
    public = key.public_key()
    io.atomic_write(
        state / "witness.pub",
        public.public_bytes(
            serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
        ),
    )
    io.atomic_write(state / "witness.vkey", (witness_vkey(name, public) + "\n").encode())
    doc = {
        "format": WITNESS_FORMAT,
        "name": name,
        "created": int(_time.time()),
        "log_keys": [base64.b64encode(public_key_raw(k)).decode("ascii") for k in log_keys],
    }
    io.atomic_write(state / "witness.json", (json.dumps(doc, indent=2) + "\n").encode())
    return Witness(state, name, key, tuple(log_keys))


@contextmanager
def _locked(state: Path) -> Iterator[None]:
    fd = os.open(state / "lock", os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def _log_state(state: Path, origin: str) -> Path:
    return state / "logs" / f"{hashlib.sha256(origin.encode()).hexdigest()}.json"


def _last_cosigned(path: Path, origin: str) -> tuple[int, bytes] | None:
    try:
        data = json.loads(io.read_bounded(path, 1 << 20, "witness log state"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise LedgerError(
            f"The witness state {path} cannot be read ({exc}); the witness will not cosign "
            "without knowing what it cosigned before."
        ) from None
    size, root = data.get("size"), data.get("root")
    if data.get("origin") != origin or not isinstance(size, int) or not isinstance(root, str):
        raise LedgerError(f"The witness state {path} is damaged; the witness will not cosign.")
    return size, base64.b64decode(root)


# -- cosigning ---------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Cosigned:
    """What :func:`cosign` did: the checkpoint it cosigned and where the cosignature is."""

    checkpoint: Checkpoint
    previous_size: int | None
    path: Path
    timestamp: int


def _leaves(ledger: Path) -> list[bytes]:
    found, _, _ = run_files(ledger)
    leaves = []
    for _, path in found:
        try:
            leaves.append(run_leaf(read_ledger_file(path)))
        except OSError as exc:
            raise WitnessRefusal(
                f"The run file {rel(ledger, path)} cannot be read ({exc.strerror or exc}), so "
                "the witness cannot recompute the ledger's tree and does not cosign."
            ) from None
    return leaves


def _newest_checkpoint(ledger: Path) -> Path:
    found, _, _ = checkpoint_files(ledger)
    if not found:
        raise LedgerError(f"The ledger {ledger} has no checkpoint to cosign.")
    return found[-1][1]


def _read_text(path: Path) -> str:
    try:
        return io.read_bounded(path, MAX_CHECKPOINT_BYTES, "MAX_CHECKPOINT_BYTES").decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise LedgerError(f"The checkpoint {path} cannot be read: {exc}.") from None


def cosign(
    ledger: Path | str,
    state: Path | str,
    checkpoint: Path | str | None = None,
    *,
    now: int | None = None,
) -> Cosigned:
    """Cosign a ledger's checkpoint after checking it extends what the witness cosigned.

    Parameters
    ----------
    ledger
        The ledger folder; its run files are read to recompute the tree.
    state
        The witness's state folder (see :func:`init_witness`).
    checkpoint
        The checkpoint file to cosign; the ledger's newest by default.
    now
        The cosignature's time in POSIX seconds; the clock by default.

    Returns
    -------
    Cosigned
        The checkpoint, the size the witness had cosigned before, and the file written:
        ``<ledger>/witness/<size>/<witness name>.txt``, the checkpoint with the witness's
        signature line added.

    Raises
    ------
    WitnessRefusal
        If no trusted log key signed the checkpoint, the ledger's runs do not give its
        root, it is smaller than the last checkpoint cosigned (a rollback), or it does
        not extend it (a fork).
    LedgerError
        If the ledger or the state folder cannot be used.
    """
    ledger, witness = Path(ledger), Witness.load(state)
    origin, _ = read_ledger_json(ledger)
    path = Path(checkpoint) if checkpoint is not None else _newest_checkpoint(ledger)
    text = _read_text(path)
    try:
        cp = verify_checkpoint(text, witness.log_keys, origin=origin, source=str(path))
    except CheckpointError as exc:
        raise WitnessRefusal(
            f"{exc.message} The witness {witness.name} cosigns only checkpoints signed by "
            "a log key it was given at init."
        ) from None
    body, _ = _split_note(text)
    leaves = _leaves(ledger)
    if cp.size > len(leaves):
        raise WitnessRefusal(
            f"The checkpoint covers {cp.size} runs but the ledger {ledger} holds only "
            f"{len(leaves)}: the witness cannot recompute its root and does not cosign."
        )
    tree = MerkleTree(leaves[: cp.size])
    if tree.root(cp.size) != cp.root:
        raise WitnessRefusal(
            f"The checkpoint's root is not the root of the ledger's first {cp.size} run "
            "files: the runs shown are not the runs it signs, and the witness does not cosign."
        )
    stamp = int(_time.time()) if now is None else now
    with _locked(witness.state):
        log_state = _log_state(witness.state, origin)
        last = _last_cosigned(log_state, origin)
        if last is not None:
            _check_extends(witness.name, origin, last, cp, leaves)
        doc = {
            "origin": origin,
            "size": cp.size,
            "root": base64.b64encode(cp.root).decode("ascii"),
            "time": stamp,
        }
        # the state first: a cosignature never exists that the state does not remember
        io.atomic_write(log_state, (json.dumps(doc, indent=2) + "\n").encode(), mode=0o600)
    folder = ledger / WITNESS / str(cp.size)
    folder.mkdir(parents=True, exist_ok=True)
    line = _cosignature_line(witness.name, witness.key, body, stamp)
    name = re.sub(r"[^A-Za-z0-9._-]", "_", witness.name) + ".txt"
    written = atomic_write(folder, name, (text + line).encode("utf-8"))
    return Cosigned(cp, None if last is None else last[0], written, stamp)


def _check_extends(
    name: str, origin: str, last: tuple[int, bytes], cp: Checkpoint, leaves: Sequence[bytes]
) -> None:
    size, root = last
    seen = f"the witness {name} last cosigned size {size} of {origin}"
    if cp.size < size:
        raise WitnessRefusal(
            f"Rollback refused: the checkpoint has size {cp.size}, but {seen}. A log only "
            "grows; a smaller checkpoint shown now means history was cut or a stale view "
            "is being shown, and the witness does not cosign it."
        )
    if cp.size == size and cp.root != root:
        raise WitnessRefusal(
            f"Fork refused: the checkpoint has size {cp.size} and {seen} with a different "
            "root. Two different histories of one size were shown; the witness does not "
            "cosign the second."
        )
    proof = consistency_proof(leaves[: cp.size], size)
    if not verify_consistency(size, cp.size, root, cp.root, proof):
        raise WitnessRefusal(
            f"Fork refused: the checkpoint (size {cp.size}) does not extend the one {seen}: "
            "the consistency proof from the ledger's runs fails, so its first runs are not "
            "the ones the witness saw. The witness does not cosign it."
        )


# -- verifying a quorum ------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class WitnessCheck:
    """One trusted witness's cosignature on the newest checkpoint: valid or why not."""

    name: str
    key_id: str
    ok: bool
    detail: str
    timestamp: int | None = None

    def to_json(self) -> dict[str, Any]:
        """JSON-ready data."""
        return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True)
class WitnessReport:
    """The cosignatures of a ledger's newest checkpoint against a quorum."""

    size: int | None
    quorum: int
    checks: tuple[WitnessCheck, ...]
    problem: str | None = None

    @property
    def signed(self) -> int:
        """How many distinct trusted witnesses cosigned the newest checkpoint."""
        return sum(c.ok for c in self.checks)

    @property
    def ok(self) -> bool:
        """Whether at least ``quorum`` distinct trusted witnesses cosigned it."""
        return self.problem is None and self.signed >= self.quorum

    def lines(self) -> list[str]:
        """One line per witness, then the quorum line."""
        out = [
            f"{'ok  ' if c.ok else 'FAIL'}  witness {c.name} ({c.key_id}): {c.detail}"
            for c in self.checks
        ]
        if self.problem is not None:
            out.append(f"FAIL  witnesses: {self.problem}")
        else:
            out.append(
                f"{'ok  ' if self.ok else 'FAIL'}  quorum: {self.signed} of {len(self.checks)} "
                f"trusted witness(es) cosigned checkpoint {self.size}, {self.quorum} required"
            )
        return out

    def to_json(self) -> dict[str, Any]:
        """JSON-ready data."""
        return {
            "ok": self.ok,
            "checkpoint_size": self.size,
            "quorum": self.quorum,
            "signed": self.signed,
            "witnesses": [c.to_json() for c in self.checks],
            "problem": self.problem,
        }


def check_cosignatures(
    ledger: Path | str,
    witnesses: Sequence[tuple[str, Ed25519PublicKey]],
    quorum: int,
    *,
    now: int | None = None,
) -> WitnessReport:
    """Check that ``quorum`` distinct trusted witnesses cosigned the ledger's newest checkpoint.

    The checkpoint itself (its log signature, its root against the runs) is
    :func:`~respai.ledger.verify_ledger`'s check; this one reads the cosigned copies in
    ``<ledger>/witness/<size>/``, keeps those whose body is exactly the newest checkpoint's,
    and verifies each trusted witness's ``cosignature/v1`` line on it.

    Parameters
    ----------
    ledger
        The ledger folder.
    witnesses
        The trusted witnesses' ``(name, public key)`` (see :func:`parse_vkey`); the same
        key given twice counts once.
    quorum
        How many of them must have cosigned.
    now
        The verifier's time in POSIX seconds (a cosignature dated more than
        :data:`FUTURE_TOLERANCE` seconds later is refused); the clock by default.
    """
    ledger = Path(ledger)
    clock = int(_time.time()) if now is None else now
    unique: dict[bytes, tuple[str, Ed25519PublicKey]] = {}
    for name, public in witnesses:
        unique.setdefault(public_key_raw(public), (name, public))
    try:
        newest = _newest_checkpoint(ledger)
        body, _ = _split_note(_read_text(newest))
    except LedgerError as exc:
        return WitnessReport(None, quorum, (), f"no checkpoint to check: {exc.message}")
    size = int(newest.stem)
    lines = _cosignature_lines(ledger / WITNESS / str(size), body)
    checks = []
    for name, public in unique.values():
        key_id = cosignature_key_id(name, public)
        checks.append(_check_one(name, public, key_id, body, lines, clock))
    return WitnessReport(size, quorum, tuple(checks))


def _cosignature_lines(folder: Path, body: str) -> list[tuple[str, bytes]]:
    out: list[tuple[str, bytes]] = []
    if not folder.is_dir():
        return out
    for path in sorted(folder.iterdir())[:_MAX_FILES]:
        if path.suffix != ".txt" or path.name.startswith("."):
            continue
        try:
            note_body, signatures = _split_note(_read_text(path))
        except LedgerError:
            continue
        if note_body != body:  # a cosignature of another checkpoint body counts for nothing
            continue
        for line in signatures:
            parts = line.split(" ")
            if len(parts) != 3 or parts[0] != _EM_DASH:
                continue
            try:
                out.append((parts[1], base64.b64decode(parts[2], validate=True)))
            except (binascii.Error, ValueError):
                continue
    return out


def _check_one(
    name: str,
    public: Ed25519PublicKey,
    key_id: bytes,
    body: str,
    lines: Sequence[tuple[str, bytes]],
    clock: int,
) -> WitnessCheck:
    mine = [blob for line_name, blob in lines if line_name == name and blob[:4] == key_id]
    if not mine:
        return WitnessCheck(name, key_id.hex(), False, "no cosignature on this checkpoint")
    why = "its cosignature does not verify (changed, or over another checkpoint)"
    for blob in mine:
        if len(blob) != 4 + 8 + 64:
            continue
        stamp = int.from_bytes(blob[4:12], "big")
        try:
            public.verify(blob[12:], cosignature_message(body, stamp))
        except InvalidSignature:
            continue
        if stamp > clock + FUTURE_TOLERANCE:
            why = f"its cosignature is dated {stamp}, later than now ({clock})"
            continue
        return WitnessCheck(name, key_id.hex(), True, f"cosigned at time {stamp}", stamp)
    return WitnessCheck(name, key_id.hex(), False, why)
