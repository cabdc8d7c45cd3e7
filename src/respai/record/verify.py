"""Verify a signed record from the envelope alone: nine named checks, every failure named.

The checks, in order:

``envelope``
    The DSSE envelope's shape and payload type; nothing else runs when its payload
    cannot be decoded.
``signature``
    Some signature verifies with a key from the ring that was valid at the record's
    timestamp and is the key the record names.
``canonical_payload``
    The payload bytes are the RFC 8785 canonical bytes of themselves parsed strictly;
    nothing after it runs when the payload is not strict JSON.
``statement``
    The in-toto Statement's ``_type``, ``predicateType`` and subject digests.
``schema``
    The predicate against the shipped JSON Schema.
``record_id``
    Every record's id recomputed from its content.
``chain``
    ``seq`` and ``run_seq`` contiguous, every ``prev_record_id`` the id before it, the
    first linking to the genesis id or to the expected previous id.
``run_brackets``
    One ``run_start`` first, one ``run_end`` last listing exactly the ids before it,
    every record in the record's run.
``subjects``
    The Statement's subject digests equal the dataset and model fingerprints.

Verification needs only the envelope and the public keys: it imports nothing of the
statistics or rules.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Callable, Mapping
from typing import Any

from respai.record.canonical import canonical_bytes, loads_strict
from respai.record.chain import GENESIS, is_digest_id, record_id
from respai.record.dsse import PAYLOAD_TYPE, b64decode_any, signature_verifies
from respai.record.errors import RecordError, VerificationError
from respai.record.keys import KeyEntry, KeyRing
from respai.record.schema import validate_predicate
from respai.record.statement import PREDICATE_TYPE, STATEMENT_TYPE, fingerprint_digests
from respai.record.times import parse_timestamp

__all__ = [
    "CHECK_NAMES",
    "Check",
    "VerificationReport",
    "verify_envelope",
    "verify_or_raise",
]

CHECK_NAMES = (
    "envelope",
    "signature",
    "canonical_payload",
    "statement",
    "schema",
    "record_id",
    "chain",
    "run_brackets",
    "subjects",
)
"""The names of the checks, in the order they run."""

_MAX_LISTED = 12


@dataclasses.dataclass(frozen=True, slots=True)
class Check:
    """The outcome of one named verification check.

    Attributes
    ----------
    name
        One of :data:`CHECK_NAMES`.
    ok
        Whether the check passed.
    detail
        What was checked, or what is wrong and where.
    """

    name: str
    ok: bool
    detail: str


@dataclasses.dataclass(frozen=True)
class VerificationReport:
    """Every check run on one envelope.

    Attributes
    ----------
    checks
        The checks that ran, in :data:`CHECK_NAMES` order.
    statement
        The parsed Statement when the payload was strict JSON, else ``None``. Read it
        only when :attr:`ok` is true.
    """

    checks: tuple[Check, ...]
    statement: dict[str, Any] | None = dataclasses.field(default=None, compare=False, repr=False)

    @property
    def ok(self) -> bool:
        """Whether every check ran and passed."""
        return len(self.checks) == len(CHECK_NAMES) and all(c.ok for c in self.checks)

    @property
    def failed(self) -> tuple[str, ...]:
        """The names of the failed checks, in order."""
        return tuple(c.name for c in self.checks if not c.ok)

    @property
    def predicate(self) -> dict[str, Any] | None:
        """The Statement's predicate (the record), or ``None``."""
        if self.statement is None:
            return None
        predicate = self.statement.get("predicate")
        return predicate if isinstance(predicate, dict) else None

    def check(self, name: str) -> Check | None:
        """Return the check called ``name``, or ``None`` if it did not run."""
        return next((c for c in self.checks if c.name == name), None)

    def to_json(self) -> dict[str, Any]:
        """Return ``{"ok": bool, "checks": [{"name", "ok", "detail"}]}``."""
        return {"ok": self.ok, "checks": [dataclasses.asdict(c) for c in self.checks]}


def _listed(problems: list[str]) -> str:
    shown = "; ".join(problems[:_MAX_LISTED])
    more = len(problems) - _MAX_LISTED
    return shown + (f"; and {more} more" if more > 0 else "")


def _guarded(name: str, run: Callable[[], Check]) -> Check:
    # Verification reads hostile input: an unexpected shape fails the check, never crashes.
    try:
        return run()
    except Exception as exc:  # reported as a failed check
        return Check(name, False, f"could not be checked: {type(exc).__name__}: {exc}")


# -- envelope --------------------------------------------------------------------------


def _read_envelope(
    envelope: Mapping[str, Any] | bytes | str,
) -> tuple[Check, Mapping[str, Any] | None, bytes | None]:
    env: Any = envelope
    if isinstance(envelope, bytes | bytearray | str):
        try:
            env = loads_strict(envelope)
        except RecordError as exc:
            return Check("envelope", False, f"not a JSON DSSE envelope: {exc.message}"), None, None
    if not isinstance(env, Mapping):
        return Check("envelope", False, "the envelope is not a JSON object"), None, None
    payload_text = env.get("payload")
    if not isinstance(payload_text, str):
        return Check("envelope", False, "the envelope has no string 'payload'"), env, None
    try:
        payload = b64decode_any(payload_text)
    except RecordError:
        return Check("envelope", False, "the envelope's 'payload' is not base64"), env, None
    problems = []
    payload_type = env.get("payloadType")
    if payload_type != PAYLOAD_TYPE:
        problems.append(f"payloadType is {payload_type!r}, expected {PAYLOAD_TYPE!r}")
    signatures = env.get("signatures")
    if not isinstance(signatures, list) or not signatures:
        problems.append("'signatures' is not a non-empty list")
    else:
        for i, entry in enumerate(signatures):
            if not isinstance(entry, Mapping):
                problems.append(f"signatures[{i}] is not an object")
                continue
            if not isinstance(entry.get("keyid", ""), str):
                problems.append(f"signatures[{i}].keyid is not a string")
            try:
                b64decode_any(entry.get("sig"))
            except RecordError:
                problems.append(f"signatures[{i}].sig is not base64")
    if problems:
        return Check("envelope", False, _listed(problems)), env, payload
    count = len(signatures) if isinstance(signatures, list) else 0
    return (
        Check("envelope", True, f"DSSE envelope, {PAYLOAD_TYPE}, {count} signature(s)"),
        env,
        payload,
    )


# -- signature -------------------------------------------------------------------------


def _record_time(predicate: Mapping[str, Any] | None) -> tuple[dt.datetime | None, str]:
    if predicate is None:
        return None, "the payload holds no readable record"
    stamp = predicate.get("timestamp")
    try:
        return parse_timestamp(stamp), str(stamp)
    except RecordError:
        return None, f"the record's timestamp {stamp!r} is not an RFC 3339 UTC time"


def _check_signature(
    env: Mapping[str, Any],
    payload: bytes,
    keys: KeyRing,
    predicate: Mapping[str, Any] | None,
) -> Check:
    payload_type = env.get("payloadType")
    if not isinstance(payload_type, str):
        return Check("signature", False, "no payloadType to sign over")
    signatures = env.get("signatures")
    if not isinstance(signatures, list) or not signatures:
        return Check("signature", False, "the envelope carries no signatures")
    if len(keys) == 0:
        return Check("signature", False, "the key ring is empty: no key to verify with")
    at, when = _record_time(predicate)
    claimed = predicate.get("key_id") if predicate is not None else None
    notes: list[str] = []
    for i, entry in enumerate(signatures):
        if not isinstance(entry, Mapping):
            notes.append(f"signatures[{i}]: not an object")
            continue
        hint = entry.get("keyid")
        try:
            sig = b64decode_any(entry.get("sig"))
        except RecordError:
            notes.append(f"signatures[{i}]: sig is not base64")
            continue
        # The keyid only orders the search; every key in the ring is tried.
        candidates: list[KeyEntry] = sorted(keys, key=lambda e: e.key_id != hint)
        matched = next(
            (
                e
                for e in candidates
                if signature_verifies(payload_type, payload, sig, e.public_key)
            ),
            None,
        )
        label = hint if isinstance(hint, str) and hint else "(no keyid)"
        if matched is None:
            if isinstance(hint, str) and hint in keys:
                notes.append(
                    f"key {label}: bad signature (the payload or the signature was changed)"
                )
            else:
                notes.append(f"key {label}: unknown key (not in the key ring); no key verifies")
            continue
        if at is None:
            notes.append(
                f"key {matched.key_id}: signature matches, but the key's validity window "
                f"cannot be checked: {when}"
            )
            continue
        public, reason = keys.find(matched.key_id, at)
        if public is None:
            notes.append(f"key {matched.key_id}: signature matches, but the key is {reason}")
            continue
        if claimed != matched.key_id:
            notes.append(
                f"key {matched.key_id}: signature matches, but the record names key {claimed!r}"
            )
            continue
        return Check(
            "signature", True, f"signed by key {matched.key_id}, valid at the record's time {when}"
        )
    return Check("signature", False, _listed(notes))


# -- payload and statement -------------------------------------------------------------


def _check_canonical(payload: bytes, statement: Any) -> Check:
    try:
        canonical = canonical_bytes(statement)
    except RecordError as exc:
        return Check("canonical_payload", False, f"the payload has no canonical form: {exc}")
    if canonical != payload:
        at = next(
            (i for i, (a, b) in enumerate(zip(canonical, payload, strict=False)) if a != b),
            min(len(canonical), len(payload)),
        )
        return Check(
            "canonical_payload",
            False,
            f"the payload is not RFC 8785 canonical JSON ({len(payload)} bytes, canonical "
            f"form {len(canonical)} bytes, first difference at byte {at})",
        )
    return Check("canonical_payload", True, f"{len(payload)} bytes of RFC 8785 canonical JSON")


def _check_statement(statement: Any) -> Check:
    if not isinstance(statement, Mapping):
        return Check("statement", False, "the payload is not a JSON object")
    problems = []
    if statement.get("_type") != STATEMENT_TYPE:
        problems.append(f"_type is {statement.get('_type')!r}, expected {STATEMENT_TYPE!r}")
    if statement.get("predicateType") != PREDICATE_TYPE:
        problems.append(
            f"predicateType is {statement.get('predicateType')!r}, expected {PREDICATE_TYPE!r}"
        )
    subjects = statement.get("subject")
    count = len(subjects) if isinstance(subjects, list) else 0
    if not isinstance(subjects, list) or not subjects:
        problems.append("subject is not a non-empty list")
    else:
        for i, subject in enumerate(subjects):
            digest = subject.get("digest") if isinstance(subject, Mapping) else None
            if not isinstance(subject, Mapping) or not isinstance(subject.get("name"), str):
                problems.append(f"subject[{i}] has no string name")
            if not isinstance(digest, Mapping) or not _is_hex64(digest.get("sha256")):
                problems.append(f"subject[{i}] has no sha256 digest of 64 lowercase hex digits")
    if not isinstance(statement.get("predicate"), Mapping):
        problems.append("predicate is not an object")
    if problems:
        return Check("statement", False, _listed(problems))
    return Check("statement", True, f"in-toto Statement v1, {count} subject(s)")


def _is_hex64(value: object) -> bool:
    return is_digest_id(f"sha256:{value}") if isinstance(value, str) else False


def _check_schema(predicate: Mapping[str, Any] | None) -> Check:
    if predicate is None:
        return Check("schema", False, "the statement has no predicate object")
    problems = validate_predicate(predicate)
    if problems:
        return Check("schema", False, _listed(problems))
    version = predicate.get("schema_version")
    return Check(
        "schema", True, f"the record matches record.schema.json (schema_version {version})"
    )


# -- records ---------------------------------------------------------------------------


def _records(predicate: Mapping[str, Any] | None) -> list[Any] | str:
    if predicate is None:
        return "the statement has no predicate object"
    records = predicate.get("records")
    if not isinstance(records, list):
        return "the record has no 'records' list"
    if not records:
        return "the record's 'records' list is empty"
    return records


def _label(i: int, record: Any) -> str:
    if not isinstance(record, Mapping):
        return f"records[{i}]"
    seq = record.get("seq")
    name = f"seq {seq}" if isinstance(seq, int) and not isinstance(seq, bool) else f"records[{i}]"
    if isinstance(record.get("test_id"), str):
        name += f" (test {record['test_id']!r})"
    elif isinstance(record.get("record_type"), str):
        name += f" ({record['record_type']})"
    return name


def _check_record_ids(predicate: Mapping[str, Any] | None) -> Check:
    records = _records(predicate)
    if isinstance(records, str):
        return Check("record_id", False, records)
    problems = []
    for i, record in enumerate(records):
        if not isinstance(record, Mapping):
            problems.append(f"records[{i}] is not an object")
            continue
        stored = record.get("record_id")
        try:
            computed = record_id(record)
        except RecordError as exc:
            problems.append(f"{_label(i, record)}: content has no canonical form: {exc}")
            continue
        if stored != computed:
            problems.append(
                f"{_label(i, record)}: record_id {stored!r} does not match its content "
                f"({computed})"
            )
    if problems:
        return Check("record_id", False, _listed(problems))
    return Check("record_id", True, f"all {len(records)} record ids match their content")


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _check_chain(
    predicate: Mapping[str, Any] | None, expected_prev: str | None, expected_seq: int | None
) -> Check:
    records = _records(predicate)
    if isinstance(records, str):
        return Check("chain", False, records)
    problems: list[str] = []
    first = records[0] if isinstance(records[0], Mapping) else {}
    start = _int(first.get("seq"))
    if start is None:
        problems.append(f"{_label(0, first)}: seq is not an integer")
        start = expected_seq if expected_seq is not None else 0
    elif expected_seq is not None and start != expected_seq:
        problems.append(f"the run starts at seq {start}, expected {expected_seq}")
    for i, record in enumerate(records):
        if not isinstance(record, Mapping):
            problems.append(f"records[{i}] is not an object")
            continue
        label = _label(i, record)
        seq, run_seq = _int(record.get("seq")), _int(record.get("run_seq"))
        if i > 0 and seq != start + i:
            problems.append(f"{label} at position {i}: seq expected {start + i} (gap or reorder)")
        if run_seq != i:
            problems.append(f"{label} at position {i}: run_seq is {record.get('run_seq')!r}")
        prev = record.get("prev_record_id")
        if i == 0:
            continue
        before = records[i - 1]
        before_id = before.get("record_id") if isinstance(before, Mapping) else None
        if prev != before_id:
            problems.append(
                f"{label}: prev_record_id {prev!r} is not the id of the record before it "
                f"({before_id!r})"
            )
    prev0 = first.get("prev_record_id")
    if expected_prev is not None:
        if prev0 != expected_prev:
            problems.append(
                f"the first record links to {prev0!r}, expected the previous record "
                f"{expected_prev}"
            )
        origin = f"links to the expected previous record {expected_prev}"
    elif start == 0:
        if prev0 != GENESIS:
            problems.append(f"the record at seq 0 links to {prev0!r}, not the genesis id")
        origin = "starts at seq 0 from the genesis id"
    else:
        if prev0 == GENESIS or not is_digest_id(prev0):
            problems.append(
                f"the first record (seq {start}) links to {prev0!r}; only seq 0 links to "
                "the genesis id, every later record to a record id"
            )
        origin = (
            f"starts at seq {start} after {prev0} (outside this record; pass the "
            "previous record id to check that link)"
        )
    if problems:
        return Check("chain", False, _listed(problems))
    return Check(
        "chain",
        True,
        f"{len(records)} records, seq {start}..{start + len(records) - 1}, each linked to "
        f"the one before; the run {origin}",
    )


def _check_brackets(predicate: Mapping[str, Any] | None) -> Check:
    records = _records(predicate)
    if isinstance(records, str):
        return Check("run_brackets", False, records)
    assert predicate is not None
    problems: list[str] = []
    kinds = [r.get("record_type") if isinstance(r, Mapping) else None for r in records]
    last = len(records) - 1
    for i, kind in enumerate(kinds):
        expected = "run_start" if i == 0 else "run_end" if i == last else "test"
        if kind != expected:
            problems.append(
                f"{_label(i, records[i])}: record_type {kind!r}, expected {expected!r}"
            )
    run_id = predicate.get("run_id")
    problems.extend(
        f"{_label(i, r)}: run_id {r.get('run_id')!r} is not the record's run {run_id!r}"
        for i, r in enumerate(records)
        if isinstance(r, Mapping) and r.get("run_id") != run_id
    )
    end = records[last] if isinstance(records[last], Mapping) else None
    if end is not None and kinds[last] == "run_end":
        before = [r.get("record_id") if isinstance(r, Mapping) else None for r in records[:last]]
        count = end.get("record_count")
        if count != len(before):
            problems.append(
                f"run_end says record_count {count!r} but {len(before)} records precede it"
            )
        listed = end.get("record_ids")
        if listed != before:
            if not isinstance(listed, list):
                problems.append("run_end has no record_ids list")
            else:
                missing = [x for x in listed if x not in before]
                extra = [x for x in before if x not in listed]
                if missing:
                    problems.append(
                        f"run_end lists {len(missing)} id(s) not in the record (dropped): "
                        + ", ".join(map(str, missing[:3]))
                    )
                if extra:
                    problems.append(
                        f"{len(extra)} record(s) are not listed in run_end (added): "
                        + ", ".join(map(str, extra[:3]))
                    )
                if not missing and not extra:
                    problems.append("the records are not in the order run_end lists them")
    if problems:
        return Check("run_brackets", False, _listed(problems))
    return Check(
        "run_brackets",
        True,
        f"run {run_id!r}: run_start, {len(records) - 2} test record(s), run_end listing all "
        f"{last} preceding ids",
    )


def _check_subjects(statement: Mapping[str, Any], predicate: Mapping[str, Any] | None) -> Check:
    if predicate is None:
        return Check("subjects", False, "the statement has no predicate object")
    subjects = statement.get("subject")
    given = set()
    if isinstance(subjects, list):
        for s in subjects:
            digest = s.get("digest") if isinstance(s, Mapping) else None
            if isinstance(digest, Mapping) and isinstance(digest.get("sha256"), str):
                given.add(digest["sha256"])
    wanted = fingerprint_digests(predicate.get("fingerprints"))
    problems = [
        f"the {kind} fingerprint {digest} is not a Statement subject"
        for kind, digest in wanted.items()
        if digest not in given
    ]
    problems.extend(
        f"the subject digest {digest} is not the dataset or model fingerprint"
        for digest in sorted(given - set(wanted.values()))
    )
    if "dataset" not in wanted:
        problems.append("the record has no dataset fingerprint")
    if problems:
        return Check("subjects", False, _listed(problems))
    return Check(
        "subjects",
        True,
        "subject digests equal the "
        + " and ".join(wanted)
        + (" fingerprints" if len(wanted) > 1 else " fingerprint"),
    )


# -- entry points ----------------------------------------------------------------------


def verify_envelope(
    envelope: Mapping[str, Any] | bytes | str,
    keys: KeyRing,
    *,
    expected_prev: str | None = None,
    expected_seq: int | None = None,
) -> VerificationReport:
    """Run every check on a DSSE envelope and report each one.

    Parameters
    ----------
    envelope
        The envelope as parsed JSON, or its JSON text.
    keys
        The public keys to trust, with validity windows.
    expected_prev
        The id the run's first record must link to (the ledger's last id before this
        run). ``None`` accepts any link for a run that does not start at seq 0, and
        says so in the ``chain`` detail.
    expected_seq
        The ``seq`` the run's first record must have, or ``None``.

    Returns
    -------
    VerificationReport
        ``ok`` is true only when all nine checks ran and passed.
    """
    if expected_prev is not None and not is_digest_id(expected_prev):
        raise RecordError(f"expected_prev {expected_prev!r} is not a record id.")
    envelope_check, env, payload = _read_envelope(envelope)
    if env is None or payload is None:
        return VerificationReport((envelope_check,))
    checks = [envelope_check]
    statement: Any = None
    parse_error: str | None = None
    try:
        statement = loads_strict(payload)
    except RecordError as exc:
        parse_error = exc.message
    predicate_any = statement.get("predicate") if isinstance(statement, dict) else None
    predicate = predicate_any if isinstance(predicate_any, dict) else None
    checks.append(_guarded("signature", lambda: _check_signature(env, payload, keys, predicate)))
    if parse_error is not None:
        checks.append(
            Check("canonical_payload", False, f"the payload is not strict JSON: {parse_error}")
        )
        return VerificationReport(tuple(checks))
    checks.append(_guarded("canonical_payload", lambda: _check_canonical(payload, statement)))
    checks.append(_guarded("statement", lambda: _check_statement(statement)))
    checks.append(_guarded("schema", lambda: _check_schema(predicate)))
    checks.append(_guarded("record_id", lambda: _check_record_ids(predicate)))
    checks.append(_guarded("chain", lambda: _check_chain(predicate, expected_prev, expected_seq)))
    checks.append(_guarded("run_brackets", lambda: _check_brackets(predicate)))
    if isinstance(statement, Mapping):
        checks.append(_guarded("subjects", lambda: _check_subjects(statement, predicate)))
    else:
        checks.append(Check("subjects", False, "the payload is not a JSON object"))
    return VerificationReport(tuple(checks), statement if isinstance(statement, dict) else None)


def verify_or_raise(
    envelope: Mapping[str, Any] | bytes | str,
    keys: KeyRing,
    *,
    expected_prev: str | None = None,
    expected_seq: int | None = None,
) -> VerificationReport:
    """Verify like :func:`verify_envelope` and raise unless every check passed.

    Returns
    -------
    VerificationReport
        The passing report, whose ``statement`` holds the verified record.

    Raises
    ------
    VerificationError
        Naming each failed check; its hint holds each failed check's detail.
    """
    report = verify_envelope(
        envelope, keys, expected_prev=expected_prev, expected_seq=expected_seq
    )
    if not report.ok:
        failed = report.failed
        raise VerificationError(
            f"The record failed verification: {', '.join(failed)}.",
            " ".join(f"{c.name}: {c.detail}." for c in report.checks if not c.ok),
            failed=failed,
        )
    return report
