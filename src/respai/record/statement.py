"""The in-toto Statement that carries a record, and sealing it into a signed envelope."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from respai.record.canonical import (
    MAX_JSON_BYTES,
    canonical_bytes,
    canonical_object,
    jsonable,
    plain_shared,
)
from respai.record.chain import GENESIS, _link
from respai.record.dsse import sign_envelope
from respai.record.errors import RecordError
from respai.record.keys import key_id as compute_key_id
from respai.record.schema import validate_predicate

__all__ = [
    "PREDICATE_TYPE",
    "STATEMENT_TYPE",
    "build_statement",
    "fingerprint_digests",
    "seal",
    "subjects_from_fingerprints",
]

STATEMENT_TYPE = "https://in-toto.io/Statement/v1"
"""The ``_type`` of an in-toto Statement v1."""

PREDICATE_TYPE = "https://respai.org/evidence-record/v1"
"""The ``predicateType`` of a respai evidence record."""

_SHA256_HEX = re.compile(r"^[0-9a-f]{64}$")

#: Bytes of a DSSE envelope besides its base64 payload (type, key id, signature), rounded up.
_ENVELOPE_OVERHEAD = 1024


def _check_subjects(subjects: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    out: list[Any] = jsonable(list(subjects))
    if not out:
        raise RecordError("A Statement needs at least one subject (the dataset).")
    for i, subject in enumerate(out):
        where = f"$.subject[{i}]"
        if not isinstance(subject, dict) or not isinstance(subject.get("name"), str):
            raise RecordError(f"{where} must be an object with a string 'name'.")
        digest = subject.get("digest")
        if not isinstance(digest, dict) or not isinstance(digest.get("sha256"), str):
            raise RecordError(f"{where}.digest must be an object with a 'sha256' string.")
        if not _SHA256_HEX.match(digest["sha256"]):
            raise RecordError(f"{where}.digest.sha256 is not 64 lowercase hex digits.")
    return out


def build_statement(
    predicate: Mapping[str, Any], subjects: Sequence[Mapping[str, Any]]
) -> dict[str, Any]:
    """Return an in-toto Statement v1 carrying ``predicate`` about ``subjects``.

    Parameters
    ----------
    predicate
        The record.
    subjects
        What the record is about, e.g. ``{"name": "dataset:cases.csv", "digest":
        {"sha256": "<64 hex>"}}``.

    Returns
    -------
    dict
        ``{"_type", "subject", "predicateType", "predicate"}``, as plain JSON values.

    Raises
    ------
    RecordError
        If there is no subject, or a subject has no name or no SHA-256 digest.
    """
    return _statement(jsonable(predicate), subjects)


def _statement(plain: dict[str, Any], subjects: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """:func:`build_statement` of a predicate that is plain JSON values already."""
    return {
        "_type": STATEMENT_TYPE,
        "subject": _check_subjects(subjects),
        "predicateType": PREDICATE_TYPE,
        "predicate": plain,
    }


def fingerprint_digests(fingerprints: Any) -> dict[str, str]:
    """Return ``{"dataset": hex, "model": hex}`` (model only when present) from fingerprints.

    Anything malformed is left out; the schema reports it.
    """
    out: dict[str, str] = {}
    if not isinstance(fingerprints, Mapping):
        return out
    for name in ("dataset", "model"):
        entry = fingerprints.get(name)
        if isinstance(entry, Mapping) and isinstance(entry.get("sha256"), str):
            out[name] = entry["sha256"]
    return out


def subjects_from_fingerprints(fingerprints: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Return the Statement subjects for a predicate's dataset and model fingerprints.

    Examples
    --------
    >>> subjects_from_fingerprints({"dataset": {"name": "cases.csv", "sha256": "ab" * 32},
    ...                             "model": None})[0]["name"]
    'dataset:cases.csv'
    """
    subjects = []
    for kind in ("dataset", "model"):
        entry = fingerprints.get(kind)
        if isinstance(entry, Mapping) and isinstance(entry.get("sha256"), str):
            name = entry.get("name", kind)
            subjects.append({"name": f"{kind}:{name}", "digest": {"sha256": entry["sha256"]}})
    return subjects


def _payload(statement: Mapping[str, Any], encoded: Sequence[bytes]) -> bytes:
    """``canonical_bytes(statement)``, with the predicate's records given as ``encoded``.

    The records were serialised when their ids were hashed; the rest of the Statement is
    serialised here, and :func:`~respai.record.canonical.canonical_object` puts the two
    together into the same bytes as serialising the whole (``respai verify`` checks that
    every payload is canonical).
    """
    predicate = statement["predicate"]
    members = {k: canonical_bytes(v) for k, v in predicate.items() if k != "records"}
    members["records"] = b"".join([b"[", b",".join(encoded), b"]"])
    outer = {k: canonical_bytes(v) for k, v in statement.items() if k != "predicate"}
    outer["predicate"] = canonical_object(members)
    return canonical_object(outer)


def seal(
    predicate: Mapping[str, Any],
    subjects: Sequence[Mapping[str, Any]] | None,
    key: Ed25519PrivateKey,
    key_id: str,
    *,
    prev_record_id: str = GENESIS,
    start_seq: int = 0,
) -> dict[str, Any]:
    """Chain a run's records, check the record against the schema, and sign it.

    Parameters
    ----------
    predicate
        The record. Its ``records`` (run_start, tests, run_end) are linked with
        :func:`~respai.record.chain.link_records` using ``predicate["run_id"]``. A
        missing ``key_id`` is filled in.
    subjects
        The Statement subjects, or ``None`` to derive them from
        ``predicate["fingerprints"]`` (dataset, and model when present).
    key
        The Ed25519 private key.
    key_id
        The key's id; it must be the id of ``key`` and of ``predicate["key_id"]``.
    prev_record_id
        The id the run's first record links to: :data:`GENESIS` for a first run.
    start_seq
        The global ``seq`` of the run's first record.

    Returns
    -------
    dict
        The DSSE envelope, whose payload is the canonical bytes of the Statement.

    Raises
    ------
    RecordError
        If a value has no canonical form, the run is not bracketed, the key ids
        disagree, the subjects do not match the fingerprints, or the predicate breaks
        the schema (every violation is listed).
    """
    actual = compute_key_id(key.public_key())
    if key_id != actual:
        raise RecordError(f"The key id {key_id!r} is not the id of the signing key ({actual}).")
    # a fresh top level over the predicate's own plain values (nothing below is changed
    # in place: the records are linked as shallow copies), so it is not held twice
    plain = plain_shared(predicate)
    if not isinstance(plain, dict):
        raise RecordError("The record must be a JSON object, with its records in $.records.")
    pred: dict[str, Any] = dict(plain)
    pred.setdefault("key_id", key_id)
    if pred["key_id"] != key_id:
        raise RecordError(
            f"The record names the key {pred['key_id']!r} but is being signed with {key_id}."
        )
    records = pred.get("records")
    if not isinstance(records, list):
        raise RecordError("$.records must be a list: run_start, the test records, run_end.")
    encoded: list[bytes] = []  # each linked record's canonical bytes, serialised once
    pred["records"] = _link(
        records,
        dict,
        run_id=pred.get("run_id", ""),
        prev_record_id=prev_record_id,
        start_seq=start_seq,
        encoded=encoded,
    )
    problems = validate_predicate(pred)
    if problems:
        raise RecordError(
            f"The record breaks its schema in {len(problems)} place(s): " + "; ".join(problems)
        )
    if subjects is None:
        subjects = subjects_from_fingerprints(pred["fingerprints"])
    statement = _statement(pred, subjects)
    given = {s["digest"]["sha256"] for s in statement["subject"]}
    expected = set(fingerprint_digests(pred["fingerprints"]).values())
    if given != expected:
        raise RecordError(
            "The Statement subjects do not match the dataset and model fingerprints: "
            f"subjects {sorted(given)}, fingerprints {sorted(expected)}."
        )
    payload = _payload(statement, encoded)
    envelope_bytes = 4 * -(-len(payload) // 3) + _ENVELOPE_OVERHEAD  # base64, key id, signature
    if envelope_bytes > MAX_JSON_BYTES:
        groupings = (pred.get("counts") or {}).get("groupings") or {}
        groups = sum(
            len(g.get("groups") or ()) or int(g.get("group_count") or 0)
            for g in groupings.values()
            if isinstance(g, dict)
        )
        per_group = f" (about {envelope_bytes / groups / 1024:,.1f} KiB each)" if groups else ""
        raise RecordError(
            f"The record would be {envelope_bytes / 2**20:,.0f} MiB as a file, more than "
            f"the {MAX_JSON_BYTES // 2**20} MiB (MAX_JSON_BYTES) any respai reader accepts "
            f"(verify, report, pack, export), so it could never be checked; it holds "
            f"{groups:,} groups over {len(groupings)} grouping(s){per_group}.",
            "Declare fewer values (group rare ones together, or leave them out and let "
            "max_left_out account for them), or evaluate the attributes in separate specs.",
        )
    return sign_envelope(payload, key, key_id)
