"""Building an LL144 evidence pack: run the audit, write every file, sign, archive.

:func:`build_pack` runs the audit of a spec and writes a folder (and the same folder as a
``.zip`` beside it) holding the scope memo, copies of the spec and of every input file
with their SHA-256 sums, the row reconciliation, the engine and the exact environment,
the raw count tables and the full ``ll144.json``, the exclusions and their justification,
the auditor's independence statement (or a blank one to sign), the dates, a signed
evidence record, the public key, the published summary and a ``MANIFEST.json`` listing
every file with its SHA-256.

The pack is written the way every signed respai run is (:class:`respai.sealing.Signing`):
into a temporary folder next to the target, renamed into place only when everything
succeeded, with its ``.zip`` put in place beside it (a companion of the folder). An
existing target is replaced only when it is empty or an earlier pack. With a ledger, the
record is chained to the ledger's head under the ledger's lock and appended last; a
failed append takes the pack, its zip, a ledger created for it and a key created for it
back out.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import hashlib
import os
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

from respai.errors import InputError
from respai.io import StagedFolder
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
    from respai.sealing import SigningKey

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
    #: The engine's wheel in the pack (``wheel/<file>``), or ``None`` when it carries none.
    wheel: str | None = None
    #: Where the wheel came from (``"--wheel"``, ``"installed"``), or why there is none.
    wheel_note: str | None = None

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
            "wheel": self.wheel,
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


class _Archive:
    """The pack's ``.zip`` beside its folder, put in place and taken back with it.

    A :class:`respai.sealing.Companion`: made from the staged folder once it is written.
    """

    def __init__(
        self,
        out: Path,
        zip_path: Path,
        contents: Callable[[], tuple[list[str], dt.datetime]],
    ) -> None:
        self.out = out
        self.zip_path = zip_path
        self.contents = contents
        self.tmp_zip = out.parent / f".{out.name}.zip.tmp-{os.getpid()}"
        self.backup: Path | None = None
        self.placed = False

    def prepare(self, staged: StagedFolder) -> None:
        files, when = self.contents()
        tmp = staged.staging
        for folder in {tmp, *((tmp / f).parent for f in files)}:
            os.chmod(folder, umask_mode(0o777))
        zip_folder(tmp, files, self.tmp_zip, self.out.name, when)
        os.chmod(self.tmp_zip, umask_mode(0o666))

    def commit(self) -> None:
        if self.zip_path.exists():
            self.backup = self.out.parent / f".{self.out.name}.zip.old-{os.getpid()}"
            os.replace(self.zip_path, self.backup)
        os.replace(self.tmp_zip, self.zip_path)
        self.placed = True

    def rollback(self) -> None:
        if self.backup is not None and self.backup.exists():  # the earlier zip goes back
            os.replace(self.backup, self.zip_path)
        elif self.placed:  # the new zip is in place but the run is not
            self.zip_path.unlink(missing_ok=True)
        self.tmp_zip.unlink(missing_ok=True)

    def finish(self) -> None:
        if self.backup is not None:
            self.backup.unlink(missing_ok=True)


def build_pack(
    spec_path: str | Path,
    out_dir: str | Path,
    *,
    key_path: str | Path | None = None,
    today: dt.date | None = None,
    ledger: str | Path | None = None,
    policy: str | Path | None = None,
    plan: str | None = None,
    wheel: str | Path | None = None,
    timestamps: Sequence[str] = (),
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
    wheel
        The wheel file of the running engine, copied into the pack as ``wheel/<file>``
        (refused when it is not the running engine's: see
        :func:`respai.pack.environment.choose_wheel`). Without it, the wheel the running
        copy was installed from, when that file still exists with the SHA-256 pip
        recorded; else the pack carries no wheel and ``engine.json`` says why.
    timestamps
        RFC 3161 authorities (``--timestamp``): a token over the pack's record from each,
        kept as ``timestamps.json`` in the pack and its zip (outside the manifest: the
        tokens are over the signed record, which lists the manifest's files); see
        :func:`respai.sealing.seal_run`.

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
    from respai.record import engine_code_fingerprint, format_timestamp, now_utc, seal
    from respai.record.timestamp import SIDECAR
    from respai.sealing import begin_signing, envelope_bytes, spec_inputs
    from respai.spec import load_policy, load_spec

    out = Path(out_dir)
    zip_path = out.with_name(out.name + ".zip")
    signing = begin_signing(
        [("--out", out), ("the archive", zip_path)],
        [("the spec", spec_path), ("--policy", policy)],
        key=None if key_path is None else Path(key_path),
        ledger=None if ledger is None else Path(ledger),
        stage=lambda folder: _check_target(folder, zip_path),
        out=out,
        timestamps=timestamps,
    )
    staged = signing.staged
    assert staged is not None  # a pack always has its folder
    spec = load_spec(spec_path)
    signing.refuse_inputs(spec_inputs(spec))  # the decisions and self-ID files
    pol = None if policy is None else load_policy(policy)
    planned = None
    if plan is not None:  # checked before the data is read
        from respai.plan.seal import registered

        planned, _ = registered(spec, pol, ledger=signing.ledger, sk=signing.found, wanted=plan)
    from respai.pack.environment import choose_wheel

    engine_code = engine_code_fingerprint()
    chosen = choose_wheel(wheel, engine_code)  # refused before the audit runs
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
        "engine.json": json_text(engine_json(engine_code, chosen.to_dict())),
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
    hashes: dict[str, str] = {}
    made: dict[str, Any] = {}

    def build(sk: SigningKey, prev: str, start: int) -> Mapping[str, Any]:
        # the time is read once the key exists (a key made for this pack lists the second
        # it was made as its not_before, and the record may not predate it) and under the
        # ledger's lock, so runs appended one after another have times in that order
        now = now_utc().replace(microsecond=0)
        created = format_timestamp(now)
        made["now"] = now
        tmp = staged.staging  # made now, under seal_run's care
        generated["dates.json"] = json_text(dates_json(result, created))
        for role, src in sources:
            digest = copy_file(src, tmp / names[role])
            if expected.get(role) and digest != expected[role]:
                raise InputError(
                    f"{src} changed while the pack was built: the audit read SHA-256 "
                    f"{expected[role]}, the copy has {digest}.",
                    "Make sure nothing writes to the input files, then build the pack again.",
                )
            hashes[names[role]] = digest
        generated[SUMS] = "".join(
            f"{hashes[n]}  {PurePosixPath(n).relative_to('inputs').as_posix()}\n"
            for n in sorted(hashes)
        )
        if chosen.path is not None and chosen.member is not None:
            digest = copy_file(chosen.path, tmp / chosen.member)
            if digest != chosen.sha256:
                raise InputError(
                    f"{chosen.path} changed while the pack was built: it had SHA-256 "
                    f"{chosen.sha256}, the copy has {digest}.",
                    "Make sure nothing writes to the wheel, then build the pack again.",
                )
            hashes[chosen.member] = digest
        for name, text in generated.items():
            data = text.encode("utf-8")
            write_synced(tmp / name, data)
            hashes[name] = hashlib.sha256(data).hexdigest()
        predicate = ll144_predicate(
            result,
            key_id=sk.key_id,
            fingerprints=ll144_fingerprints(result, engine_code),
            timestamp=created,
            pack_files=[{"path": n, "sha256": hashes[n]} for n in sorted(hashes)],
        )
        if planned is not None:
            predicate["records"][0]["plan"] = planned.reference()
        made["run_id"] = predicate["run_id"]
        return seal(predicate, None, sk.key, sk.key_id, prev_record_id=prev, start_seq=start)

    def files(sk: SigningKey, envelope: Mapping[str, Any]) -> dict[str, bytes]:
        from respai.record.keys import public_key_raw
        from respai.render.report import render_report_bytes

        last: dict[str, bytes] = {
            "record.json": envelope_bytes(envelope),
            "public_key.pem": sk.key.public_key().public_bytes(
                serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
            ),
            # the signed record as a report that verifies itself in a browser
            "report.html": render_report_bytes(envelope, public_key_raw(sk.key.public_key())),
        }
        sizes = {n: (staged.staging / n).stat().st_size for n in hashes}
        for name, data in last.items():
            hashes[name] = hashlib.sha256(data).hexdigest()
            sizes[name] = len(data)
        manifest = {
            "kind": PACK_KIND,
            "format": PACK_FORMAT,
            "created": format_timestamp(made["now"]),
            "engine": body["engine"],
            "run_id": made["run_id"],
            "key_id": sk.key_id,
            "inputs": {role: names.get(role) for role in ("spec", "decisions", "demographics")},
            "files": [
                {"path": n, "sha256": hashes[n], "size_bytes": sizes[n]} for n in sorted(hashes)
            ],
        }
        made["manifest"] = json_text(manifest).encode("utf-8")
        made["files"] = sorted([*hashes, MANIFEST, *([SIDECAR] if signing.timestamps else [])])
        return {**last, MANIFEST: made["manifest"]}

    archive = _Archive(out, zip_path, lambda: (made["files"], made["now"]))
    try:
        _, book, note = signing.seal(build, files, companion=archive)
    except OSError as exc:
        raise InputError(
            f"cannot write the evidence pack into {out}: {exc.strerror or exc}.",
            "Check the folder's permissions and free space.",
        ) from None
    sk = signing.signing_key()
    return PackResult(
        out_dir=out,
        zip_path=zip_path,
        manifest_sha256=hashlib.sha256(made["manifest"]).hexdigest(),
        files=tuple(made["files"]),
        key_id=sk.key_id,
        key_path=sk.path,
        key_created=sk.created,
        independence=independence_status(result),
        result=result,
        ledger=book,
        note=note,
        wheel=chosen.member,
        wheel_note=chosen.source if chosen.path is not None else chosen.reason,
    )
