"""The LL144 evidence pack: everything needed to rerun a bias audit and get the same numbers.

:func:`build_pack` runs the audit of a spec and writes a folder (and the same folder as a
``.zip`` beside it) holding the scope memo, copies of the spec and of every input file
with their SHA-256 sums, the row reconciliation, the engine and the exact environment,
the raw count tables and the full ``ll144.json``, the exclusions and their justification,
the auditor's independence statement (or a blank one to sign), the dates, a signed
evidence record, the public key, the published summary and a ``MANIFEST.json`` listing
every file with its SHA-256.

:func:`reproduce_pack` reruns the audit from the pack's own copies and compares every
value of the new result with the archived ``tables/ll144.json``, checks every file
against ``inputs/SHA256SUMS``, ``MANIFEST.json`` and the file list signed in the record,
and verifies the record with the pack's public key. An engine or environment that
differs from the archived one is a note, not a failure: only a difference in the numbers
or the files fails.

The pack is written the way every respai output is: into a temporary folder next to the
target, renamed into place only when everything succeeded. An existing target is
replaced only when it is empty or an earlier pack.

``pack_command`` and ``reproduce_command`` are the thin ``respai pack`` and ``respai
reproduce`` commands. Heavy modules load inside the functions, so importing this module
(and ``respai --help``) stays cheap.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import functools
import hashlib
import html
import json
import os
import platform
import re
import shutil
import sys
import tempfile
import zipfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

import click

from respai.errors import Error, InputError

if TYPE_CHECKING:
    from respai.ll144.audit import LL144Result

__all__ = [
    "IGNORED_FIELDS",
    "MANIFEST",
    "PACK_FILES",
    "PACK_FORMAT",
    "PACK_KIND",
    "Difference",
    "PackResult",
    "ReproduceResult",
    "build_pack",
    "pack_command",
    "reproduce_command",
    "reproduce_pack",
]

PACK_KIND = "respai.ll144.pack"
"""The ``kind`` of ``MANIFEST.json`` (and how an earlier pack is recognised)."""

PACK_FORMAT = "1.0"
"""The layout version of the pack."""

MANIFEST = "MANIFEST.json"
SUMS = "inputs/SHA256SUMS"

PACK_FILES = (
    "scope.md",
    SUMS,
    "reconciliation.json",
    "engine.json",
    "environment.lock",
    "tables/ll144.json",
    "tables/tables.csv",
    "tables/cells.csv",
    "exclusions.md",
    "independence.md",
    "dates.json",
    "record.json",
    "public_key.pem",
    "report.html",
    "summary/summary.html",
    "summary/summary.md",
    "summary/summary.csv",
    MANIFEST,
)
"""The files every pack holds, besides the copies of the spec and the data in ``inputs/``."""

_SIGNED_LAST = ("record.json", "public_key.pem", "report.html", MANIFEST)
"""Files written after the record is signed, so they are not in its signed file list."""

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

_HEX64 = re.compile(r"^[0-9a-f]{64}$")
_SUM_LINE = re.compile(r"^([0-9a-f]{64}) [ *](.+)$")
_MAX_SHOWN = 40


# --- results ---------------------------------------------------------------------------


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


# --- small helpers ---------------------------------------------------------------------


def _show(value: Any, limit: int = 100) -> str:
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else value
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _pattern_text(pattern: Sequence[str | None]) -> str:
    from respai.record.canonical import format_path

    return format_path(tuple(0 if p is None else p for p in pattern)).replace("[0]", "[*]")


def _sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while chunk := fh.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def _json_text(doc: Any) -> str:
    return json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def _md(text: object) -> str:
    """Spec text for a Markdown file: no HTML, no line breaks."""
    return html.escape(str(text), quote=False).replace("\n", " ")


def _safe_relative(text: object, where: str) -> str:
    """A pack-relative POSIX path, refusing absolute paths and ``..``."""
    if not isinstance(text, str) or not text:
        raise InputError(f"{where} is not a file name inside the pack: {text!r}.")
    pure = PurePosixPath(text)
    if pure.is_absolute() or ".." in pure.parts:
        raise InputError(
            f"{where} names {text!r}, which is not a path inside the pack.",
            "A pack lists its files relative to its own folder.",
        )
    return pure.as_posix()


def _umask_mode(mode: int) -> int:
    umask = os.umask(0)
    os.umask(umask)
    return mode & ~umask


def _distributions() -> list[tuple[str, str]]:
    """Every installed distribution as ``(name, version)``, one per name, sorted."""
    from importlib.metadata import distributions

    seen: dict[str, tuple[str, str]] = {}
    for dist in distributions():
        name = dist.metadata["Name"]
        if not name:
            continue
        key = re.sub(r"[-_.]+", "-", str(name)).lower()
        seen.setdefault(key, (str(name), str(dist.version)))
    return [seen[k] for k in sorted(seen)]


def _environment_lock() -> str:
    lines = [
        "# Exact versions of every distribution installed when this pack was built.",
        f"# Python {platform.python_version()} ({platform.python_implementation()}) on "
        f"{platform.platform()}.",
    ]
    lines += [f"{name}=={version}" for name, version in _distributions()]
    return "\n".join(lines) + "\n"


def _parse_lock(text: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#") or "==" not in line:
            continue
        name, _, version = line.partition("==")
        out[re.sub(r"[-_.]+", "-", name.strip()).lower()] = version.strip()
    return out


# --- the pack's documents --------------------------------------------------------------


def _scope_md(res: LL144Result) -> str:
    from respai.eeo1 import RACE_CATEGORIES, SEX_CATEGORIES
    from respai.ll144.tables import LINE

    ll, spec = res.ll144, res.spec
    system = spec.system
    tool = " ".join(x for x in (system.name, system.version) if x) or "not stated"
    if ll.kind == "selection":
        decision = (
            f"The tool's selection decision in column `{_md(ll.selected)}` (1 = moved "
            "forward or put in the class, 0 = not). Rate: the **selection rate**, the share "
            "of a category selected."
        )
    else:
        decision = (
            f"The tool's score in column `{_md(ll.score)}`. Rate: the **scoring rate**, the "
            "share of a category scoring strictly above the median score of the whole "
            "sample (unknown categories included)."
        )
    extra = []
    if ll.cutoffs:
        extra.append(
            "Also computed at the cutoffs where people act on the score: top "
            + ", ".join(f"{c:.0%}" for c in ll.cutoffs)
            + "."
        )
    if ll.stages:
        extra.append(
            "Funnel stages (each a 0/1 column, in order): "
            + ", ".join(f"`{_md(s)}`" for s in ll.stages)
            + "."
        )
    rec = res.data.reconciliation
    mapped = [
        f"- {axis}: '{_md(spelling)}' is read as {_md(label)}"
        for axis, mapping in ll.categories.items()
        for spelling, label in mapping.items()
    ]
    lines = [
        "# Scope memo: NYC Local Law 144 bias audit",
        "",
        "This memo states the audit's criteria as they are fixed in the spec file "
        f"`{_md(spec.path.name if spec.path else 'spec')}` (SHA-256 `{spec.sha256}`, "
        "copied in `inputs/`). The spec's hash pins these criteria: a changed metric, "
        "category or flag rule is a different spec. Sign the memo below, or attach the "
        "memo that was signed before the data was read.",
        "",
        "## Tool and decision point",
        "",
        f"- Tool: {_md(tool)}",
        f"- Owner: {_md(system.owner or 'not stated')}",
        f"- Use case: {_md(system.use_case or 'not stated')}",
        f"- Jurisdiction: {_md(system.jurisdiction or 'not stated')}",
        f"- Output type: **{ll.kind}**",
        f"- Decision point: {decision}",
        *(f"- {e}" for e in extra),
        "",
        "## Population and window",
        "",
        f"- Data source: {_md(spec.data.source or 'not stated')} data",
        f"- Explanation (population and window): {_md(spec.data.explanation or 'not stated')}",
        f"- Applicants audited: {rec.applicants} (decision rows: {rec.decision_rows}"
        + (
            f"; self-identification rows: {rec.demographic_rows}, joined on "
            f"`{_md(rec.join_on)}`: {rec.joined}"
            if rec.joined is not None
            else ""
        )
        + ")",
        "",
        "## Categories",
        "",
        "- Sex (EEO-1): " + ", ".join(SEX_CATEGORIES),
        "- Race/ethnicity (EEO-1): " + ", ".join(RACE_CATEGORIES),
        "- Intersections: every sex × race/ethnicity cell (14), listed even when empty.",
        "- Unknown: self-identification missing or declined; counted per table, never "
        "imputed"
        + (
            " (also read as unknown: " + ", ".join(f"'{_md(v)}'" for v in ll.unknown_values) + ")"
            if ll.unknown_values
            else ""
        )
        + ".",
        f"- Exclusion: a category under {ll.min_share:.0%} (min_share {ll.min_share:g}) of "
        "the applicants with a known category on its axis is left out of the impact "
        "ratios; its count and rate are still reported. Justification: "
        f"{_md(ll.exclusion_justification or 'none given (no category needed one)')}",
        *mapped,
        "",
        "## Flag rule",
        "",
        "- Impact ratio: a category's rate over the rate of the best kept category.",
        f"- Screening line: an impact ratio under {LINE:g} (the four-fifths line of "
        "29 CFR 1607.4(D)). The law sets no pass mark; the line only decides which "
        "categories get a statistical finding.",
        f"- Every kept category with a ratio under {LINE + ll.margin:g} (the line plus "
        f"margin {ll.margin:g}) gets a one-sided Fisher exact test against the top category "
        f"at alpha {res.alpha:g}, its exact power, and the cell size that would give 80% "
        "power.",
        "- A finding that is not significant at low power is reported as underpowered, "
        "never as a pass.",
        "",
        "## Dates",
        "",
        f"- Audit date: {ll.audit_date or 'not stated'}",
        f"- Distribution date of the tool: {ll.distribution_date or 'not stated'}",
        f"- Planned use date: {ll.use_date or 'not stated'}",
        f"- One-year rule checked on: {res.checked_on}",
        "",
        "## Interpretation choices",
        "",
        *(f"- {_md(item)}" for item in res.interpretation),
        "",
        "## Sign-off",
        "",
        "Signed before the data was read (attach the signed original if it was signed elsewhere):",
        "",
        "| Role | Name | Date | Signature |",
        "|---|---|---|---|",
        "| Auditor | | | |",
        "| Employer or employment agency | | | |",
        "",
    ]
    return "\n".join(lines)


def _exclusions_md(res: LL144Result) -> str:
    from respai.ll144.tables import TABLES

    ll = res.ll144
    rows = [(res.tables[n], r) for n in TABLES for r in res.tables[n].excluded]
    lines = [
        "# Categories excluded from the impact ratios",
        "",
        f"Rule: a category under {ll.min_share:.0%} (min_share {ll.min_share:g}) of the "
        "applicants with a known category on its table's axis is left out of the impact "
        "ratios (6 RCNY § 5-301(d)). Its count and rate are still in every table and in "
        "the published summary.",
        "",
    ]
    if not rows:
        lines += ["None: every category with applicants is at or above the share.", ""]
        return "\n".join(lines)
    lines += [
        f"Justification: {_md(ll.exclusion_justification or 'not stated')}",
        "",
        f"| Table | Category | Applicants | {res.rate_name.capitalize()} | Share of known |",
        "|---|---|---:|---:|---:|",
    ]
    for t, r in rows:
        rate = "—" if r.rate is None else f"{r.rate:.3f}"
        share = "—" if r.share is None else f"{r.share:.2%}"
        lines.append(f"| {t.title} | {_md(r.category)} | {r.count} | {rate} | {share} |")
    lines.append("")
    return "\n".join(lines)


_CONDITIONS = (
    "has never taken part in using, developing or distributing the tool being audited;",
    "is not, at any time during the audit, employed by the employer or employment agency "
    "that uses the tool, nor by the vendor that developed or distributes it;",
    "holds no direct financial interest, and no material indirect financial interest, in "
    "that employer, employment agency or vendor.",
)


def _independence_md(res: LL144Result) -> str:
    auditor = res.ll144.auditor
    name = auditor.name if auditor else None
    org = auditor.organisation if auditor else None
    statement = auditor.independence_statement if auditor else None
    conditions = [f"{i}. The auditor {c}" for i, c in enumerate(_CONDITIONS, 1)]
    head = [
        "# Independence statement",
        "",
        "NYC Local Law 144 requires the bias audit to be done by an independent auditor. "
        "An independent auditor, in the sense of 6 RCNY § 5-300:",
        "",
        *conditions,
        "",
    ]
    if statement:
        return "\n".join(
            [
                *head,
                "Status: **RECORDED** (from the spec's ll144.auditor block; respai records the "
                "statement and cannot check it).",
                "",
                f"- Auditor: {_md(name or 'not named')}",
                f"- Organisation: {_md(org or 'not named')}",
                "",
                "Statement:",
                "",
                f"> {_md(statement)}",
                "",
            ]
        )
    return "\n".join(
        [
            *head,
            "Status: **NOT YET SIGNED**",
            "",
            "The spec holds no independence statement (ll144.auditor.independence_statement). "
            "The auditor completes and signs the statement below; the pack is not complete "
            "evidence of an independent audit until it is signed.",
            "",
            "I confirm that I meet each of the three conditions above for this audit.",
            "",
            f"Name: {_md(name) if name else '______________________________'}",
            "",
            f"Organisation: {_md(org) if org else '______________________________'}",
            "",
            "Date: ______________________________",
            "",
            "Signature: ______________________________",
            "",
        ]
    )


def _cells_csv(body: Mapping[str, Any], count_key: str) -> str:
    import csv
    import io

    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["sex", "race", "applicants", count_key])
    for cell in body["counts"]["cells"]:
        writer.writerow(
            [cell["sex"] or "", cell["race"] or "", cell["applicants"], cell.get(count_key, "")]
        )
    return buf.getvalue()


def _engine_json(engine_code: Mapping[str, Any]) -> dict[str, Any]:
    from respai import __version__
    from respai.record.model import ENGINE_NAME

    return {
        "engine": {"name": ENGINE_NAME, "version": __version__},
        "engine_code": dict(engine_code),
        "python": {
            "version": platform.python_version(),
            "implementation": platform.python_implementation(),
        },
        "platform": {
            "system": platform.system(),
            "release": platform.release(),
            "machine": platform.machine(),
            "platform": platform.platform(),
        },
        "reinstall": (
            f"Install respai {__version__}"
            + (
                f" (git commit {engine_code['git_commit']}"
                + (", with uncommitted changes" if engine_code.get("git_dirty") else "")
                + ")"
                if engine_code.get("git_commit")
                else ""
            )
            + " and the versions in environment.lock, then run: respai reproduce PACK"
        ),
    }


def _dates_json(res: LL144Result, created: str) -> dict[str, Any]:
    ll = res.ll144
    return {
        "audit_date": ll.audit_date,
        "distribution_date": ll.distribution_date,
        "use_date": ll.use_date,
        "first_distributed": res.spec.system.first_distributed,
        "checked_on": res.checked_on,
        "stale": res.stale,
        "pack_created": created,
        "notes": [
            "The summary must be posted before the tool is used and stay up for at least "
            "six months after the employer's latest use of the tool.",
            "The tool may not be used more than one year after its latest bias audit.",
        ],
    }


# --- writing the pack ------------------------------------------------------------------


def _earlier_pack(folder: Path) -> bool:
    names = list(folder.iterdir())
    if not names:
        return True
    try:
        doc = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(doc, dict) and doc.get("kind") == PACK_KIND


def _earlier_zip(path: Path, name: str) -> bool:
    try:
        with zipfile.ZipFile(path) as zf:
            doc = json.loads(zf.read(f"{name}/{MANIFEST}").decode("utf-8"))
    except (OSError, KeyError, ValueError, zipfile.BadZipFile):
        return False
    return isinstance(doc, dict) and doc.get("kind") == PACK_KIND


def _check_target(out: Path, zip_path: Path) -> None:
    if out.exists() and not out.is_dir():
        raise InputError(
            f"--out {out} exists and is not a folder.",
            "Choose a folder name for the evidence pack.",
        )
    if out.is_dir() and not _earlier_pack(out):
        held = sorted(p.name for p in out.iterdir())
        shown = ", ".join(held[:5]) + (f" and {len(held) - 5} more" if len(held) > 5 else "")
        raise InputError(
            f"--out {out} already exists and is not an earlier respai evidence pack (it "
            f"holds {shown}); it is left untouched.",
            "Choose a new folder, or remove this one first.",
        )
    if zip_path.exists() and not (zip_path.is_file() and _earlier_zip(zip_path, out.name)):
        raise InputError(
            f"{zip_path} already exists and is not an earlier evidence pack archive; it is "
            "left untouched.",
            "Choose another --out, or remove that file first.",
        )


def _write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())


def _copy(src: Path, dest: Path) -> str:
    """Copy ``src`` to ``dest`` and return the SHA-256 of the bytes written."""
    dest.parent.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256()
    with src.open("rb") as fin, dest.open("wb") as fout:
        while chunk := fin.read(1 << 20):
            digest.update(chunk)
            fout.write(chunk)
        fout.flush()
        os.fsync(fout.fileno())
    shutil.copystat(src, dest)
    os.chmod(dest, _umask_mode(0o666))
    return digest.hexdigest()


def _input_names(paths: Sequence[tuple[str, Path]]) -> dict[str, str]:
    """Pack paths of the input copies: ``inputs/<name>``, or ``inputs/<role>/<name>``."""
    out: dict[str, str] = {}
    taken: set[str] = set()
    for role, path in paths:
        name = f"inputs/{path.name}"
        if name in taken or name == SUMS:
            name = f"inputs/{role}/{path.name}"
        taken.add(name)
        out[role] = name
    return out


def _zip(folder: Path, files: Sequence[str], target: Path, top: str, when: dt.datetime) -> None:
    stamp = when.astimezone(dt.UTC)
    date_time = (
        max(stamp.year, 1980),
        stamp.month,
        stamp.day,
        stamp.hour,
        stamp.minute,
        stamp.second,
    )
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED, allowZip64=True) as zf:
        for name in files:
            info = zipfile.ZipInfo(f"{top}/{name}", date_time=date_time)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            big = (folder / name).stat().st_size >= 1 << 31
            with (folder / name).open("rb") as src, zf.open(info, "w", force_zip64=big) as dst:
                shutil.copyfileobj(src, dst, 1 << 20)
    with target.open("rb") as fh:
        os.fsync(fh.fileno())


def build_pack(
    spec_path: str | Path,
    out_dir: str | Path,
    *,
    key_path: str | Path | None = None,
    today: dt.date | None = None,
    ledger: str | Path | None = None,
    policy: str | Path | None = None,
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
    )
    from respai.spec import load_policy, load_spec

    out = Path(out_dir)
    zip_path = out.with_name(out.name + ".zip")
    _check_target(out, zip_path)
    found = find_signing_key(None if key_path is None else Path(key_path))
    spec = load_spec(spec_path)
    pol = None if policy is None else load_policy(policy)
    result = run_ll144(spec, today=today, policy=pol)
    assert spec.path is not None
    sources: list[tuple[str, Path]] = [("spec", Path(spec.path))]
    if spec.data.cases is not None:
        sources.append(("decisions", Path(spec.data.cases)))
    if spec.data.demographics is not None:
        sources.append(("demographics", Path(spec.data.demographics)))
    names = _input_names(sources)
    expected: dict[str, str | None] = {"spec": spec.sha256}
    for f in result.data.reconciliation.files:
        expected["decisions" if f.role == "decisions" else "demographics"] = str(
            f.fingerprint.get("sha256")
        )
    now = now_utc().replace(microsecond=0)
    created = format_timestamp(now)
    engine_code = engine_code_fingerprint()
    body = result.to_dict()
    generated: dict[str, str] = {
        "scope.md": _scope_md(result),
        "reconciliation.json": _json_text(
            {
                "kind": "respai.ll144.reconciliation",
                **body["reconciliation"],
                "warning": result.data.reconciliation.warning(),
                "copies": {role: names[role] for role, _ in sources},
            }
        ),
        "engine.json": _json_text(_engine_json(engine_code)),
        "environment.lock": _environment_lock(),
        "tables/ll144.json": _json_text(body),
        "tables/tables.csv": tables_csv(result),
        "tables/cells.csv": _cells_csv(body, result.count_key),
        "exclusions.md": _exclusions_md(result),
        "independence.md": _independence_md(result),
        "dates.json": _json_text(_dates_json(result, created)),
        "summary/summary.html": summary_html(result),
        "summary/summary.md": summary_markdown(result),
        "summary/summary.csv": summary_csv(result),
    }
    parent = out.resolve().parent
    try:
        parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=parent))
    except OSError as exc:
        raise InputError(
            f"cannot write into {parent}: {exc.strerror}.", "Choose a folder you can write to."
        ) from None
    tmp_zip = parent / f".{out.name}.zip.tmp-{os.getpid()}"
    backup: Path | None = None
    zip_backup: Path | None = None
    moved = False
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
        hashes: dict[str, str] = {}
        for role, src in sources:
            digest = _copy(src, tmp / names[role])
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
            _write(tmp / name, data)
            hashes[name] = hashlib.sha256(data).hexdigest()
        signed_list = [{"path": n, "sha256": hashes[n]} for n in sorted(hashes)]
        predicate = ll144_predicate(
            result,
            key_id=sk.key_id,
            fingerprints=ll144_fingerprints(result, engine_code),
            timestamp=created,
            pack_files=signed_list,
        )
        envelope = seal(predicate, None, sk.key, sk.key_id, prev_record_id=prev, start_seq=start)
        from respai.record.keys import public_key_raw
        from respai.render.html import render_report

        last: dict[str, bytes] = {
            "record.json": envelope_bytes(envelope),
            "public_key.pem": sk.key.public_key().public_bytes(
                serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
            ),
            # the signed record as a report that verifies itself in a browser
            "report.html": render_report(
                envelope, public_key_raw(sk.key.public_key())
            ).encode("utf-8"),
        }
        for name, data in last.items():
            _write(tmp / name, data)
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
        manifest_bytes = _json_text(manifest).encode("utf-8")
        _write(tmp / MANIFEST, manifest_bytes)
        files = sorted([*hashes, MANIFEST])
        for folder in {tmp, *((tmp / f).parent for f in files)}:
            os.chmod(folder, _umask_mode(0o777))
        _zip(tmp, files, tmp_zip, out.name, now)
        os.chmod(tmp_zip, _umask_mode(0o666))
        if out.exists():
            backup = Path(tempfile.mkdtemp(prefix=f".{out.name}.old.", dir=parent))
            backup.rmdir()
            out.rename(backup)
        tmp.rename(out)
        moved = True
        if zip_path.exists():
            zip_backup = parent / f".{out.name}.zip.old-{os.getpid()}"
            os.replace(zip_path, zip_backup)
        os.replace(tmp_zip, zip_path)
        if head is not None:  # last: a failed append takes the pack back out
            head.append(envelope, sk.key)
        stack.close()
    except BaseException as exc:
        stack.close()
        if moved:  # the new folder is in place but its zip or ledger entry is not
            shutil.rmtree(out, ignore_errors=True)
            if zip_backup is not None and zip_backup.exists():
                os.replace(zip_backup, zip_path)
            else:
                zip_path.unlink(missing_ok=True)
        if backup is not None and backup.exists() and not out.exists():
            backup.rename(out)
        shutil.rmtree(tmp, ignore_errors=True)
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
    if backup is not None:
        shutil.rmtree(backup, ignore_errors=True)
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
    )


# --- reproducing -----------------------------------------------------------------------


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


def _read_json(path: Path, what: str) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(
            f"the pack has no {what} ({path}).",
            "Point respai reproduce at a folder written by respai pack.",
        ) from None
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise InputError(
            f"{path} is not readable JSON: {exc}.",
            "The pack is damaged; restore it from the archive.",
        ) from None


def _parse_sums(path: Path) -> dict[str, str]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read {path}: {exc}.") from None
    out: dict[str, str] = {}
    for i, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        m = _SUM_LINE.match(line)
        if m is None:
            raise InputError(
                f"{path}, line {i} is not a sha256sum line ('<64 hex digits>  <file>'): "
                f"{_show(line, 60)}.",
                "The pack is damaged; restore it from the archive.",
            )
        name = _safe_relative(m.group(2), f"{path}, line {i}")
        out[f"inputs/{name}"] = m.group(1)
    return out


@contextmanager
def _opened(pack: Path) -> Iterator[Path]:
    """The pack folder: ``pack`` itself, or a zip archive unpacked into a temporary one."""
    if pack.is_dir():
        yield pack
        return
    if not pack.exists():
        raise InputError(
            f"the pack {pack} does not exist.", "Give the folder (or .zip) that respai pack wrote."
        )
    if not zipfile.is_zipfile(pack):
        raise InputError(
            f"{pack} is neither a folder nor a zip archive.",
            "Give the folder (or .zip) that respai pack wrote.",
        )
    with (
        tempfile.TemporaryDirectory(prefix="respai-reproduce-") as tmp,
        zipfile.ZipFile(pack) as zf,
    ):
        root = Path(tmp)
        for info in zf.infolist():
            name = _safe_relative(info.filename.rstrip("/") or ".", f"{pack}: member")
            if info.is_dir():
                continue
            target = root / name
            target.parent.mkdir(parents=True, exist_ok=True)
            with zf.open(info) as src, target.open("wb") as dst:
                shutil.copyfileobj(src, dst, 1 << 20)
        tops = [p for p in root.iterdir() if (p / MANIFEST).is_file()]
        if (root / MANIFEST).is_file():
            tops = [root]
        if len(tops) != 1:
            raise InputError(
                f"{pack} holds no evidence pack (no {MANIFEST} in it).",
                "Give the .zip that respai pack wrote.",
            )
        yield tops[0]


def _manifest(folder: Path) -> tuple[dict[str, str], dict[str, str | None]]:
    doc = _read_json(folder / MANIFEST, MANIFEST)
    if not isinstance(doc, dict) or doc.get("kind") != PACK_KIND:
        raise InputError(
            f"{folder / MANIFEST} is not the manifest of a respai evidence pack (its kind "
            f"is {doc.get('kind') if isinstance(doc, dict) else None!r}, not {PACK_KIND!r}).",
            "Point respai reproduce at a folder written by respai pack.",
        )
    files = doc.get("files")
    inputs = doc.get("inputs")
    if not isinstance(files, list) or not isinstance(inputs, dict):
        raise InputError(
            f"{folder / MANIFEST} lacks its files or inputs list.",
            "The pack is damaged; restore it from the archive.",
        )
    listed: dict[str, str] = {}
    for i, entry in enumerate(files):
        where = f"{MANIFEST}: files[{i}]"
        if not isinstance(entry, dict) or not _HEX64.match(str(entry.get("sha256", ""))):
            raise InputError(
                f"{where} has no path and SHA-256.",
                "The pack is damaged; restore it from the archive.",
            )
        listed[_safe_relative(entry.get("path"), where)] = str(entry["sha256"])
    roles: dict[str, str | None] = {}
    for role in ("spec", "decisions", "demographics"):
        value = inputs.get(role)
        where = f"{MANIFEST}: inputs.{role}"
        roles[role] = None if value is None else _safe_relative(value, where)
    if roles["spec"] is None or roles["decisions"] is None:
        raise InputError(
            f"{MANIFEST} does not name the spec and decisions copies in inputs/.",
            "The pack is damaged; restore it from the archive.",
        )
    return listed, roles


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
            actual[name] = _sha256_file(path)
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
    extra = sorted(on_disk - set(listed))
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
    report = verify_envelope(
        (folder / "record.json").read_bytes(), KeyRing.from_public_key(public)
    )
    diffs = [
        Difference("record", "record.json", c.name, "passes", c.detail)
        for c in report.checks
        if not c.ok
    ]
    return diffs, (report.predicate if report.ok else None), kid


_CHAIN = ("seq", "run_seq", "run_id", "prev_record_id", "record_id", "record_count", "record_ids")
"""Fields sealing adds to each record (the hash chain), left out of the value comparison."""


def _record_values(predicate: Mapping[str, Any], new: LL144Result) -> list[tuple[str, Any, Any]]:
    """Differences between the signed record's values and the rerun's."""
    from respai.ll144.seal import ll144_predicate

    fresh = ll144_predicate(
        new,
        key_id=str(predicate.get("key_id")),
        fingerprints=predicate.get("fingerprints") or {},
        timestamp=str(predicate.get("timestamp")),
        run_id=str(predicate.get("run_id")),
    )
    fresh = json.loads(json.dumps(fresh, allow_nan=False))
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
    from respai import __version__
    from respai.record import engine_code_fingerprint

    notes: list[str] = []
    try:
        engine = json.loads((folder / "engine.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
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
        old_lock = _parse_lock((folder / "environment.lock").read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError):
        old_lock = {}
    new_lock = {re.sub(r"[-_.]+", "-", n).lower(): v for n, v in _distributions()}
    changed = sorted(k for k in old_lock if k in new_lock and old_lock[k] != new_lock[k])
    missing = sorted(k for k in old_lock if k not in new_lock)
    added = sorted(k for k in new_lock if k not in old_lock)
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
            parts.append(f"{len(added)} installed that were not")
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
    with _opened(pack) as folder:
        listed, roles = _manifest(folder)
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
        sums = _parse_sums(folder / SUMS)
        old = _read_json(folder / "tables/ll144.json", "tables/ll144.json")
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

            new = json.loads(_json_text(new_res.to_dict()))
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
                ("tables/cells.csv", _cells_csv(new, new_res.count_key)),
            ):
                have = (folder / name).read_text(encoding="utf-8").splitlines()
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
                    for p, o, n in _record_values(predicate, new_res)
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


# --- the commands ----------------------------------------------------------------------


@click.command("pack")
@click.argument("spec", type=click.Path(path_type=Path))
@click.option(
    "--out",
    "out",
    required=True,
    type=click.Path(path_type=Path),
    help="The pack folder to write (created, or replaced when it is an earlier pack); "
    "the archive is written beside it as OUT.zip.",
)
@click.option(
    "--key",
    type=click.Path(path_type=Path),
    help="Signing key (default: the newest key in $RESPAI_HOME or ~/.config/respai/keys; "
    "one is created there when there is none).",
)
@click.option(
    "--policy",
    type=click.Path(path_type=Path),
    help="Policy file; its alpha sets the Fisher tests' significance level.",
)
@click.option(
    "--ledger",
    type=click.Path(path_type=Path),
    default=Path(".respai"),
    show_default=True,
    help="Append-only ledger the signed run is chained into.",
)
@click.option("--no-ledger", is_flag=True, help="Do not append the signed run to a ledger.")
def pack_command(
    spec: Path, out: Path, key: Path | None, policy: Path | None, ledger: Path, no_ledger: bool
) -> None:
    """Run the LL144 audit of SPEC and write its evidence pack to OUT and OUT.zip.

    The pack holds the scope memo, copies of the spec and the input files with their
    SHA-256 sums, the row reconciliation, the engine and environment versions, the raw
    count tables and ll144.json, the exclusions, the independence statement (or a blank
    one to sign), the dates, a signed record, the public key, the published summary and
    MANIFEST.json. Check it at any time, on any machine, with: respai reproduce OUT.
    Exit code 0 when the pack was written, 2 for a bad spec, bad data or bad --out.
    """
    res = build_pack(spec, out, key_path=key, ledger=None if no_ledger else ledger, policy=policy)
    echo = functools.partial(click.echo, err=True)
    if res.key_created:
        echo(
            f"respai: no signing key was configured, so a new one was created: "
            f"{res.key_path} (key id {res.key_id}). Its public key and keys.json are "
            "beside it; publish them so others can verify your records."
        )
    for warning in res.result.warnings:
        echo(warning)
    echo(f"respai pack: wrote {len(res.files)} files to {res.out_dir} and {res.zip_path}")
    echo(
        f"  record.json signed with key {res.key_id}"
        + (f"; run appended to the ledger {res.ledger}" if res.ledger else "")
    )
    if res.independence == "not_signed":
        echo(
            "  independence statement: NOT YET SIGNED: the auditor must complete and sign "
            "independence.md (the spec has no ll144.auditor.independence_statement)"
        )
    else:
        echo("  independence statement: recorded from the spec")
    echo(f"  MANIFEST.json sha256 {res.manifest_sha256}")
    echo(
        "  Keep this hash with the engagement file; check the pack with: "
        f"respai reproduce {res.out_dir}"
    )
    raise SystemExit(0)


@click.command("reproduce")
@click.argument("pack", type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Write the outcome as JSON to stdout.")
def reproduce_command(pack: Path, as_json: bool) -> None:
    """Rerun the LL144 audit of the evidence pack PACK (a folder or its .zip) and compare.

    The audit is rerun from the pack's own copies of the spec and data, and every value
    of the new result is compared with tables/ll144.json (run-time fields such as paths
    are ignored); every file is checked against inputs/SHA256SUMS, MANIFEST.json and the
    file list signed in record.json, which is verified with the pack's public_key.pem.
    A different engine or environment is a note. Exit code 0 when every number and file
    is identical, 1 when anything differs (each difference is listed with its path, old
    and new value), 2 for a missing, incomplete or unreadable pack.
    """
    res = reproduce_pack(pack)
    echo = functools.partial(click.echo, err=True)
    echo(f"respai reproduce: {pack}")
    echo(f"  files: {res.files_checked} checked against inputs/SHA256SUMS and MANIFEST.json")
    echo(
        "  record: "
        + (
            "record.json verifies with public_key.pem"
            if res.record_ok
            else "record.json FAILS verification"
        )
        + (
            f" (key {res.key_id}; compare it with the auditor's published keys)"
            if res.key_id
            else ""
        )
    )
    echo(f"  rerun: {res.values_compared} values of tables/ll144.json compared")
    if res.identical:
        echo("IDENTICAL: every number and every file of the pack is reproduced.")
    else:
        echo(f"DIFFERENT: {len(res.differences)} difference(s):")
        for d in res.differences[:_MAX_SHOWN]:
            echo(f"  - {d.line()}")
        if len(res.differences) > _MAX_SHOWN:
            echo(f"  ... and {len(res.differences) - _MAX_SHOWN} more (--json lists all)")
    if res.notes:
        echo("Notes (not failures):")
        for note in res.notes:
            echo(f"  - {note}")
    if as_json:
        sys.stdout.write(
            json.dumps(res.to_dict(), indent=2, ensure_ascii=False, allow_nan=False, default=str)
        )
        sys.stdout.write("\n")
        sys.stdout.flush()
    raise SystemExit(res.exit_code)
