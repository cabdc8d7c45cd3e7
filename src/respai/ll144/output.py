"""Write an LL144 audit's files into a folder, signed and chained into the ledger.

``respai ll144 --out DIR`` writes the published summary (HTML, Markdown, CSV), the tables
CSV, ``ll144.json``, and the signed record of the run (``record.json``, its
``public_key.pem`` and the self-verifying ``report.html``). Because it signs, the run is
appended to the ledger too (unless ``--no-ledger``), by the same code as ``respai
evaluate`` (:func:`respai.sealing.seal_run`): outputs and ledger entry are written
together or not at all.

An existing target is replaced only when it is empty or an earlier ``respai ll144`` output
(it holds ``ll144.json`` of kind ``respai.ll144`` and nothing but the files this module
writes); anything else is refused before the data is read, so a typo in ``--out`` cannot
wipe an unrelated folder.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from respai.io import Content, StagedFolder, read_bounded
from respai.ll144.audit import KIND, LL144Result
from respai.ll144.summary import summary_csv, summary_html, summary_markdown, tables_csv
from respai.record.canonical import MAX_JSON_BYTES, loads_strict
from respai.record.errors import RecordError
from respai.sealing import Signing, SigningKey

__all__ = [
    "OUTPUT_FILES",
    "SUMMARY_FILES",
    "LL144Sealed",
    "ll144_output",
    "seal_ll144",
    "summary_files",
]

SUMMARY_FILES = ("summary.html", "summary.md", "summary.csv", "tables.csv", "ll144.json")
"""The audit's own files."""

OUTPUT_FILES = (*SUMMARY_FILES, "record.json", "public_key.pem", "report.html")
"""The files an LL144 output folder holds: the audit's files and its signed record."""


def _earlier_output(folder: Path) -> bool:
    names = {p.name for p in folder.iterdir()}
    if not names:
        return True
    if "ll144.json" not in names or not names <= {*OUTPUT_FILES, "timestamps.json"}:
        return False
    try:
        doc = loads_strict(read_bounded(folder / "ll144.json", MAX_JSON_BYTES))
    except (OSError, ValueError, RecordError):
        return False
    return isinstance(doc, dict) and doc.get("kind") == KIND


def ll144_output(out: Path) -> StagedFolder:
    """The ``--out`` folder of ``respai ll144``, checked now (before any data is read).

    Raises
    ------
    InputError
        When ``out`` exists and is not a folder, or is a folder that is neither empty
        nor an earlier LL144 output.
    """
    return StagedFolder(out, _earlier_output, what="respai ll144 output")


def summary_files(res: LL144Result) -> dict[str, str]:
    """The audit's own files: the published summary, the tables and ``ll144.json``."""
    return {
        "summary.html": summary_html(res),
        "summary.md": summary_markdown(res),
        "summary.csv": summary_csv(res),
        "tables.csv": tables_csv(res),
        "ll144.json": json.dumps(res.to_dict(), indent=2, ensure_ascii=False, allow_nan=False)
        + "\n",
    }


@dataclass(frozen=True, slots=True)
class LL144Sealed:
    """A signed LL144 run: its envelope, the files written and the ledger it joined."""

    envelope: Mapping[str, Any]
    files: tuple[Path, ...]
    ledger: Path | None
    key_id: str
    #: A sentence for the user when the ledger took the run short of a checkpoint.
    note: str | None = None


def seal_ll144(res: LL144Result, signing: Signing) -> LL144Sealed:
    """Sign the audit's record, write every output file and append the run to the ledger.

    Raises
    ------
    InputError
        When a file cannot be written or the ledger cannot take the run (nothing is left
        behind: see :func:`respai.sealing.seal_run`).
    """
    from cryptography.hazmat.primitives import serialization

    from respai.ll144.seal import ll144_fingerprints, ll144_predicate
    from respai.record import engine_code_fingerprint, format_timestamp, now_utc, seal
    from respai.record.keys import public_key_raw
    from respai.render.report import render_report_bytes
    from respai.sealing import envelope_bytes

    fingerprints = ll144_fingerprints(res, engine_code_fingerprint())
    own = summary_files(res)

    def build(sk: SigningKey, prev: str, start: int) -> Mapping[str, Any]:
        predicate = ll144_predicate(
            res, key_id=sk.key_id, fingerprints=fingerprints, timestamp=format_timestamp(now_utc())
        )
        return seal(predicate, None, sk.key, sk.key_id, prev_record_id=prev, start_seq=start)

    def files(sk: SigningKey, envelope: Mapping[str, Any]) -> dict[str, Content]:
        public = sk.key.public_key()
        return {  # the record and its page are made when written, one at a time
            **own,
            "record.json": lambda: envelope_bytes(envelope),
            "public_key.pem": public.public_bytes(
                serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
            ),
            "report.html": lambda: render_report_bytes(envelope, public_key_raw(public)),
        }

    envelope, book, note = signing.seal(build, files)
    assert signing.staged is not None  # an LL144 run is signed only with --out
    written = tuple(signing.staged.out / n for n in OUTPUT_FILES)
    return LL144Sealed(envelope, written, book, signing.signing_key().key_id, note)
