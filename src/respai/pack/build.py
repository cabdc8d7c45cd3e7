"""Building an LL144 evidence pack: run the audit, write every file, sign, archive.

:func:`build_pack` runs the audit of a spec and writes a folder (and the same folder as a
``.zip`` beside it) holding the scope memo, copies of the spec and of every input file
with their SHA-256 sums, the row reconciliation, the engine and the exact environment,
the raw count tables and the full ``ll144.json``, the exclusions and their justification,
the auditor's independence statement (or a blank one to sign), the dates, a signed
evidence record, the public key, the published summary and a ``MANIFEST.json`` listing
every file with its SHA-256.

The pack is written the way every respai output is: into a temporary folder next to the
target, renamed into place only when everything succeeded. An existing target is
replaced only when it is empty or an earlier pack. With a ledger, the record is chained
to the ledger's head under the ledger's lock and appended last; a failed append takes
the pack, its zip, a ledger created for it and a key created for it back out.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import hashlib
import os
import shutil
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from respai.errors import InputError
from respai.io import StagedFolder, refuse_overlaps
from respai.pack.archive import (
    MANIFEST,
    PACK_FORMAT,
    PACK_KIND,
    SUMS,
    copy_file,
    earlier_pack,
    earlier_zip,
    input_names,
    umask_mode,
    write_synced,
    zip_folder,
)
from respai.pack.documents import (
    cells_csv,
    dates_json,
    engine_json,
    environment_lock,
    exclusions_md,
    independence_md,
    json_text,
    scope_md,
)

if TYPE_CHECKING:
    from respai.ll144.audit import LL144Result

__all__ = ["PackResult", "build_pack"]


@dataclasses.dataclass(frozen=True, slots=True)
class PackResult:
    """What :func:`build_pack` wrote.

    Attributes
    ----------
    out_dir, zip_path
        The pack folder and the zip archive of it.
    manifest_sha256
        The SHA-256 of ``MANIFEST.json``: record it to pin the whole pack.
    files
        Every file of the pack, relative to ``out_dir``, sorted.
    key_id, key_path, key_created
        The signing key, its file, and whether it was created for this pack.
    independence
        ``"recorded"`` (the spec holds the auditor's statement) or ``"not_signed"``.
    result
        The audit result.
    """

    out_dir: Path
    zip_path: Path
    manifest_sha256: str
    files: tuple[str, ...]
    key_id: str
    key_path: Path
    key_created: bool
    independence: str
    result: LL144Result
    #: The ledger the signed run was appended to, or ``None``.
    ledger: Path | None = None
    #: A sentence for the user when the ledger took the run short of a checkpoint.
    note: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The pack's location, manifest hash and files as JSON-ready data."""
        return {
            "kind": PACK_KIND,
            "out_dir": str(self.out_dir),
            "zip": str(self.zip_path),
            "manifest_sha256": self.manifest_sha256,
            "key_id": self.key_id,
            "key_created": self.key_created,
            "independence_statement": self.independence,
            "files": list(self.files),
            "ledger": None if self.ledger is None else str(self.ledger),
        }


def _check_target(out: Path, zip_path: Path) -> StagedFolder:
    """The pack folder, staged beside ``out``, and its zip: both checked before anything."""
    staged = StagedFolder(out, earlier_pack, what="respai evidence pack")
    if zip_path.exists() and not (zip_path.is_file() and earlier_zip(zip_path, out.name)):
        raise InputError(
            f"{zip_path} already exists and is not an earlier evidence pack archive; it is "
            "left untouched.",
            "Choose another --out, or remove that file first.",
        )
    return staged


def build_pack(
    spec_path: str | Path,
    out_dir: str | Path,
    *,
    key_path: str | Path | None = None,
    today: dt.date | None = None,
    ledger: str | Path | None = None,
    policy: str | Path | None = None,
    plan: str | None = None,
) -> PackResult:
    """Run the LL144 audit of ``spec_path`` and write its evidence pack.

    Parameters
    ----------
    spec_path
        The spec file (with an ``ll144:`` block).
    out_dir
        The pack folder to create (or replace, when it is an earlier pack); the archive
        is written beside it as ``<out_dir>.zip``.
    key_path
        The signing key; by default the newest key in the key folder, else a new key
        created there (``PackResult.key_created`` says so).
    today
        The run date for the one-year rule when ``use_date`` is not set (default: the
        system date).
    ledger
        The ledger folder the signed run is appended to (``None``: none). The record is
        chained to the ledger's head, and the pack, its zip and the ledger entry are
        written together or not at all.
    policy
        A policy file whose ``alpha`` sets the Fisher tests' significance level.
    plan
        A plan id (``respai plan``): the audit is held to that plan's criteria (refused
        when one changed), its record's ``run_start.plan`` names it, and the verified
        plan record is copied into the pack as ``plan.json``.

    Raises
    ------
    SpecError, InputError
        For a bad spec or bad data (nothing is written), an ``--out`` that exists and is
        not an earlier pack, or an input file that changed while the pack was built.
    respai.record.KeyMaterialError
        When the key cannot be loaded.
    """
    from cryptography.hazmat.primitives import serialization

    from respai.ll144.audit import run_ll144
    from respai.ll144.seal import independence_status, ll144_fingerprints, ll144_predicate
    from respai.ll144.summary import summary_csv, summary_html, summary_markdown, tables_csv
    from respai.record import GENESIS, engine_code_fingerprint, format_timestamp, now_utc, seal
    from respai.sealing import (
        create_signing_key,
        discard_created_key,
        envelope_bytes,
        find_signing_key,
        key_inputs,
        settle_created_key,
        spec_inputs,
    )
    from respai.spec import load_policy, load_spec

    out = Path(out_dir)
    zip_path = out.with_name(out.name + ".zip")
    outputs = [("--out", out), ("the archive", zip_path)]
    refuse_overlaps(
        outputs,
        [
            ("the spec", spec_path),
            ("--policy", policy),
            *key_inputs(None if key_path is None else Path(key_path)),
        ],
        ledger=None if ledger is None else ("--ledger", ledger),
    )
    staged = _check_target(out, zip_path)
    found = find_signing_key(None if key_path is None else Path(key_path))
    spec = load_spec(spec_path)
    refuse_overlaps(outputs, spec_inputs(spec))  # the decisions and self-ID files
    pol = None if policy is None else load_policy(policy)
    planned = None
    if plan is not None:  # checked before the data is read
        from respai.plan.seal import registered

        book = None if ledger is None else Path(ledger)
        planned, _ = registered(spec, pol, ledger=book, sk=found, wanted=plan)
    result = run_ll144(spec, today=today, policy=pol)
    assert spec.path is not None
    sources: list[tuple[str, Path]] = [("spec", Path(spec.path))]
    if spec.data.cases is not None:
        sources.append(("decisions", Path(spec.data.cases)))
    if spec.data.demographics is not None:
        sources.append(("demographics", Path(spec.data.demographics)))
    names = input_names(sources)
    expected: dict[str, str | None] = {"spec": spec.sha256}
    for f in result.data.reconciliation.files:
        expected["decisions" if f.role == "decisions" else "demographics"] = str(
            f.fingerprint.get("sha256")
        )
    engine_code = engine_code_fingerprint()
    body = result.to_dict()
    generated: dict[str, str] = {
        "scope.md": scope_md(result),
        "reconciliation.json": json_text(
            {
                "kind": "respai.ll144.reconciliation",
                **body["reconciliation"],
                "warning": result.data.reconciliation.warning(),
                "copies": {role: names[role] for role, _ in sources},
            }
        ),
        "engine.json": json_text(engine_json(engine_code)),
        "environment.lock": environment_lock(),
        "tables/ll144.json": json_text(body),
        "tables/tables.csv": tables_csv(result),
        "tables/cells.csv": cells_csv(body, result.count_key),
        "exclusions.md": exclusions_md(result),
        "independence.md": independence_md(result),
        "summary/summary.html": summary_html(result),
        "summary/summary.md": summary_markdown(result),
        "summary/summary.csv": summary_csv(result),
    }
    if planned is not None:  # the signed plan the audit was held to, as the ledger holds it
        generated["plan.json"] = planned.data.decode("utf-8")
    tmp = staged.staging
    parent = staged.out.parent
    tmp_zip = parent / f".{out.name}.zip.tmp-{os.getpid()}"
    zip_backup: Path | None = None
    note: str | None = None
    book_path = None if ledger is None else Path(ledger)
    created_ledger = book_path is not None and not book_path.exists()
    stack = contextlib.ExitStack()
    sk = None
    try:
        sk = found or create_signing_key()
        prev, start = GENESIS, 0
        head = None
        if book_path is not None:
            from respai.ledger import Ledger

            head = stack.enter_context(Ledger.open(book_path).append_lock())
            prev, start = head.last_record_id, head.next_seq
        # the time is read once the key exists (a key made for this pack lists the second
        # it was made as its not_before, and the record may not predate it) and under the
        # ledger's lock, so runs appended one after another have times in that order
        now = now_utc().replace(microsecond=0)
        created = format_timestamp(now)
        generated["dates.json"] = json_text(dates_json(result, created))
        hashes: dict[str, str] = {}
        for role, src in sources:
            digest = copy_file(src, tmp / names[role])
            if expected.get(role) and digest != expected[role]:
                raise InputError(
                    f"{src} changed while the pack was built: the audit read SHA-256 "
                    f"{expected[role]}, the copy has {digest}.",
                    "Make sure nothing writes to the input files, then build the pack again.",
                )
            hashes[names[role]] = digest
        sums = "".join(
            f"{hashes[n]}  {PurePosixPath(n).relative_to('inputs').as_posix()}\n"
            for n in sorted(hashes)
        )
        generated[SUMS] = sums
        for name, text in generated.items():
            data = text.encode("utf-8")
            write_synced(tmp / name, data)
            hashes[name] = hashlib.sha256(data).hexdigest()
        signed_list = [{"path": n, "sha256": hashes[n]} for n in sorted(hashes)]
        predicate = ll144_predicate(
            result,
            key_id=sk.key_id,
            fingerprints=ll144_fingerprints(result, engine_code),
            timestamp=created,
            pack_files=signed_list,
        )
        if planned is not None:
            predicate["records"][0]["plan"] = planned.reference()
        envelope = seal(predicate, None, sk.key, sk.key_id, prev_record_id=prev, start_seq=start)
        from respai.record.keys import public_key_raw
        from respai.render.report import render_report

        last: dict[str, bytes] = {
            "record.json": envelope_bytes(envelope),
            "public_key.pem": sk.key.public_key().public_bytes(
                serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
            ),
            # the signed record as a report that verifies itself in a browser
            "report.html": render_report(envelope, public_key_raw(sk.key.public_key())).encode(
                "utf-8"
            ),
        }
        for name, data in last.items():
            write_synced(tmp / name, data)
            hashes[name] = hashlib.sha256(data).hexdigest()
        manifest = {
            "kind": PACK_KIND,
            "format": PACK_FORMAT,
            "created": created,
            "engine": body["engine"],
            "run_id": predicate["run_id"],
            "key_id": sk.key_id,
            "inputs": {role: names.get(role) for role in ("spec", "decisions", "demographics")},
            "files": [
                {"path": n, "sha256": hashes[n], "size_bytes": (tmp / n).stat().st_size}
                for n in sorted(hashes)
            ],
        }
        manifest_bytes = json_text(manifest).encode("utf-8")
        write_synced(tmp / MANIFEST, manifest_bytes)
        files = sorted([*hashes, MANIFEST])
        for folder in {tmp, *((tmp / f).parent for f in files)}:
            os.chmod(folder, umask_mode(0o777))
        zip_folder(tmp, files, tmp_zip, out.name, now)
        os.chmod(tmp_zip, umask_mode(0o666))
        staged.commit()
        if zip_path.exists():
            zip_backup = parent / f".{out.name}.zip.old-{os.getpid()}"
            os.replace(zip_path, zip_backup)
        os.replace(tmp_zip, zip_path)
        if head is not None:  # last: a failed append takes the pack back out
            note = head.append(envelope, sk.key).note
        stack.close()
    except BaseException as exc:
        stack.close()
        if zip_backup is not None and zip_backup.exists():  # the earlier zip goes back
            os.replace(zip_backup, zip_path)
        elif staged.committed:  # the new folder is in place but its zip or entry is not
            zip_path.unlink(missing_ok=True)
        staged.rollback()  # the new folder goes, an earlier one comes back
        tmp_zip.unlink(missing_ok=True)
        if created_ledger and book_path is not None:
            shutil.rmtree(book_path, ignore_errors=True)
        if sk is not None:
            discard_created_key(sk)
        if isinstance(exc, OSError):
            raise InputError(
                f"cannot write the evidence pack into {out}: {exc.strerror or exc}.",
                "Check the folder's permissions and free space.",
            ) from None
        raise
    staged.finish()
    settle_created_key(sk)
    if zip_backup is not None:
        zip_backup.unlink(missing_ok=True)
    return PackResult(
        out_dir=out,
        zip_path=zip_path,
        manifest_sha256=hashlib.sha256(manifest_bytes).hexdigest(),
        files=tuple(files),
        key_id=sk.key_id,
        key_path=sk.path,
        key_created=sk.created,
        independence=independence_status(result),
        result=result,
        ledger=None if book_path is None else book_path.resolve(),
        note=note,
    )
