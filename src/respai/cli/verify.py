"""``respai verify``: pick the keys, check a record or a ledger, word the findings.

The keys are ``--key`` (one public key), else the union of every ``--keys`` file, else
the user's own ``keys.json``. Each check is one line on standard error (``ok`` or
``FAIL``, its name and what it found); ``--json`` writes the same checks to standard
output. Exit code 0 when every check passes, 1 when one fails. ``--data FILE`` adds one
check: the SHA-256 of FILE (a directory: its manifest, as the run fingerprinted it) must be
the dataset fingerprint of the verified record; with ``--spec SPEC`` too, the cases of FILE
are counted again under SPEC (which must be the record's spec) and every count compared
with the record's (:mod:`respai.recount`). RFC 3161 tokens kept beside a record
(``timestamps.json``) or in a ledger (``timestamps/``) are listed as present but
unchecked, or, with ``--tsa-cert``, checked against the authorities' certificates
(:mod:`respai.record.timestamp`, :mod:`respai.ledger.stamps`).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from respai.cli import output
from respai.cli.app import cli
from respai.errors import InputError

if TYPE_CHECKING:
    from respai.record import KeyRing
    from respai.record.verify import Check, VerificationReport

__all__ = ["key_ring", "verify"]


def key_ring(pub: Path | None, keys_json: Sequence[Path] = ()) -> tuple[KeyRing, str]:
    """The keys to trust: ``--key``, else every ``--keys``, else the user's own keys.json.

    Parameters
    ----------
    pub
        One public key PEM (``--key``), or ``None``.
    keys_json
        The ``keys.json`` files given with ``--keys`` (repeatable); the ring trusts the
        union of their keys (see :meth:`~respai.record.KeyRing.union`).

    Returns
    -------
    tuple
        The ring and a description of where its keys came from.

    Raises
    ------
    InputError
        When both ``--key`` and ``--keys`` are given, or neither and no keys.json exists
        in the key folder.
    KeyMaterialError
        When a key file cannot be read.
    """
    from respai.record import KeyRing, default_key_dir, load_public_key

    if pub is not None and keys_json:
        raise InputError(
            f"give --key or --keys, not both (got --key {pub} and --keys "
            f"{', '.join(map(str, keys_json))}).",
            "To trust a public key and a keys.json together, list the key in a keys.json "
            "and pass --keys once per keys.json.",
        )
    if pub is not None:
        return KeyRing.from_public_key(load_public_key(pub)), f"public key {pub}"
    if keys_json:
        first, *rest = (KeyRing.load(path) for path in keys_json)
        ring = first.union(*rest)
        return ring, f"keys.json {', '.join(map(str, keys_json))} ({len(ring)} key(s))"
    own = default_key_dir() / "keys.json"
    if own.is_file():
        return KeyRing.load(own), f"your own keys.json {own}"
    raise InputError(
        "no public key to verify with.",
        "Pass --key PUBLIC_KEY.pem or --keys keys.json (the signer publishes them).",
    )


def _read(record: Path) -> bytes | str:
    """The record's bytes, or why they were not read (a record that does not verify).

    Only a regular file is read, and at most :data:`~respai.limits.MAX_JSON_BYTES` bytes
    of it: a FIFO, a device or a socket (or a link to one) is not read at all, and a
    larger file cannot be a record. Both are a failed ``envelope`` check (exit 1).
    """
    from respai.io import FileTooLarge, NotARegularFile, read_bounded
    from respai.limits import MAX_JSON_BYTES

    try:
        return read_bounded(record, MAX_JSON_BYTES, "MAX_JSON_BYTES")
    except FileNotFoundError:
        raise InputError(f"the record {record} does not exist.") from None
    except IsADirectoryError:
        raise InputError(
            f"{record} is a directory; pass the record.json inside it, or "
            "--ledger for a ledger folder."
        ) from None
    except (NotARegularFile, FileTooLarge) as exc:
        return f"{record} is {exc.strerror}; it was not read, so it is no record"
    except OSError as exc:
        raise InputError(
            f"cannot read the record {record}: {exc.strerror or exc}.",
            "Check the path and its permissions.",
        ) from None


def _page_parts(data: bytes) -> tuple[bytes | str, Any]:
    """The record an HTML report embeds, and what the ``page`` check compares.

    Returns the record's bytes (or why the page holds none: a failed ``envelope`` check)
    and ``(text, envelope, raw_key)``, or ``None`` when ``data`` is not a page.
    """
    from respai.record.errors import RecordError
    from respai.render.report.check import embedded, envelope_bytes_of, is_page

    if not is_page(data):
        return data, None
    try:
        text = data.decode("utf-8")
        envelope, raw = embedded(text)
    except (UnicodeDecodeError, RecordError) as exc:
        reason = exc.message if isinstance(exc, RecordError) else "it is not UTF-8"
        return f"the page holds no record: {reason}", ("", None, None)
    return envelope_bytes_of(envelope), (text, envelope, raw)


def _page_check(page: Any, report: VerificationReport, ring: KeyRing) -> Check:
    """The ``page`` check: the file is exactly the report of its verified record.

    It passes only when the record verified, the page embeds the public key of the ring's
    key that signed it, and the file is the report this respai version renders for that
    record with that key: nothing added, removed, moved or scripted.
    """
    from respai.record.keys import public_key_raw
    from respai.record.verify import Check
    from respai.render.report.check import page_difference

    text, envelope, raw = page
    if envelope is None:
        return Check("page", False, "the page holds no record")
    if not report.ok:
        return Check("page", False, "not compared: the record the page embeds does not verify")
    key_id = (report.predicate or {}).get("key_id")
    signer = next((e for e in ring if e.key_id == key_id), None)
    if signer is None or raw != public_key_raw(signer.public_key):
        return Check(
            "page", False, "the page does not embed the public key of the key that signed it"
        )
    difference = page_difference(text, envelope, raw)
    if difference is not None:
        return Check("page", False, difference)
    return Check(
        "page", True, "the file is exactly the report this respai version writes for its record"
    )


def _data_fingerprint(data: Path) -> dict[str, Any] | str:
    """The fingerprint of ``--data`` as a run takes it (a file's bytes, a folder's manifest).

    A file is opened once, as a regular file, and hashed from that descriptor; a folder's
    files likewise. A FIFO, a device or a socket (or a link to one), as ``--data`` or
    in its folder, is not read, nor is a folder a run would refuse: the reason is returned
    instead, a failed ``data`` check.
    """
    from respai.io import NotARegularFile
    from respai.record.fingerprint import file_fingerprint

    if not data.exists() and not data.is_symlink():
        raise InputError(
            f"--data {data} does not exist.",
            "Pass the cases file (or folder) the record's run read.",
        )
    try:
        if data.is_dir():
            try:
                return file_fingerprint(data)
            except InputError as exc:  # a pipe, a device or a stray link in the folder
                return f"{exc.message} It was not read, so it is no dataset"
        return file_fingerprint(data)  # a regular file, read once; else NotARegularFile
    except NotARegularFile as exc:
        return f"{exc.filename} is {exc.strerror}; it was not read, so it is no dataset"
    except OSError as err:
        raise InputError(
            f"--data {data} cannot be read ({err.strerror or err}).",
            "Check the path and its permissions.",
        ) from None


def _check_data(
    data: Path,
    found: dict[str, Any] | str,
    statement: dict[str, Any] | None,
    recount: bool = False,
) -> tuple[str, dict[str, Any], bool]:
    """Whether the verified record's dataset fingerprint is the SHA-256 of ``data``."""
    if isinstance(found, str):  # not read: a FIFO, a device or a socket
        unread = {"file": str(data), "sha256": None, "record_sha256": None, "matches": False}
        return f"FAIL  data: {found}", unread, False
    digest = found["sha256"]
    out: dict[str, Any] = {"file": str(data), "sha256": digest, "record_sha256": None}
    if statement is None:
        out["matches"] = False
        return f"FAIL  data: {data} not compared: the record does not verify", out, False
    predicate = statement.get("predicate")
    fingerprints = predicate.get("fingerprints") if isinstance(predicate, dict) else None
    dataset = fingerprints.get("dataset") if isinstance(fingerprints, dict) else None
    want = dataset.get("sha256") if isinstance(dataset, dict) else None
    if not isinstance(want, str):
        out["matches"] = False
        return (
            f"FAIL  data: the record names no dataset fingerprint to compare {data} with",
            out,
            False,
        )
    out["record_sha256"] = want
    out["matches"] = ok = want == digest
    assert isinstance(dataset, dict)
    name = dataset.get("name")
    if ok:
        line = (
            f"ok    data: {data} has sha256 {digest} ({found['size_bytes']} bytes), the dataset "
            f"the record describes ({name})"
            + ("" if recount else "; its counts were not recomputed (add --spec to recount)")
        )
    elif "canonical" in dataset:  # a DataFrame's canonical Arrow stream, not a file's bytes
        line = (
            f"FAIL  data: the record's dataset is a DataFrame (sha256 {want} over the "
            f"{dataset['canonical']} stream of its columns), which a file's bytes "
            f"(sha256 {digest}) cannot match; hash the frame with "
            "respai.engine.frame_fingerprint instead"
        )
    else:
        line = (
            f"FAIL  data: {data} has sha256 {digest}, the record describes a dataset "
            f"({name}) with sha256 {want}: this is not the file the run read"
        )
    return line, out, ok


def _check_counts(
    spec: Path, data: Path, statement: dict[str, Any] | None
) -> tuple[list[str], dict[str, Any] | None, bool]:
    """Recount ``data`` under ``spec`` and compare with the verified record's counts."""
    from respai.recount import recount

    if statement is None:
        return [f"FAIL  counts: {data} not recounted: the record does not verify"], None, False
    done = recount(statement.get("predicate") or {}, spec, data)
    if not done.same_spec:
        line = (
            f"FAIL  counts: {spec} has sha256 {done.spec_sha256}, the record's run used the "
            f"spec with sha256 {done.record_spec_sha256}: not recounted"
        )
        return [line], done.to_json(), False
    if done.ok:
        line = (
            f"ok    counts: all {done.compared} counts of {data} under {spec} equal the record's"
        )
        return [line], done.to_json(), True
    lines = [
        f"FAIL  counts: {len(done.differences)} of {done.compared} counts of {data} under "
        f"{spec} differ from the record's"
    ]
    lines += [f"      {d}" for d in done.differences[:20]]
    if len(done.differences) > 20:
        lines.append(f"      ... and {len(done.differences) - 20} more (see --json)")
    return lines, done.to_json(), False


def _check_record(
    record: Path,
    ring: KeyRing,
    data: Path | None = None,
    spec: Path | None = None,
    trusted: list[Any] | None = None,
) -> tuple[list[str], dict[str, Any], bool]:
    """Verify one record file (and ``--data``): lines for people, a JSON payload, the outcome."""
    from respai.record import verify_envelope
    from respai.record.verify import Check, VerificationReport

    found = None if data is None else _data_fingerprint(data)  # bad input before any output
    if spec is not None and not spec.is_file():
        raise InputError(
            f"--spec {spec} is not a file.", "Pass the spec file the record's run used."
        )
    read, page = _read(record), None
    if isinstance(read, bytes):  # an HTML report: its embedded record, checked as one
        read, page = _page_parts(read)
    report = (
        verify_envelope(read, ring)
        if isinstance(read, bytes)
        else VerificationReport((Check("envelope", False, read),))
    )
    checks = report.checks
    if page is not None:  # is the page exactly the report of its record?
        checks = (*checks, _page_check(page, report, ring))
    if report.ok and report.predicate is not None:  # a compact record's derived numbers
        from respai.recompute import check_compact

        derived = check_compact(report.predicate)
        if derived is not None:
            checks = (*checks, Check("derived", derived.ok, derived.detail))
    stamps = _stamp_checks(record, read, report, trusted)
    checks = (*checks, *stamps[0])
    lines = [f"{'ok    ' if c.ok else 'FAIL  '}{c.name}: {c.detail}" for c in checks]
    lines += stamps[1]  # tokens present but not checked (no --tsa-cert)
    failed = [c.name for c in checks if not c.ok]
    ok = report.ok and not failed
    payload: dict[str, Any] = {
        "record": str(record),
        "ok": ok,
        "failed": failed,
        "checks": [{"name": c.name, "ok": c.ok, "detail": c.detail} for c in checks],
    }
    if stamps[2] is not None:
        payload["timestamps"] = stamps[2]
    if data is not None and found is not None:
        line, payload["data"], data_ok = _check_data(
            data, found, report.statement if report.ok else None, spec is not None
        )
        lines.append(line)
        if not data_ok:
            failed.append("data")
        ok = ok and data_ok
        if spec is not None and isinstance(found, str):
            lines.append(f"FAIL  counts: {data} not recounted: it was not read")
            payload["counts"] = None
            failed.append("counts")
            ok = False
        elif spec is not None:
            # recounted even when the bytes differ: a re-export may still hold the same cases
            more, payload["counts"], counts_ok = _check_counts(
                spec, data, report.statement if report.ok else None
            )
            lines += more
            if not counts_ok:
                failed.append("counts")
            ok = ok and counts_ok
        payload["ok"] = ok
    lines.append(
        f"{record}: "
        + (
            (
                "verified"
                + (", and --data is its dataset" if data is not None else "")
                + (", with the same counts" if spec is not None else "")
            )
            if ok
            else "NOT verified (failed: " + ", ".join(failed) + ")"
        )
    )
    return lines, payload, ok


def _stamp_checks(
    record: Path, read: bytes | str, report: VerificationReport, trusted: list[Any] | None
) -> tuple[list[Check], list[str], list[dict[str, Any]] | None]:
    """The tokens in ``timestamps.json`` beside ``record``: checks, notes, JSON.

    Without a sidecar nothing is said, unless ``--tsa-cert`` asked for a check (a failed
    ``timestamp`` check). Without ``--tsa-cert`` each token is a note: present, its time,
    not checked. With it each token is a ``timestamp`` check, and the record's own time
    is compared with the earliest verified token's (``clock``).
    """
    from respai.record.canonical import loads_strict
    from respai.record.errors import RecordError
    from respai.record.times import parse_timestamp
    from respai.record.timestamp import (
        SIDECAR,
        check_tokens,
        clock_finding,
        read_sidecar,
        record_message,
    )
    from respai.record.verify import Check

    beside = record.parent / SIDECAR
    if record.parent.name == "runs" and not beside.exists():  # a ledger's run file
        beside = record.parent.parent / "timestamps" / "runs" / record.name
    doc = read_sidecar(beside)
    if doc is None:
        if trusted is None:
            return [], [], None
        why = f"--tsa-cert given, but {record.name} has no tokens ({beside} does not exist)"
        return [Check("timestamp", False, why)], [], []
    if isinstance(doc, str):
        return [Check("timestamp", False, doc)], [], []
    try:
        message = record_message(loads_strict(read)) if isinstance(read, bytes) else None
    except RecordError:
        message = None
    if message is None:
        unread = Check("timestamp", False, "not checked: the record is not a JSON envelope")
        return [unread], [], []
    found = check_tokens(doc, message, trusted)
    payload = [c.to_json() for c in found]
    if trusted is None:
        notes = [f"note  timestamp: {c.detail} (pass --tsa-cert to check it)" for c in found]
        return [], notes, payload
    checks = [Check("timestamp", bool(c.ok), c.detail) for c in found]
    good = [c.time for c in found if c.ok and c.time is not None]
    stated = (report.predicate or {}).get("timestamp") if report.ok else None
    if good and stated is not None:
        finding = clock_finding(parse_timestamp(stated), min(good))
        checks.append(
            Check("clock", False, finding)
            if finding is not None
            else Check("clock", True, f"the record's own time {stated} agrees with the token")
        )
    return checks, [], payload


def _check_ledger(
    folder: Path,
    ring: KeyRing,
    trusted: list[Any] | None = None,
    witnesses: Sequence[tuple[str, Any]] = (),
    quorum: int = 0,
) -> tuple[list[str], dict[str, Any], bool]:
    """Verify a whole ledger folder: every run, the links between runs, the checkpoints."""
    from respai.ledger import verify_ledger

    if not folder.is_dir():
        raise InputError(
            f"the ledger folder {folder} does not exist.",
            "Pass the folder respai evaluate appends to (default .respai).",
        )
    from respai.ledger.stamps import STAMPS, check_ledger_stamps

    report = verify_ledger(folder, ring)
    lines = list(report.lines())
    payload, ok = report.to_json(), report.ok
    if trusted is not None or (folder / STAMPS).is_dir():
        stamps = check_ledger_stamps(folder, trusted)
        checked = "checked against --tsa-cert" if trusted is not None else "not checked"
        lines += [f"Timestamps ({checked}):", *stamps.lines]
        payload["timestamps"] = stamps.to_json()
        ok = ok and stamps.ok
    if witnesses:
        from respai.ledger.witness import check_cosignatures

        cosigned = check_cosignatures(folder, witnesses, quorum)
        lines += ["Witness cosignatures of the newest checkpoint:", *cosigned.lines()]
        payload["witnesses"] = cosigned.to_json()
        ok = ok and cosigned.ok
    lines.append(f"{folder}: " + ("ledger verified" if ok else "ledger NOT verified"))
    return lines, payload, ok


def _check_site(folder: Path, ring: KeyRing) -> tuple[list[str], dict[str, Any], bool]:
    """The lines, JSON and result of ``respai verify --site``."""
    from respai.site.check import check_site

    if not folder.is_dir():
        raise InputError(
            f"--site {folder} is not a folder.", "Pass the folder respai site wrote (-o DIR)."
        )
    checks = check_site(folder, ring)
    ok = all(c.ok for c in checks)
    lines = [f"{'ok    ' if c.ok else 'FAIL  '}{c.name}: {c.detail}" for c in checks]
    failed = [c.name for c in checks if not c.ok]
    lines.append(
        f"{folder}: site verified"
        if ok
        else f"{folder}: NOT verified (failed: {', '.join(failed)})"
    )
    payload = {
        "site": str(folder),
        "ok": ok,
        "checks": [{"name": c.name, "ok": c.ok, "detail": c.detail} for c in checks],
    }
    return lines, payload, ok


def _witnesses(
    given: Sequence[str], quorum: int | None, ledger: Path | None
) -> list[tuple[str, Any]]:
    """The trusted witnesses of ``--witness`` (vkeys, or files holding one), checked."""
    from respai.errors import Error
    from respai.ledger.witness import parse_vkey

    if quorum is not None and not given:
        raise click.UsageError("--quorum counts cosignatures of --witness keys; give --witness.")
    if not given:
        return []
    if ledger is None:
        raise click.UsageError("--witness checks a ledger's cosignatures; give --ledger DIR.")
    out = []
    for value in given:
        path = Path(value)
        try:
            text = path.read_text(encoding="utf-8") if path.is_file() else value
            out.append(parse_vkey(text))
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(f"--witness {value} cannot be read: {exc}.") from None
        except Error as exc:
            raise InputError(
                f"--witness {value}: {exc.message}",
                "Pass the vkey respai witness init printed (or its witness.vkey file).",
            ) from None
    from respai.record.keys import public_key_raw

    distinct = len({public_key_raw(public) for _, public in out})
    if quorum is not None and not 1 <= quorum <= distinct:
        raise InputError(
            f"--quorum {quorum} cannot be met by {distinct} distinct --witness key(s); "
            f"give a number from 1 to {distinct}."
        )
    return out


@cli.command()
@click.argument("record", required=False, type=click.Path(path_type=Path))
@click.option(
    "--key", "pub", type=click.Path(path_type=Path), help="Public key (SPKI PEM) to verify with."
)
@click.option(
    "--keys",
    "keys_json",
    type=click.Path(path_type=Path),
    multiple=True,
    help="keys.json listing published keys and their validity windows; repeat to trust "
    "the keys of several (the ring is their union).",
)
@click.option(
    "--ledger",
    type=click.Path(path_type=Path),
    help="Verify a whole ledger folder instead of one record.",
)
@click.option(
    "--site",
    type=click.Path(path_type=Path),
    help="Verify a folder written by respai site: its signed manifest, every page of its "
    "own, and every run page's record.",
)
@click.option(
    "--data",
    type=click.Path(path_type=Path),
    help="Also check that this cases file (or folder) is the dataset the RECORD describes: "
    "its SHA-256 must equal the record's dataset fingerprint.",
)
@click.option(
    "--spec",
    type=click.Path(path_type=Path),
    help="With --data: count the cases of the file again under this spec (the record's "
    "own, by SHA-256) and compare every count with the record's.",
)
@click.option(
    "--tsa-cert",
    "tsa_certs",
    type=click.Path(path_type=Path),
    multiple=True,
    help="Root certificate (PEM) of an RFC 3161 time-stamping authority you trust: the "
    "record's tokens (timestamps.json beside it, or the ledger's timestamps/) are checked "
    "against it, and the signer's clock against theirs. Repeatable.",
)
@click.option(
    "--witness",
    "witness_keys",
    multiple=True,
    help="With --ledger: a witness you trust, as its vkey (name+keyid+key, printed by "
    "respai witness init) or a file holding it. Repeatable.",
)
@click.option(
    "--quorum",
    type=int,
    help="With --witness: how many distinct trusted witnesses must have cosigned the "
    "ledger's newest checkpoint (default: all of them).",
)
@click.option("--json", "as_json", is_flag=True, help="Write the checks as JSON to stdout.")
def verify(
    record: Path | None,
    pub: Path | None,
    keys_json: tuple[Path, ...],
    ledger: Path | None,
    site: Path | None,
    data: Path | None,
    spec: Path | None,
    tsa_certs: tuple[Path, ...],
    witness_keys: tuple[str, ...],
    quorum: int | None,
    as_json: bool,
) -> None:
    """Check a signed RECORD, an HTML report of one, a --ledger or a --site."""
    if sum(x is not None for x in (record, ledger, site)) != 1:
        raise click.UsageError("give one of: a RECORD file, --ledger DIR, --site DIR.")
    if site is not None and (data is not None or tsa_certs):
        raise click.UsageError(
            "--site checks a site folder; --data and --tsa-cert do not go with it."
        )
    if data is not None and ledger is not None:
        raise click.UsageError("--data checks one RECORD's dataset; it does not go with --ledger.")
    if spec is not None and data is None:
        raise click.UsageError("--spec recounts the cases of --data FILE; give --data too.")
    witnesses = _witnesses(witness_keys, quorum, ledger)
    ring, ring_source = key_ring(pub, keys_json)
    from respai.record.timestamp import load_trusted

    trusted = load_trusted(tsa_certs) if tsa_certs else None
    if site is not None:
        lines, payload, ok = _check_site(site, ring)
    elif ledger is not None:
        lines, payload, ok = _check_ledger(
            ledger, ring, trusted, witnesses, len(witnesses) if quorum is None else quorum
        )
    else:
        assert record is not None
        lines, payload, ok = _check_record(record, ring, data, spec, trusted)
    output.echo(f"keys: {ring_source}")
    for line in lines:
        output.echo(line)
    if as_json:
        output.emit_json(payload)
    raise SystemExit(0 if ok else 1)
