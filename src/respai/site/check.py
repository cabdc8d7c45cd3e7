"""``respai verify --site DIR``: check a published audit site from the command line.

The browser checks each page of a site as it opens it; this module does the same checks
for the whole folder at once, offline, with the keys the person verifying trusts (never
the ``public_key.pem`` the folder itself carries, unless they pass it):

* ``manifest``: ``site.json`` is a DSSE envelope whose payload is canonical JSON, an
  in-toto Statement of the site-manifest type, signed by a key of the ring that was valid
  when the site was built and that the manifest names;
* ``site_pages``: every page of the site's own (index, streams, compare, one per LL144
  audit) is byte for byte the page this respai version writes for that manifest and key;
* ``run_pages``: every run the manifest lists has its page, with the SHA-256 the manifest
  states; the record the page embeds verifies (the nine record checks), is the run file
  the manifest names (SHA-256 of its canonical bytes and a newline, as the ledger keeps
  it), and the page is exactly the report of that record;
* ``unlisted``: no HTML page lies in the folder that the manifest does not list (a page
  added beside a signed site would be read as part of it).

Each check is a :class:`~respai.record.verify.Check`; the site verifies when all pass.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Any

from respai.record.canonical import canonical_bytes, loads_strict
from respai.record.dsse import PAYLOAD_TYPE, b64decode_any, signature_verifies
from respai.record.errors import RecordError
from respai.record.keys import KeyRing, public_key_raw
from respai.record.times import parse_timestamp
from respai.record.verify import Check

__all__ = ["check_site"]

#: How many problems a check names before it says "and N more".
_SHOWN = 5


def _listed(problems: list[str]) -> str:
    more = len(problems) - _SHOWN
    return "; ".join(problems[:_SHOWN]) + (f"; and {more} more" if more > 0 else "")


def _read(folder: Path, name: str) -> bytes | None:
    """The bytes of ``folder/name`` (bounded, regular files only), or ``None``."""
    from respai.io import FileTooLarge, NotARegularFile, read_bounded
    from respai.limits import MAX_JSON_BYTES

    path = PurePosixPath(name)
    if path.is_absolute() or ".." in path.parts or not path.parts:
        return None  # a signed manifest still never points outside its folder
    try:
        return read_bounded(folder.joinpath(*path.parts), MAX_JSON_BYTES, "MAX_JSON_BYTES")
    except (OSError, NotARegularFile, FileTooLarge):
        return None


def _manifest(folder: Path, ring: KeyRing) -> tuple[Check, Any, Any, bytes | None]:
    """The ``manifest`` check, the envelope, the Statement and the signer's raw key."""
    from respai.site.manifest import PREDICATE_TYPE, STATEMENT_TYPE

    data = _read(folder, "site.json")
    if data is None:
        return Check("manifest", False, f"{folder / 'site.json'} cannot be read"), None, None, None
    try:
        envelope = loads_strict(data)
        payload = b64decode_any(envelope.get("payload") if isinstance(envelope, dict) else None)
        statement = loads_strict(payload)
    except RecordError as exc:
        return (
            Check("manifest", False, f"site.json is no DSSE envelope: {exc.message}"),
            None,
            None,
            None,
        )
    if envelope.get("payloadType") != PAYLOAD_TYPE:
        return Check("manifest", False, f"payloadType is not {PAYLOAD_TYPE}"), None, None, None
    try:
        canonical = canonical_bytes(statement) == payload
    except RecordError:
        canonical = False
    if not canonical:
        return (
            Check("manifest", False, "the payload is not RFC 8785 canonical JSON"),
            None,
            None,
            None,
        )
    predicate = statement.get("predicate") if isinstance(statement, dict) else None
    if (
        not isinstance(predicate, dict)
        or statement.get("_type") != STATEMENT_TYPE
        or statement.get("predicateType") != PREDICATE_TYPE
    ):
        return (
            Check("manifest", False, f"the payload is not a {PREDICATE_TYPE} Statement"),
            None,
            None,
            None,
        )
    key_id = predicate.get("key_id")
    try:
        built = parse_timestamp(predicate.get("built"))
    except RecordError:
        return (
            Check("manifest", False, "the manifest's 'built' is no RFC 3339 time"),
            None,
            None,
            None,
        )
    signatures = envelope.get("signatures")
    for entry in signatures if isinstance(signatures, list) else []:
        try:
            sig = b64decode_any(entry.get("sig") if isinstance(entry, dict) else None)
        except RecordError:
            continue
        for e in ring:
            if e.key_id != key_id or not signature_verifies(
                PAYLOAD_TYPE, payload, sig, e.public_key
            ):
                continue
            public, reason = ring.find(e.key_id, built)
            if public is None:
                return (
                    Check("manifest", False, f"signed by key {key_id}, but the key is {reason}"),
                    None,
                    None,
                    None,
                )
            detail = (
                f"site manifest signed by key {key_id}, valid when the site was built "
                f"({predicate.get('built')})"
            )
            return Check("manifest", True, detail), envelope, statement, public_key_raw(public)
    return (
        Check(
            "manifest",
            False,
            f"no key of the ring verifies the manifest's signature (it names key {key_id!r})",
        ),
        None,
        None,
        None,
    )


def _site_pages(folder: Path, statement: Any, envelope: Any, raw: bytes) -> tuple[Check, set[str]]:
    from respai.site.assemble import site_pages

    expected = site_pages(statement, envelope, raw)
    problems = []
    for name, want in expected.items():
        got = _read(folder, name)
        if got is None:
            problems.append(f"{name} is missing")
        elif got != want:
            problems.append(f"{name} is not the page this respai version writes for the manifest")
    if problems:
        return Check("site_pages", False, _listed(problems)), set(expected)
    return Check(
        "site_pages", True, f"{len(expected)} page(s), each exactly as written for the manifest"
    ), set(expected)


def _run_page(folder: Path, entry: Mapping[str, Any], ring: KeyRing) -> str | None:
    """Why the run ``entry`` lists does not check, or ``None`` when it does."""
    from respai.record.verify import verify_envelope
    from respai.render.report.check import embedded, page_difference

    name, run = entry.get("page"), entry.get("run_id")
    data = _read(folder, name) if isinstance(name, str) else None
    if data is None:
        return f"run {run}: its page {name!r} is missing"
    if hashlib.sha256(data).hexdigest() != entry.get("page_sha256"):
        return f"run {run}: {name} does not have the SHA-256 the manifest states"
    try:
        text = data.decode("utf-8")
        record, key = embedded(text)
    except (UnicodeDecodeError, RecordError):
        return f"run {run}: {name} embeds no readable record"
    try:
        file_digest = hashlib.sha256(canonical_bytes(record) + b"\n").hexdigest()
    except RecordError:
        return f"run {run}: the record {name} embeds has no canonical form"
    if file_digest != entry.get("file_sha256"):
        return f"run {run}: the record {name} embeds is not the run file the manifest names"
    report = verify_envelope(record, ring)
    if not report.ok:
        return f"run {run}: the record {name} embeds does not verify ({', '.join(report.failed)})"
    signer = next((e for e in ring if e.key_id == (report.predicate or {}).get("key_id")), None)
    if signer is None or key != public_key_raw(signer.public_key):
        return f"run {run}: {name} does not embed the key that signed its record"
    difference = page_difference(text, record, key)
    if difference is not None:
        return f"run {run}: {name}: {difference}"
    return None


def _run_pages(folder: Path, statement: Any, ring: KeyRing) -> tuple[Check, set[str]]:
    runs = statement["predicate"].get("runs")
    entries = [r for r in runs if isinstance(r, Mapping)] if isinstance(runs, list) else []
    problems = [p for p in (_run_page(folder, r, ring) for r in entries) if p is not None]
    pages = {str(r.get("page")) for r in entries}
    if problems:
        return Check("run_pages", False, _listed(problems)), pages
    return (
        Check(
            "run_pages",
            True,
            f"{len(entries)} run page(s): each is the report of a record that verifies and is "
            "the run file the manifest names",
        ),
        pages,
    )


def _unlisted(folder: Path, listed: set[str]) -> Check:
    found = sorted(
        p.relative_to(folder).as_posix()
        for p in folder.rglob("*")
        if p.suffix.lower() in {".html", ".htm", ".xhtml", ".svg"}
    )
    extra = [name for name in found if name not in listed]
    if extra:
        return Check("unlisted", False, "pages the manifest does not list: " + _listed(extra))
    return Check("unlisted", True, "every page in the folder is one the manifest lists")


def check_site(folder: Path, ring: KeyRing) -> list[Check]:
    """Every check of the site in ``folder`` against the keys of ``ring``.

    Parameters
    ----------
    folder
        The folder ``respai site`` wrote (or a copy of it, as published).
    ring
        The keys the person verifying trusts.

    Returns
    -------
    list of Check
        ``manifest`` first; when it fails, the others are not run (there is nothing
        trustworthy to compare the pages with).
    """
    manifest, envelope, statement, raw = _manifest(folder, ring)
    if envelope is None or raw is None:
        return [manifest]
    own, own_names = _site_pages(folder, statement, envelope, raw)
    runs, run_names = _run_pages(folder, statement, ring)
    return [manifest, own, runs, _unlisted(folder, own_names | run_names)]
