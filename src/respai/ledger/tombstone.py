"""Tombstones: a run removed after its retention ended, recorded so the ledger still verifies.

Removing a run (``respai ledger remove``) deletes ``runs/<file>`` and writes
``tombstones/<file>``: a DSSE envelope, signed with the remover's key, whose payload
states what the run was (its Merkle leaf, the SHA-256 of the run file; its run id, its
first and last record ids and ``seq``), the retention that allowed its removal (the
latest ``keep_until`` of its record and the clocks that set it), the reason and the
time. Verification puts the tombstone in the run's place: the next run's link to the
removed run's last record id, and every checkpoint's Merkle root recomputed with the
tombstone's leaf, must still match. A tombstone whose leaf is not the run's fails the
checkpoints that cover it; one signed before the run's ``keep_until`` had passed, one
whose signature fails, and one next to a run file that is still there are problems.

What a tombstone proves and does not: the checkpoints prove its leaf was the removed
run's; the rest (the retention dates, the reason) is the remover's signed statement.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from respai.ledger.layout import RUNS, RunInfo, read_ledger_file, rel, run_files
from respai.ledger.merkle import run_leaf
from respai.record import (
    KeyRing,
    RecordError,
    envelope_payload,
    format_timestamp,
    loads_strict,
    parse_timestamp,
    sign_envelope,
    signature_valid,
)

__all__ = [
    "TOMBSTONES",
    "TOMBSTONE_PAYLOAD_TYPE",
    "TOMBSTONE_TYPE",
    "Tombstone",
    "build_tombstone",
    "ledger_entries",
    "read_tombstones",
]

TOMBSTONES = "tombstones"
"""The ledger's folder of tombstones, one per removed run, named as the run file was."""
TOMBSTONE_PAYLOAD_TYPE = "application/vnd.respai.tombstone+json"
TOMBSTONE_TYPE = "https://respai.dev/tombstone/v1"

_NAME = re.compile(r"^([0-9]{12,})-([A-Za-z0-9._-]+)\.json$")
_HEX = re.compile(r"^[0-9a-f]{64}$")
_FIELDS = (
    "_type",
    "run_file",
    "run_id",
    "leaf_sha256",
    "first_seq",
    "last_seq",
    "first_prev_record_id",
    "first_record_id",
    "last_record_id",
    "run_timestamp",
    "keep_until",
    "retention",
    "reason",
    "removed_at",
    "key_id",
)


@dataclasses.dataclass(frozen=True)
class Tombstone:
    """A verified tombstone: a removed run's place in the ledger and why it is gone.

    Attributes
    ----------
    path
        ``<ledger>/tombstones/<run file name>``.
    statement
        The signed payload (see the module's description for its fields).
    """

    path: Path
    statement: Mapping[str, Any]

    @property
    def leaf(self) -> bytes:
        """The removed run's Merkle leaf (the SHA-256 of its file)."""
        return bytes.fromhex(str(self.statement["leaf_sha256"]))

    def info(self) -> RunInfo:
        """The removed run as the chain and the Merkle tree see it (no bytes, no record)."""
        s = self.statement
        match = _NAME.match(self.path.name)
        return RunInfo(
            path=self.path,
            name_seq=int(match.group(1)) if match else -1,
            name_run=match.group(2) if match else "",
            data=b"",
            predicate=None,
            run_id=str(s["run_id"]),
            first_seq=int(s["first_seq"]),
            last_seq=int(s["last_seq"]),
            first_prev=str(s["first_prev_record_id"]),
            last_id=str(s["last_record_id"]),
            error=None,
        )

    def text(self) -> str:
        """One line for people: what was removed, when, under which retention, by whom."""
        s = self.statement
        names = ", ".join(str(n) for n in s["retention"]) or "?"
        return (
            f"run {s['run_id']} ({RUNS}/{s['run_file']}, seq {s['first_seq']}..{s['last_seq']}) "
            f"removed on {str(s['removed_at'])[:10]} under retention {names} (kept until "
            f"{s['keep_until']}), reason: {s['reason']!r} (tombstone signed by "
            f"{str(s['key_id']).removeprefix('sha256:')[:12]})"
        )


def build_tombstone(
    run: RunInfo,
    *,
    keep_until: str,
    retention: list[str],
    reason: str,
    removed_at: dt.datetime,
    key: Ed25519PrivateKey,
    key_id: str,
) -> bytes:
    """The signed tombstone (DSSE envelope bytes) of ``run``, removed at ``removed_at``."""
    records = (run.predicate or {}).get("records") or [{}]
    first = records[0] if isinstance(records[0], Mapping) else {}
    statement = {
        "_type": TOMBSTONE_TYPE,
        "run_file": run.path.name,
        "run_id": run.run_id,
        "leaf_sha256": run_leaf(run.data).hex(),
        "first_seq": run.first_seq,
        "last_seq": run.last_seq,
        "first_prev_record_id": run.first_prev,
        "first_record_id": first.get("record_id"),
        "last_record_id": run.last_id,
        "run_timestamp": (run.predicate or {}).get("timestamp"),
        "keep_until": keep_until,
        "retention": retention,
        "reason": reason,
        "removed_at": format_timestamp(removed_at),
        "key_id": key_id,
    }
    payload = json.dumps(statement, sort_keys=True, ensure_ascii=False).encode("utf-8")
    envelope = sign_envelope(payload, key, key_id, payload_type=TOMBSTONE_PAYLOAD_TYPE)
    return (json.dumps(envelope, indent=2, sort_keys=True) + "\n").encode("utf-8")


def _check(path: Path, keys: KeyRing | None) -> tuple[Tombstone | None, str | None]:
    """The tombstone at ``path`` when it verifies, else ``None`` and what is wrong."""
    try:
        envelope = loads_strict(read_ledger_file(path))
        if not isinstance(envelope, dict) or envelope.get("payloadType") != (
            TOMBSTONE_PAYLOAD_TYPE
        ):
            return None, f"is not a tombstone envelope (payloadType {TOMBSTONE_PAYLOAD_TYPE})"
        s = loads_strict(envelope_payload(envelope))
    except OSError as exc:
        return None, f"cannot be read: {exc.strerror}"
    except RecordError as exc:
        return None, f"is not a readable tombstone: {exc.message}"
    if not isinstance(s, dict) or s.get("_type") != TOMBSTONE_TYPE or set(s) != set(_FIELDS):
        return None, "does not hold a tombstone statement with the expected fields"
    ints = all(isinstance(s[k], int) and not isinstance(s[k], bool) for k in _NAME_INTS)
    texts = all(isinstance(s[k], str) for k in _TEXTS)
    if not (ints and texts and isinstance(s["retention"], list) and _HEX.match(s["leaf_sha256"])):
        return None, "has a field of the wrong type"
    if s["run_file"] != path.name:
        return None, f"names the run file {s['run_file']!r}, not its own name"
    match = _NAME.match(path.name)
    if match is None or int(match.group(1)) != s["first_seq"]:
        return None, f"says the run started at seq {s['first_seq']}, not as its name says"
    try:
        removed = parse_timestamp(s["removed_at"])
        keep = dt.date.fromisoformat(s["keep_until"])
    except (RecordError, ValueError):
        return None, "has an unreadable removed_at or keep_until"
    if keys is not None:
        public, why = keys.find(s["key_id"], removed)
        if public is None or not signature_valid(envelope, public):
            detail = why if public is None else "the signature does not verify (edited or forged)"
            return None, f"is not signed by a trusted key ({detail})"
    if removed.date() <= keep:
        return None, (
            f"was signed on {removed.date()}, but the run had to be kept until {keep}: "
            "it was removed before its retention ended"
        )
    return Tombstone(path, s), None


_NAME_INTS = ("first_seq", "last_seq")
_TEXTS = (
    "run_id",
    "first_prev_record_id",
    "last_record_id",
    "keep_until",
    "reason",
    "removed_at",
    "key_id",
)


def read_tombstones(
    directory: Path, keys: KeyRing | None = None
) -> tuple[list[Tombstone], list[str]]:
    """The ledger's tombstones that verify, and a problem for each one that does not.

    With ``keys`` ``None`` (``respai log``, which verifies nothing), the signature is
    not checked: a readable tombstone is listed as it says.
    """
    folder = directory / TOMBSTONES
    found: list[Tombstone] = []
    problems: list[str] = []
    if not folder.is_dir():
        return found, problems
    for path in sorted(folder.iterdir()):
        if not _NAME.match(path.name):
            problems.append(f"{rel(directory, path)} is not a tombstone file name.")
            continue
        if (directory / RUNS / path.name).exists():
            problems.append(
                f"{rel(directory, path)}: the run {RUNS}/{path.name} it says was removed is "
                "still in the ledger."
            )
            continue
        stone, problem = _check(path, keys)
        if stone is None:
            problems.append(f"{rel(directory, path)}: {problem}.")
        else:
            found.append(stone)
    return found, problems


def ledger_entries(directory: Path) -> list[tuple[int, Path, Tombstone | None]]:
    """The ledger's runs and its removed runs' tombstones, by the ``seq`` in their names.

    For the appender (:mod:`respai.ledger.store`): ``(seq, path, None)`` for a run file,
    ``(seq, path, tombstone)`` for a removed run, read without a signature check (the
    appender checks its own checkpoint's root over them).
    """
    runs, _, _ = run_files(directory)
    stones, _ = read_tombstones(directory, None)
    entries: list[tuple[int, Path, Tombstone | None]] = [(seq, path, None) for seq, path in runs]
    entries.extend((stone.info().name_seq, stone.path, stone) for stone in stones)
    entries.sort(key=lambda e: (e[0], e[1].name))
    return entries
