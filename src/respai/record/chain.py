"""The hash chain over a run's records: record ids, links and the run brackets.

Each record's ``record_id`` is ``"sha256:" + hex(SHA-256(JCS(record without
record_id)))``. The record carries ``prev_record_id``, so its id covers its content and
the id before it. A run is bracketed by a ``run_start`` and a ``run_end`` record; the
``run_end`` lists the ids of every record before it in the run, so a dropped, added or
reordered test record changes what the signed ``run_end`` says.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from respai.record.canonical import canonical_bytes, canonical_object, jsonable
from respai.record.errors import RecordError

__all__ = [
    "CHAIN_FIELDS",
    "GENESIS",
    "RECORD_TYPES",
    "digest_id",
    "is_digest_id",
    "link_records",
    "record_id",
]

GENESIS = "sha256:" + "0" * 64
"""The ``prev_record_id`` of the first record ever written (global ``seq`` 0)."""

RECORD_TYPES = ("run_start", "test", "run_end")
"""The record types of a run, in the order they appear."""

CHAIN_FIELDS = ("seq", "run_seq", "run_id", "prev_record_id", "record_id")
"""The fields :func:`link_records` writes into every record."""

_DIGEST_ID = re.compile(r"^sha256:[0-9a-f]{64}$")


def digest_id(data: bytes) -> str:
    """Return ``"sha256:" + hex(SHA-256(data))``.

    Examples
    --------
    >>> digest_id(b"")[:23]
    'sha256:e3b0c44298fc1c14'
    """
    return "sha256:" + hashlib.sha256(data).hexdigest()


def is_digest_id(value: object) -> bool:
    """Return whether ``value`` is a string ``sha256:`` followed by 64 lowercase hex digits."""
    return isinstance(value, str) and _DIGEST_ID.match(value) is not None


def record_id(record: Mapping[str, Any]) -> str:
    """Return the id of ``record``: the SHA-256 of its canonical bytes without ``record_id``.

    Parameters
    ----------
    record
        One record; a ``record_id`` key, if present, is left out of the hash.

    Returns
    -------
    str
        ``"sha256:"`` followed by 64 lowercase hex digits.

    Examples
    --------
    >>> record_id({"a": 1}) == record_id({"a": 1, "record_id": "anything"})
    True
    """
    return _id_of({k: canonical_bytes(v) for k, v in record.items() if k != "record_id"})


def _id_of(members: Mapping[str, bytes]) -> str:
    """The record id from the canonical bytes of each member except ``record_id``."""
    return digest_id(canonical_object(members))


def link_records(
    records: Sequence[Mapping[str, Any]],
    *,
    run_id: str,
    prev_record_id: str,
    start_seq: int,
) -> list[dict[str, Any]]:
    """Return copies of one run's records, chained and with their ids.

    Each copy gets ``seq`` (global, contiguous from ``start_seq``), ``run_seq`` (0-based
    within the run), ``run_id``, ``prev_record_id`` (the previous record's id; the first
    gets ``prev_record_id``) and finally ``record_id``. The ``run_end`` record's
    ``record_count`` and ``record_ids`` (the ids of every record before it, in order)
    are filled in before it is hashed.

    Parameters
    ----------
    records
        The run: a ``run_start`` record, any number of ``test`` records, then a
        ``run_end`` record. Chain fields already present are overwritten, except that a
        different ``run_id`` is refused.
    run_id
        The run's identity, written into every record.
    prev_record_id
        The id of the record this run follows: :data:`GENESIS` for the first run of a
        ledger, else the last id of the previous run.
    start_seq
        The global sequence number of the run's first record; 0 exactly when
        ``prev_record_id`` is :data:`GENESIS`.

    Returns
    -------
    list of dict
        New records; the input is not modified.

    Raises
    ------
    RecordError
        If the run is not bracketed by ``run_start`` and ``run_end``, a record has an
        unknown type or a different ``run_id``, or the link arguments are malformed.
    """
    return _link(
        records, jsonable, run_id=run_id, prev_record_id=prev_record_id, start_seq=start_seq
    )


def _link(
    records: Sequence[Mapping[str, Any]],
    copy: Callable[[Mapping[str, Any]], dict[str, Any]],
    *,
    run_id: str,
    prev_record_id: str,
    start_seq: int,
    encoded: list[bytes] | None = None,
) -> list[dict[str, Any]]:
    """Chain ``records`` as :func:`link_records` does, each record copied by ``copy``.

    ``copy`` is :func:`jsonable` (a deep conversion), or ``dict`` for records that are
    plain JSON values already. With ``encoded``, each linked record's canonical bytes
    (``record_id`` included) are appended to it, from the same member bytes its id was
    hashed from, so a caller that signs the records need not serialise them again.
    """
    given_run: object = run_id  # checked at run time: callers pass parsed JSON
    if not isinstance(given_run, str) or not given_run:
        raise RecordError(f"The run_id must be a non-empty string, not {run_id!r}.")
    if not is_digest_id(prev_record_id):
        raise RecordError(
            f"The prev_record_id {prev_record_id!r} is not 'sha256:' and 64 lowercase hex digits."
        )
    given_seq: object = start_seq
    if isinstance(given_seq, bool) or not isinstance(given_seq, int) or given_seq < 0:
        raise RecordError(f"The start_seq must be an integer >= 0, not {start_seq!r}.")
    if (start_seq == 0) != (prev_record_id == GENESIS):
        raise RecordError(
            f"A run starting at seq {start_seq} cannot follow {prev_record_id}: only the "
            "record at seq 0 links to the genesis id, and it must.",
            "Pass the previous run's last record id and its seq + 1, or GENESIS and 0.",
        )
    if len(records) < 2:
        raise RecordError(
            f"A run needs at least a run_start and a run_end record; got {len(records)}."
        )
    linked: list[dict[str, Any]] = []
    prev = prev_record_id
    last = len(records) - 1
    for i, original in enumerate(records):
        if not isinstance(original, Mapping):
            raise RecordError(f"The record at $.records[{i}] is not an object.")
        record: dict[str, Any] = copy(original)
        kind = record.get("record_type")
        expected = "run_start" if i == 0 else "run_end" if i == last else "test"
        if kind != expected:
            raise RecordError(
                f"The record at $.records[{i}] has record_type {kind!r}; a run is one "
                "run_start, then test records, then one run_end, so it must be "
                f"{expected!r}."
            )
        if record.get("run_id", run_id) != run_id:
            raise RecordError(
                f"The record at $.records[{i}] belongs to run {record['run_id']!r}, not "
                f"{run_id!r}."
            )
        record.pop("record_id", None)
        record.update(seq=start_seq + i, run_seq=i, run_id=run_id, prev_record_id=prev)
        if i == last:
            record["record_count"] = len(linked)
            record["record_ids"] = [r["record_id"] for r in linked]
        members = {k: canonical_bytes(v) for k, v in record.items()}  # record_id popped
        record["record_id"] = _id_of(members)
        if encoded is not None:
            members["record_id"] = canonical_bytes(record["record_id"])
            encoded.append(canonical_object(members))
        prev = record["record_id"]
        linked.append(record)
    return linked
