"""The sealed run of ``respai evaluate`` and :func:`respai.evaluate`: an evaluation's record.

:func:`seal_evaluation` builds the record of an :class:`~respai.results.Evaluation`
(:mod:`respai.run.evidence`), signs it and writes it with its page through the one
all-or-nothing sequence of :func:`respai.sealing.seal_run`.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from respai.io import Content, StagedFolder
from respai.results import Evaluation
from respai.sealing import Sealed, SigningKey, earlier_output, envelope_bytes, seal_run

__all__ = ["evaluate_output", "seal_evaluation"]


def seal_evaluation(
    e: Evaluation,
    sk: SigningKey,
    *,
    out: Path | StagedFolder,
    summary: str,
    ledger: Path | None,
) -> Sealed:
    """Build, sign and write the record of ``e``; chain it into ``ledger`` when given.

    The outputs folder receives ``record.json`` (the DSSE envelope), ``summary.txt``,
    ``public_key.pem`` and ``report.html``. With a ledger, the run is appended under the
    ledger's lock, so two concurrent runs get consecutive places in the chain; see
    :func:`seal_run` for what a failure leaves (nothing).
    """
    from cryptography.hazmat.primitives import serialization

    from respai.record import format_timestamp, now_utc, seal
    from respai.run.evidence import build_predicate, run_fingerprints

    staged = out if isinstance(out, StagedFolder) else evaluate_output(out)
    fingerprints = run_fingerprints(e)
    public_pem = sk.key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    made: dict[str, Any] = {}

    def build(prev: str, start: int) -> Mapping[str, Any]:
        predicate = build_predicate(
            e, key_id=sk.key_id, fingerprints=fingerprints, timestamp=format_timestamp(now_utc())
        )
        made["predicate"] = predicate
        return seal(predicate, None, sk.key, sk.key_id, prev_record_id=prev, start_seq=start)

    def files(envelope: Mapping[str, Any]) -> dict[str, Content]:
        from respai.record.keys import public_key_raw
        from respai.render.report import render_report

        # the record and its page are made when written, one at a time
        return {
            "record.json": lambda: envelope_bytes(envelope),
            "summary.txt": summary,
            "public_key.pem": public_pem,
            "report.html": lambda: render_report(envelope, public_key_raw(sk.key.public_key())),
        }

    envelope, book, note = seal_run(build, files, sk, staged=staged, ledger=ledger)
    return Sealed(envelope, made["predicate"], staged.out / "record.json", book, sk.key_id, note)


def evaluate_output(out: Path) -> StagedFolder:
    """The output folder of ``respai evaluate``, checked now (before any data is read)."""
    return StagedFolder(out, earlier_output("record.json"), what="respai evaluate output")
