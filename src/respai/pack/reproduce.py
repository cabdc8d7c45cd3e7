"""Reproducing an LL144 evidence pack: rerun the audit from its copies, compare every value.

:func:`reproduce_pack` reruns the audit from the pack's own copies and compares every
value of the new result with the archived ``tables/ll144.json``, checks every file
against ``inputs/SHA256SUMS``, ``MANIFEST.json`` and the file list signed in the record,
and verifies the record with the pack's public key. An engine or environment that
differs from the archived one is a note, not a failure: only a difference in the numbers
or the files fails.

The comparison walks both JSON trees and reports every leaf whose type or value differs
(``1`` and ``1.0`` differ in ``ll144.json``; in the signed record, whose canonical JSON
writes ``1.0`` as ``1``, they do not), every key or list item present on one side only,
and skips the run-time fields of :data:`IGNORED_FIELDS`.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import platform
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from respai.errors import Error, InputError
from respai.io import read_bounded
from respai.pack.archive import (
    MANIFEST,
    PACK_FILES,
    SUMS,
    opened,
    parse_sums,
    read_json,
    read_manifest,
    read_pack_text,
    sha256_file,
)
from respai.pack.documents import cells_csv, distributions, json_text, parse_lock
from respai.record.canonical import MAX_JSON_BYTES, loads_strict
from respai.record.errors import RecordError

if TYPE_CHECKING:
    from respai.ll144.audit import LL144Result

__all__ = ["IGNORED_FIELDS", "Difference", "ReproduceResult", "reproduce_pack"]


IGNORED_FIELDS: tuple[tuple[str | None, ...], ...] = (
    ("engine",),
    ("spec", "path"),
    ("data", "description"),
    ("reconciliation", "files", None, "path"),
    ("result_sha256",),
)
"""The run-time fields of ``ll144.json`` that reproduce does not compare (``None`` matches
any list index): the engine string (compared with ``engine.json`` as a note instead), the
spec's path, the data description (it names the files' absolute paths), each input file's
path, and ``result_sha256`` (a digest over everything, paths included)."""


@dataclasses.dataclass(frozen=True, slots=True)
class Difference:
    """One thing the rerun or the checks found different from the pack.

    Attributes
    ----------
    kind
        ``"number"`` or ``"value"`` (a field of ``ll144.json`` or of the record),
        ``"hash"`` (a file whose SHA-256 is not the listed one), ``"record"`` (a failed
        verification check), ``"table"`` (a line of a CSV table) or ``"rerun"`` (the
        audit could not be rerun).
    where
        The pack file the value or hash is listed in.
    path
        The JSON path (``$.tables.sex.rows[1].impact_ratio``), file name, line or check.
    old, new
        The pack's value and the rerun's (or the file's actual hash).
    """

    kind: str
    where: str
    path: str
    old: Any
    new: Any

    def to_dict(self) -> dict[str, Any]:
        """The difference as JSON-ready data."""
        return dataclasses.asdict(self)

    def line(self) -> str:
        """The difference as one line for people."""
        return f"{self.where} {self.path}: {_show(self.old)} -> {_show(self.new)}"


@dataclasses.dataclass(frozen=True, slots=True)
class ReproduceResult:
    """What :func:`reproduce_pack` found.

    Attributes
    ----------
    pack
        The pack folder (or zip) that was checked.
    differences
        Every difference; empty when every number and every file is identical.
    notes
        What differs without failing: engine version, environment, unlisted files.
    values_compared
        How many values of ``ll144.json`` were compared (ignored fields excluded).
    files_checked
        How many files were checked against their listed SHA-256.
    key_id
        The id of the key in ``public_key.pem``, when it could be read.
    record_ok
        Whether ``record.json`` passed every verification check.
    """

    pack: Path
    differences: tuple[Difference, ...]
    notes: tuple[str, ...]
    values_compared: int
    files_checked: int
    key_id: str | None
    record_ok: bool

    @property
    def identical(self) -> bool:
        """Whether every number and every file is identical."""
        return not self.differences

    @property
    def exit_code(self) -> int:
        """0 when identical, 1 when anything differs."""
        return 0 if self.identical else 1

    def to_dict(self) -> dict[str, Any]:
        """The outcome as JSON-ready data (what ``respai reproduce --json`` prints)."""
        return {
            "kind": "respai.reproduce",
            "pack": str(self.pack),
            "identical": self.identical,
            "exit_code": self.exit_code,
            "values_compared": self.values_compared,
            "files_checked": self.files_checked,
            "record_verified": self.record_ok,
            "key_id": self.key_id,
            "ignored_fields": [_pattern_text(p) for p in IGNORED_FIELDS],
            "differences": [d.to_dict() for d in self.differences],
            "notes": list(self.notes),
        }


def _show(value: Any, limit: int = 100) -> str:
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else value
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _pattern_text(pattern: Sequence[str | None]) -> str:
    from respai.record.canonical import format_path

    return format_path(tuple(0 if p is None else p for p in pattern)).replace("[0]", "[*]")


def _ignored(path: tuple[str | int, ...]) -> bool:
    for pattern in IGNORED_FIELDS:
        if len(pattern) != len(path):
            continue
        pairs = zip(pattern, path, strict=True)
        if all((p is None and isinstance(q, int)) or p == q for p, q in pairs):
            return True
    return False


_MISSING = "<missing>"


def _walk(
    old: Any,
    new: Any,
    path: tuple[str | int, ...],
    out: list[tuple[str, Any, Any]],
    *,
    loose: bool = False,
) -> int:
    """Append every difference between two JSON trees to ``out``; return the leaves seen.

    Leaves differ when their types differ (``1`` and ``1.0``, ``True`` and ``1``) or their
    values do; with ``loose``, an integer and a float of the same value are the same
    (RFC 8785 canonical JSON, which the signed record uses, writes ``1.0`` as ``1``).
    """
    from respai.record.canonical import format_path

    if _ignored(path):
        return 0
    if isinstance(old, dict) and isinstance(new, dict):
        seen = 0
        for key in [*old, *(k for k in new if k not in old)]:
            if key not in new or key not in old:
                sub = (*path, key)
                if not _ignored(sub):
                    out.append((format_path(sub), old.get(key, _MISSING), new.get(key, _MISSING)))
                    seen += 1
                continue
            seen += _walk(old[key], new[key], (*path, key), out, loose=loose)
        return seen
    if isinstance(old, list) and isinstance(new, list):
        seen = 0
        for i in range(max(len(old), len(new))):
            if i >= len(old) or i >= len(new):
                out.append(
                    (
                        format_path((*path, i)),
                        old[i] if i < len(old) else _MISSING,
                        new[i] if i < len(new) else _MISSING,
                    )
                )
                seen += 1
                continue
            seen += _walk(old[i], new[i], (*path, i), out, loose=loose)
        return seen
    if loose and _is_number(old) and _is_number(new):
        if old != new:
            out.append((format_path(path), old, new))
    elif type(old) is not type(new) or old != new:
        out.append((format_path(path), old, new))
    return 1


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _check_files(
    folder: Path,
    listed: Mapping[str, str],
    sums: Mapping[str, str],
    signed: Mapping[str, str] | None,
) -> tuple[list[Difference], list[str], dict[str, str]]:
    diffs: list[Difference] = []
    notes: list[str] = []
    actual: dict[str, str] = {}
    for name in sorted({*listed, *sums, *(signed or {})}):
        path = folder / name
        if path.is_file():
            actual[name] = sha256_file(path)
    for name, digest in sums.items():
        if actual.get(name) != digest:
            diffs.append(Difference("hash", SUMS, name, digest, actual.get(name, _MISSING)))
    for name, digest in listed.items():
        if actual.get(name) != digest:
            diffs.append(Difference("hash", MANIFEST, name, digest, actual.get(name, _MISSING)))
    if signed is not None:
        for name, digest in signed.items():
            if actual.get(name) != digest:
                diffs.append(
                    Difference(
                        "hash", "record.json", f"$.pack {name}", digest, actual.get(name, _MISSING)
                    )
                )
    on_disk = {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()} - {
        MANIFEST
    }
    # timestamps.json (RFC 3161 tokens over the signed record) is checked by respai verify
    extra = sorted(on_disk - set(listed) - {"timestamps.json"})
    if extra:
        notes.append(
            f"{len(extra)} file(s) in the pack are not listed in {MANIFEST} (not compared): "
            + ", ".join(extra[:10])
            + (" ..." if len(extra) > 10 else "")
        )
    return diffs, notes, actual


def _check_record(folder: Path) -> tuple[list[Difference], dict[str, Any] | None, str | None]:
    from respai.record import KeyRing, RecordError, key_id, load_public_key, verify_envelope

    try:
        public = load_public_key(folder / "public_key.pem")
    except RecordError as exc:
        return (
            [Difference("record", "public_key.pem", "key", "an Ed25519 public key", exc.message)],
            None,
            None,
        )
    kid = key_id(public)
    try:
        data = read_bounded(folder / "record.json", MAX_JSON_BYTES, "MAX_JSON_BYTES")
    except OSError as exc:
        detail = f"the file cannot be read: {exc.strerror or exc}"
        return [Difference("record", "record.json", "envelope", "passes", detail)], None, kid
    report = verify_envelope(data, KeyRing.from_public_key(public))
    diffs = [
        Difference("record", "record.json", c.name, "passes", c.detail)
        for c in report.checks
        if not c.ok
    ]
    return diffs, (report.predicate if report.ok else None), kid


def _check_manifest_fields(
    folder: Path,
    predicate: Mapping[str, Any] | None,
    kid: str | None,
    actual: Mapping[str, str],
) -> list[Difference]:
    """The manifest's own fields against the signed record and the files on disk.

    Its run id, key id and creation time are the signed record's ``run_id``, the key that
    verified it and its ``timestamp``; the size listed for a file whose hash matches is
    that file's size (a file whose hash differs is already a difference). Paths and
    hashes are checked by :func:`_check_files`; :func:`read_manifest` has validated the
    shape.
    """
    doc = read_json(folder / MANIFEST, MANIFEST)
    diffs: list[Difference] = []
    signed: dict[str, Any] = {}
    if kid is not None:
        signed["key_id"] = kid
    if predicate is not None:
        signed["run_id"] = predicate.get("run_id")
        signed["created"] = predicate.get("timestamp")
    for field, value in signed.items():
        if doc.get(field) != value:
            diffs.append(Difference("value", MANIFEST, f"$.{field}", doc.get(field), value))
    for i, entry in enumerate(doc.get("files") or []):
        path = folder / str(entry.get("path"))
        size = entry.get("size_bytes")
        if actual.get(str(entry.get("path"))) != entry.get("sha256"):
            continue
        if type(size) is not int or size != path.stat().st_size:
            on_disk = path.stat().st_size
            diffs.append(Difference("value", MANIFEST, f"$.files[{i}].size_bytes", size, on_disk))
    return diffs


_CHAIN = ("seq", "run_seq", "run_id", "prev_record_id", "record_id", "record_count", "record_ids")
"""Fields sealing adds to each record (the hash chain), left out of the value comparison."""


def _packed_plan(folder: Path) -> dict[str, Any] | None:
    """``{plan_id, timestamp, record_id}`` of the plan record the pack holds (``plan.json``).

    ``None`` when the pack holds none (a run held to no plan). The file's SHA-256 is in
    the record's signed file list, which the file checks compare.
    """
    from respai.record.dsse import b64decode_any

    path = folder / "plan.json"
    if not path.is_file():
        return None
    try:
        envelope = loads_strict(read_bounded(path, MAX_JSON_BYTES))
        pred = loads_strict(b64decode_any(envelope["payload"]))["predicate"]
        start = pred["records"][0]
        return {
            "plan_id": start["plan_id"],
            "timestamp": pred["timestamp"],
            "record_id": start["record_id"],
        }
    except (OSError, ValueError, RecordError, KeyError, IndexError, TypeError):
        return {"plan_id": "plan.json cannot be read as a plan record"}


def _record_values(
    predicate: Mapping[str, Any], new: LL144Result, folder: Path
) -> list[tuple[str, Any, Any]]:
    """Differences between the signed record's values and the rerun's.

    A pack held to a plan holds the plan record (``plan.json``): the rerun's
    ``run_start.plan`` is read from it, so a record naming another plan is a difference.
    """
    from respai.ll144.seal import ll144_predicate

    fresh = ll144_predicate(
        new,
        key_id=str(predicate.get("key_id")),
        fingerprints=predicate.get("fingerprints") or {},
        timestamp=str(predicate.get("timestamp")),
        run_id=str(predicate.get("run_id")),
    )
    fresh = json.loads(json.dumps(fresh, allow_nan=False))
    packed = _packed_plan(folder)
    if packed is not None:
        fresh["records"][0]["plan"] = packed
    old_records = [
        {k: v for k, v in r.items() if k not in _CHAIN}
        for r in predicate.get("records", [])
        if isinstance(r, dict)
    ]
    out: list[tuple[str, Any, Any]] = []
    _walk(
        {"records": old_records, "counts": predicate.get("counts")},
        {"records": fresh["records"], "counts": fresh["counts"]},
        (),
        out,
        loose=True,
    )
    return out


def _environment_notes(folder: Path) -> list[str]:
    from respai.record import engine_code_fingerprint
    from respai.version import __version__

    notes: list[str] = []
    try:
        engine = loads_strict(read_bounded(folder / "engine.json", MAX_JSON_BYTES))
    except (OSError, ValueError, RecordError):
        engine = {}
    then = engine.get("engine", {}).get("version") if isinstance(engine, dict) else None
    if then != __version__:
        notes.append(
            f"engine version: the pack was built with respai {then}, this is respai {__version__}."
        )
    code = engine.get("engine_code", {}) if isinstance(engine, dict) else {}
    now = engine_code_fingerprint()
    if isinstance(code, dict) and code.get("sha256") != now["sha256"]:
        notes.append(
            "engine code: the installed respai files differ from the pack's (engine_code "
            f"sha256 {str(code.get('sha256'))[:12]}... then, {now['sha256'][:12]}... now"
            + (f"; git commit then {code.get('git_commit')}" if code.get("git_commit") else "")
            + ")."
        )
    python = engine.get("python", {}).get("version") if isinstance(engine, dict) else None
    if python and python != platform.python_version():
        notes.append(f"python: {python} then, {platform.python_version()} now.")
    try:
        old_lock = parse_lock(read_pack_text(folder / "environment.lock"))
    except (OSError, UnicodeDecodeError):
        old_lock = {}
    from respai.pack.environment import dependency_closure

    new_lock = {re.sub(r"[-_.]+", "-", n).lower(): v for n, v in distributions()}
    needed = {re.sub(r"[-_.]+", "-", n).lower() for n, _ in dependency_closure()}
    changed = sorted(k for k in old_lock if k in new_lock and old_lock[k] != new_lock[k])
    missing = sorted(k for k in old_lock if k not in new_lock)
    # a distribution the engine needs now that the lock does not name (an older pack's
    # lock listed everything installed, so it is checked against the engine's needs)
    added = sorted(k for k in needed if k not in old_lock)
    if changed or missing or added:
        parts = []
        if changed:
            parts.append(
                f"{len(changed)} at another version ("
                + ", ".join(f"{k} {old_lock[k]} -> {new_lock[k]}" for k in changed[:8])
                + (" ..." if len(changed) > 8 else "")
                + ")"
            )
        if missing:
            parts.append(
                f"{len(missing)} not installed ("
                + ", ".join(missing[:8])
                + (" ..." if len(missing) > 8 else "")
                + ")"
            )
        if added:
            parts.append(
                f"{len(added)} needed now that the lock does not list ("
                + ", ".join(added[:8])
                + (" ..." if len(added) > 8 else "")
                + ")"
            )
        notes.append("environment: differs from environment.lock: " + "; ".join(parts) + ".")
    return notes


def _rerun(folder: Path, roles: Mapping[str, str | None], old: Mapping[str, Any]) -> LL144Result:
    from respai.ll144.audit import run_ll144
    from respai.spec import load_spec

    spec_copy = folder / str(roles["spec"])
    spec = load_spec(spec_copy)
    data = dataclasses.replace(
        spec.data,
        cases=folder / str(roles["decisions"]),
        demographics=None
        if roles["demographics"] is None
        else folder / str(roles["demographics"]),
    )
    spec = dataclasses.replace(spec, data=data)
    audit = old.get("audit") if isinstance(old, dict) else None
    checked = audit.get("checked_on") if isinstance(audit, dict) else None
    try:
        today = dt.date.fromisoformat(str(checked)) if checked else None
    except ValueError:
        today = None
    return run_ll144(spec, today=today)


def reproduce_pack(pack_dir: str | Path) -> ReproduceResult:
    """Rerun the audit of an evidence pack from its own copies and compare every number.

    Parameters
    ----------
    pack_dir
        The folder :func:`build_pack` wrote, or its ``.zip``.

    Returns
    -------
    ReproduceResult
        ``identical`` (exit code 0) when every compared value of ``tables/ll144.json``, the
        CSV tables, the signed record's values and every file hash are unchanged; else
        each difference with its file, JSON path, old and new value (exit code 1).

    Raises
    ------
    InputError
        When the pack is not a pack, or a file it must hold is missing or unreadable.
    """
    pack = Path(pack_dir)
    with opened(pack) as folder:
        listed, roles = read_manifest(folder)
        required = {*PACK_FILES, *listed, *(r for r in roles.values() if r is not None)}
        missing = sorted(n for n in required if not (folder / n).is_file())
        if missing:
            raise InputError(
                f"the pack {pack} is incomplete: {len(missing)} required file(s) missing: "
                + ", ".join(missing[:10])
                + (" ..." if len(missing) > 10 else "")
                + ".",
                "Restore the pack from its .zip archive.",
            )
        sums = parse_sums(folder / SUMS)
        old = read_json(folder / "tables/ll144.json", "tables/ll144.json")
        if not isinstance(old, dict):
            raise InputError(f"{folder / 'tables/ll144.json'} is not an ll144.json object.")
        record_diffs, predicate, kid = _check_record(folder)
        signed = None
        if predicate is not None and isinstance(predicate.get("pack"), dict):
            signed = {
                str(f.get("path")): str(f.get("sha256"))
                for f in predicate["pack"].get("files", [])
                if isinstance(f, dict)
            }
        diffs, notes, actual = _check_files(folder, listed, sums, signed)
        diffs += record_diffs
        diffs += _check_manifest_fields(folder, predicate, kid, actual)
        for role in ("spec", "decisions", "demographics"):
            name = roles[role]
            if name is not None and name not in sums:
                diffs.append(Difference("hash", SUMS, name, _MISSING, actual.get(name)))
        if predicate is not None:
            fps = predicate.get("fingerprints") or {}
            for key, role in (("dataset", "decisions"), ("demographics", "demographics")):
                name = roles[role]
                entry = fps.get(key)
                if name is None or not isinstance(entry, dict):
                    continue
                if entry.get("sha256") != actual.get(name):
                    diffs.append(
                        Difference(
                            "hash",
                            "record.json",
                            f"$.fingerprints.{key}.sha256",
                            entry.get("sha256"),
                            actual.get(name),
                        )
                    )
        compared = 0
        try:
            new_res = _rerun(folder, roles, old)
        except Error as exc:
            diffs.append(
                Difference("rerun", "inputs/", "audit", "ran", f"failed: {exc.diagnostics()}")
            )
            new_res = None
        if new_res is not None:
            from respai.ll144.summary import tables_csv

            new = json.loads(json_text(new_res.to_dict()))
            found: list[tuple[str, Any, Any]] = []
            compared = _walk(old, new, (), found)
            diffs += [
                Difference(
                    "number" if _is_number(o) or _is_number(n) else "value",
                    "tables/ll144.json",
                    p,
                    o,
                    n,
                )
                for p, o, n in found
            ]
            for name, text in (
                ("tables/tables.csv", tables_csv(new_res)),
                ("tables/cells.csv", cells_csv(new, new_res.count_key)),
            ):
                try:
                    have = read_pack_text(folder / name).splitlines()
                except (OSError, UnicodeDecodeError) as exc:
                    raise InputError(
                        f"cannot read {folder / name}: {getattr(exc, 'strerror', None) or exc}.",
                        "The pack is damaged; restore it from the archive.",
                    ) from None
                want = text.splitlines()
                for i in range(max(len(have), len(want))):
                    a = have[i] if i < len(have) else _MISSING
                    b = want[i] if i < len(want) else _MISSING
                    if a != b:
                        diffs.append(Difference("table", name, f"line {i + 1}", a, b))
            if predicate is not None:
                diffs += [
                    Difference(
                        "number" if _is_number(o) or _is_number(n) else "value",
                        "record.json",
                        p,
                        o,
                        n,
                    )
                    for p, o, n in _record_values(predicate, new_res, folder)
                ]
            if new_res.ll144.audit_date and not new_res.ll144.use_date:
                audit = dt.date.fromisoformat(new_res.ll144.audit_date)
                if dt.date.today() > _anniversary(audit):
                    notes.append(
                        f"the audit of {audit.isoformat()} is more than a year old today: "
                        "the tool may not be used on it (the pack's one-year check used "
                        f"{new_res.checked_on}, the date it recorded)."
                    )
        notes += _environment_notes(folder)
        files_checked = len({*listed, *sums})
    return ReproduceResult(
        pack=pack,
        differences=tuple(diffs),
        notes=tuple(notes),
        values_compared=compared,
        files_checked=files_checked,
        key_id=kid,
        record_ok=not record_diffs,
    )


def _anniversary(day: dt.date) -> dt.date:
    try:
        return day.replace(year=day.year + 1)
    except ValueError:  # 29 February
        return dt.date(day.year + 1, 3, 1)
