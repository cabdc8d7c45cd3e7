"""A monitoring stream in the ledger: which runs belong to it, verified, and their batches.

A stream is named by the spec's system and the SHA-256 of the spec file: a changed spec
starts a new stream (its criteria differ). Each ``respai monitor`` call is one signed run
(kind ``respai.monitor``) holding the looks it added, with each batch's own counts. To
continue a stream, the ledger's earlier runs of the stream are **verified** (signature,
schema, chain) with the signing key's ring before their counts are used, and the
cumulative counts are recomputed from the batches: nothing unverified, and no running
total, is trusted.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from respai.errors import InputError
from respai.monitor.looks import BatchCounts
from respai.record import KeyRing

__all__ = ["KIND", "earlier_batches", "stream_id"]

#: The record kind of a monitoring run.
KIND = "respai.monitor"


def stream_id(system_name: str | None, spec_sha256: str | None) -> str:
    """The stream's name: ``monitor:<system>:<first 16 hex of the spec's SHA-256>``."""
    return f"monitor:{system_name or '(unnamed system)'}:{(spec_sha256 or 'no-spec')[:16]}"


def _batch(entry: Any, where: str, rule_ids: Sequence[str]) -> BatchCounts:
    """One ``counts.monitor.looks[]`` entry of a verified record, checked for shape."""

    def bad(what: str) -> InputError:
        return InputError(
            f"{where}: the monitoring record's look does not have the expected form ({what}).",
            "The run verifies but was written by another respai version; start a new stream "
            "with a new ledger folder.",
        )

    if not isinstance(entry, dict):
        raise bad("not an object")
    rules = entry.get("rules")
    look, total = entry.get("look"), entry.get("total")
    if not isinstance(rules, dict) or type(look) is not int or type(total) is not int:
        raise bad("look, total or rules")
    groups: dict[str, dict[str, tuple[int, int, int]]] = {}
    left: dict[str, int] = {}
    for rid in rule_ids:
        block = rules.get(rid)
        if not isinstance(block, dict) or type(block.get("left_out")) is not int:
            raise bad(f"rule {rid}")
        per: dict[str, tuple[int, int, int]] = {}
        for g, c in (block.get("groups") or {}).items():
            if not (isinstance(c, list) and len(c) == 3 and all(type(x) is int for x in c)):
                raise bad(f"rule {rid}, group {g}")
            per[str(g)] = (c[0], c[1], c[2])
        groups[rid] = per
        left[rid] = block["left_out"]
    batch = entry.get("batch")
    return BatchCounts(look, batch if isinstance(batch, dict) else {}, groups, left, total)


def earlier_batches(
    ledger: Path, stream: str, ring: KeyRing, rule_ids: Sequence[str]
) -> list[BatchCounts]:
    """The stream's batches already in ``ledger``, in look order, from verified runs only.

    Raises
    ------
    InputError
        When a run of the stream does not verify with ``ring``, or its looks do not follow
        on from the ones before.
    """
    from respai.ledger.layout import read_run, run_files
    from respai.record.verify import verify_envelope

    if not (ledger / "runs").is_dir():
        return []
    found: list[BatchCounts] = []
    runs, _, _ = run_files(ledger)
    for _, path in runs:
        envelope = read_run(path)
        predicate = _claimed(envelope)
        if predicate is None or predicate.get("kind") != KIND:
            continue
        start = _run_start(predicate)
        if not isinstance(start, Mapping) or start.get("monitor", {}).get("stream") != stream:
            continue
        report = verify_envelope(envelope, ring)
        if not report.ok or report.statement is None:
            raise InputError(
                f"the ledger's run {path.name} belongs to the monitoring stream {stream} but "
                f"does not verify ({', '.join(report.failed)}).",
                "Check the ledger with respai verify --ledger; a stream continues only from "
                "runs that verify with your key.",
            )
        verified = report.statement["predicate"]
        looks = verified.get("counts", {}).get("monitor", {}).get("looks", [])
        for entry in looks:
            batch = _batch(entry, path.name, rule_ids)
            if batch.look != len(found) + 1:
                raise InputError(
                    f"the ledger's run {path.name} holds look {batch.look} of the stream "
                    f"{stream}, but look {len(found) + 1} was expected.",
                    "Check the ledger with respai verify --ledger.",
                )
            found.append(batch)
    return found


def _claimed(envelope: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The predicate an envelope claims, unverified (only to pick the stream's runs)."""
    from respai.ledger.layout import _unverified_predicate

    return _unverified_predicate(envelope)


def _run_start(predicate: Mapping[str, Any]) -> Any:
    records = predicate.get("records")
    if isinstance(records, list) and records and isinstance(records[0], dict):
        return records[0]
    return None
