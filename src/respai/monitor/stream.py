"""A monitoring stream in the ledger: which runs belong to it, verified, and their batches.

A stream is named by its **criteria**: the canonical JSON of what decides its looks
(:func:`respai.monitor.criteria.monitor_criteria`: the system, the columns, the groups, alpha
and every rule with its threshold, the policy applied), not the spec file's bytes. A
comment or a reordered key in the spec continues the stream; a changed criterion starts
another. A call whose criteria match a stream in the ledger continues the latest such
stream; a new stream for the same criteria is started only on request, with a reason the
record keeps (``--new-stream``).

Each ``respai monitor`` call is one signed run (kind ``respai.monitor``) holding the looks
it added, with each batch's own counts and SHA-256. To continue a stream, the ledger's
earlier runs of the stream are **verified** (signature, schema, chain) with the signing
key's ring before their counts are used, and the cumulative counts are recomputed from the
batches: nothing unverified, and no running total, is trusted.

Runs written before streams were named by criteria (``run_start.monitor`` without
``criteria_id``; their stream is named by the spec file's SHA-256) are never continued:
their criteria are unknown. While such a stream is the only kind the ledger holds for the
system, a call is refused until a stream is started with ``--new-stream`` and a reason.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from respai.errors import InputError
from respai.monitor.ledger_check import history_entry
from respai.monitor.looks import BatchCounts
from respai.record import KeyRing

__all__ = [
    "KIND",
    "EarlierLooks",
    "StreamChoice",
    "StreamRun",
    "choose_stream",
    "earlier_batches",
    "earlier_looks",
    "stream_id",
    "stream_runs",
]

#: The record kind of a monitoring run.
KIND = "respai.monitor"


def stream_id(system_name: str | None, criteria_id: str, number: int = 1) -> str:
    """The stream's name: ``monitor:<system>:<first 16 hex of the criteria id>``.

    The ``number``-th stream of the same criteria (started with ``--new-stream``) ends in
    ``#<number>``.
    """
    digest = criteria_id.removeprefix("sha256:")[:16]
    name = f"monitor:{system_name or '(unnamed system)'}:{digest}"
    return name if number == 1 else f"{name}#{number}"


@dataclass(frozen=True, slots=True)
class StreamRun:
    """A monitoring run of the ledger, as its file claims (unverified: only to pick runs).

    ``criteria_id`` is ``None`` for a run written before streams were named by criteria.
    """

    path: Path
    envelope: Mapping[str, Any]
    stream: str
    criteria_id: str | None
    system_name: str | None
    looks: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class StreamChoice:
    """The stream a call adds to, and what it leaves when it starts a new one.

    ``new_stream`` is ``None`` when the call continues a stream or starts the first
    stream of its criteria; otherwise ``{"reason": ..., "replaces": <stream or None>}``.
    """

    stream: str
    new_stream: Mapping[str, Any] | None


def stream_runs(ledger: Path | None) -> list[StreamRun]:
    """Every monitoring run of ``ledger`` in ledger order, as its file claims."""
    from respai.ledger.layout import read_run, run_files

    if ledger is None or not (ledger / "runs").is_dir():
        return []
    out: list[StreamRun] = []
    runs, _, _ = run_files(ledger)
    for _, path in runs:
        envelope = read_run(path)
        predicate = _claimed(envelope)
        if predicate is None or predicate.get("kind") != KIND:
            continue
        start = _run_start(predicate)
        block = start.get("monitor") if isinstance(start, Mapping) else None
        if not isinstance(block, Mapping) or not isinstance(block.get("stream"), str):
            continue
        system = predicate.get("system")
        name = system.get("name") if isinstance(system, Mapping) else None
        criteria = block.get("criteria_id")
        new = block.get("new_looks")
        looks = tuple(n for n in new if type(n) is int) if isinstance(new, list) else ()
        out.append(
            StreamRun(
                path,
                envelope,
                block["stream"],
                criteria if isinstance(criteria, str) else None,
                name if isinstance(name, str) else None,
                looks,
            )
        )
    return out


def choose_stream(
    runs: Sequence[StreamRun],
    system_name: str | None,
    criteria_id: str,
    new_stream: str | None,
) -> StreamChoice:
    """The stream a call with these criteria adds to.

    Without ``new_stream``, the latest stream of the same criteria continues, or the first
    stream of the criteria starts. With it (the reason), a stream numbered after every
    stream of the criteria starts, naming the stream it replaces: the latest of the same
    criteria, else the system's latest stream written before streams were named by
    criteria, else none.

    Raises
    ------
    InputError
        When the ledger's only monitoring streams of the system were written before
        streams were named by criteria, and no ``new_stream`` reason is given.
    """
    same = [r for r in runs if r.criteria_id == criteria_id]
    if new_stream is None:
        if same:
            return StreamChoice(same[-1].stream, None)
        mine = [r for r in runs if r.system_name == system_name]
        legacy = [r for r in mine if r.criteria_id is None]
        if legacy and len(legacy) == len(mine):
            last = legacy[-1]
            seen = max((n for r in legacy if r.stream == last.stream for n in r.looks), default=0)
            raise InputError(
                f"the ledger holds the monitoring stream {last.stream} of system "
                f"{system_name or '(unnamed system)'} ({seen} look(s), last in "
                f"{last.path.name}), written before streams were named by their criteria: "
                "it is named by the spec file's SHA-256, so respai cannot tell whether "
                "this spec has its criteria, and will not continue it or leave it "
                "without a word.",
                'Start the stream under its criteria with --new-stream "why" (the record '
                "keeps the reason and names the stream it replaces); the earlier runs "
                "stay in the ledger and still verify.",
            )
        return StreamChoice(stream_id(system_name, criteria_id), None)
    numbers = {r.stream for r in same}
    older = (
        r.stream for r in reversed(runs) if r.criteria_id is None and r.system_name == system_name
    )
    replaces = same[-1].stream if same else next(older, None)
    return StreamChoice(
        stream_id(system_name, criteria_id, len(numbers) + 1),
        {"reason": new_stream, "replaces": replaces},
    )


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


@dataclass(frozen=True, slots=True)
class EarlierLooks:
    """The stream's looks already in the ledger, from verified runs only.

    ``batches`` are each look's own counts, in look order; ``history`` is, per earlier
    look and rule, a copy of the ``monitor_rule`` test record that decided it (the fields
    of :data:`respai.monitor.ledger_check.HISTORY_FIELDS`), naming the run and record it
    is copied from (:func:`respai.monitor.ledger_check.history_entry`).
    """

    batches: tuple[BatchCounts, ...]
    history: tuple[Mapping[str, Any], ...]


def earlier_batches(
    runs: Sequence[StreamRun],
    stream: str,
    criteria_id: str,
    ring: KeyRing,
    rule_ids: Sequence[str],
) -> list[BatchCounts]:
    """The stream's batches already in the ledger, in look order (see :func:`earlier_looks`)."""
    return list(earlier_looks(runs, stream, criteria_id, ring, rule_ids).batches)


def earlier_looks(
    runs: Sequence[StreamRun],
    stream: str,
    criteria_id: str,
    ring: KeyRing,
    rule_ids: Sequence[str],
) -> EarlierLooks:
    """The stream's batches and decided looks already in the ledger, from verified runs only.

    ``runs`` are the ledger's monitoring runs (:func:`stream_runs`); those of ``stream``
    named by criteria are read, and each must declare ``criteria_id``. The looks' test
    records are copied from the verified payload, never from the file as it claims.

    Raises
    ------
    InputError
        When a run of the stream does not verify with ``ring``, declares other criteria,
        or its looks do not follow on from the ones before.
    """
    from respai.record.verify import verify_envelope

    found: list[BatchCounts] = []
    history: list[Mapping[str, Any]] = []
    for run in runs:
        if run.stream != stream or run.criteria_id is None:
            continue
        path = run.path
        if run.criteria_id != criteria_id:
            raise InputError(
                f"the ledger's run {path.name} belongs to the monitoring stream {stream} but "
                f"declares the criteria {run.criteria_id}, not the stream's {criteria_id}.",
                "Check the ledger with respai verify --ledger; a stream's looks are all "
                "decided on the same criteria.",
            )
        report = verify_envelope(run.envelope, ring)
        if not report.ok or report.statement is None:
            raise InputError(
                f"the ledger's run {path.name} belongs to the monitoring stream {stream} but "
                f"does not verify ({', '.join(report.failed)}).",
                "Check the ledger with respai verify --ledger; a stream continues only from "
                "runs that verify with your key.",
            )
        verified = report.statement["predicate"]
        looks = verified.get("counts", {}).get("monitor", {}).get("looks", [])
        added = set()
        for entry in looks:
            batch = _batch(entry, path.name, rule_ids)
            if batch.look != len(found) + 1:
                raise InputError(
                    f"the ledger's run {path.name} holds look {batch.look} of the stream "
                    f"{stream}, but look {len(found) + 1} was expected.",
                    "Check the ledger with respai verify --ledger.",
                )
            found.append(batch)
            added.add(batch.look)
        for rec in verified.get("records", []):
            copied = history_entry(rec)
            if copied is not None and copied["look"] in added:
                history.append(copied)
    return EarlierLooks(tuple(found), tuple(history))


def _claimed(envelope: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The predicate an envelope claims, unverified (only to pick the stream's runs)."""
    from respai.ledger.layout import _unverified_predicate

    return _unverified_predicate(envelope)


def _run_start(predicate: Mapping[str, Any]) -> Any:
    records = predicate.get("records")
    if isinstance(records, list) and records and isinstance(records[0], dict):
        return records[0]
    return None
