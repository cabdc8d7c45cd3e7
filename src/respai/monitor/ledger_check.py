"""What ``respai verify --ledger`` checks of the monitoring streams a ledger holds.

A stream counts each batch once: a batch SHA-256 at two looks of one stream counts its
cases twice and narrows the intervals as if they were new outcomes, whoever signed it.
And a stream is its criteria: every run of a stream declares the same ``criteria_id``,
the SHA-256 of the canonical ``criteria`` document it holds. :func:`stream_problems`
names every stream that breaks either, with the looks and runs concerned. It reads only
the runs' predicates (of runs that verify), so it imports nothing heavy.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from typing import Any

from respai.record.canonical import canonical_bytes
from respai.record.errors import RecordError

__all__ = ["stream_problems"]

_KIND = "respai.monitor"  # respai.monitor.stream.KIND, without importing the counting code


def _monitor_block(predicate: Mapping[str, Any]) -> Mapping[str, Any] | None:
    records = predicate.get("records")
    first = records[0] if isinstance(records, list) and records else None
    block = first.get("monitor") if isinstance(first, Mapping) else None
    return block if isinstance(block, Mapping) else None


def _looks(predicate: Mapping[str, Any]) -> list[tuple[Any, Any, Any]]:
    """``(look, batch name, batch sha256)`` of each look a monitoring run added."""
    counts = predicate.get("counts")
    monitor = counts.get("monitor") if isinstance(counts, Mapping) else None
    looks = monitor.get("looks") if isinstance(monitor, Mapping) else None
    out = []
    for entry in looks if isinstance(looks, list) else []:
        batch = entry.get("batch") if isinstance(entry, Mapping) else None
        if isinstance(batch, Mapping):
            out.append((entry.get("look"), batch.get("name"), batch.get("sha256")))
    return out


def _criteria_problem(file: str, stream: str, block: Mapping[str, Any]) -> str | None:
    """Whether the run's ``criteria_id`` is the SHA-256 of the ``criteria`` it holds."""
    cid, doc = block.get("criteria_id"), block.get("criteria")
    if cid is None and doc is None:
        return None  # a run from before streams were named by criteria
    try:
        digest = "sha256:" + hashlib.sha256(canonical_bytes(doc)).hexdigest()
    except (RecordError, TypeError, ValueError):
        digest = None
    if not isinstance(doc, Mapping) or digest != cid:
        return (
            f"{file}: the monitoring stream {stream} names the criteria {cid!r}, but the "
            "criteria document the run holds has another SHA-256 (or none): the stream's "
            "name does not say what its looks were decided on."
        )
    return None


def stream_problems(runs: Iterable[tuple[str, Mapping[str, Any] | None]]) -> list[str]:
    """Every monitoring stream of the ledger that counts a batch twice or changes criteria.

    Parameters
    ----------
    runs
        ``(file, predicate)`` of the ledger's runs in ledger order (the runs that
        verify); runs of another kind are skipped.

    Returns
    -------
    list of str
        One sentence per repeated batch (naming the stream, both looks and their files),
        per run whose ``criteria_id`` is not its criteria's SHA-256, and per run whose
        criteria differ from those of its stream's first run.

    Examples
    --------
    >>> def run(look, sha):
    ...     start = {"monitor": {"stream": "monitor:s:ab"}}
    ...     counts = {"monitor": {"looks": [{"look": look, "batch": {"name": "b.csv",
    ...                                                              "sha256": sha}}]}}
    ...     return {"kind": "respai.monitor", "records": [start], "counts": counts}
    >>> stream_problems([("runs/1.json", run(1, "aa")), ("runs/2.json", run(2, "aa"))])[0][:60]
    'runs/2.json: the monitoring stream monitor:s:ab holds the ba'
    >>> stream_problems([("runs/1.json", run(1, "aa")), ("runs/2.json", run(2, "bb"))])
    []
    """
    seen: dict[tuple[str, str], tuple[Any, str]] = {}
    criteria: dict[str, tuple[Any, str]] = {}  # stream -> its first run's criteria id, file
    problems: list[str] = []
    for file, predicate in runs:
        if not isinstance(predicate, Mapping) or predicate.get("kind") != _KIND:
            continue
        block = _monitor_block(predicate)
        stream = block.get("stream") if block is not None else None
        if not isinstance(stream, str) or block is None:
            continue
        wrong = _criteria_problem(file, stream, block)
        if wrong is not None:
            problems.append(wrong)
        cid = block.get("criteria_id")
        first_cid, first_file = criteria.setdefault(stream, (cid, file))
        if cid != first_cid:
            problems.append(
                f"{file}: the monitoring stream {stream} is continued with the criteria "
                f"{cid} but began with {first_cid} ({first_file}): a stream's looks are "
                "all decided on the same criteria."
            )
        for look, name, sha in _looks(predicate):
            if not isinstance(sha, str):
                continue
            first = seen.get((stream, sha))
            if first is None:
                seen[(stream, sha)] = (look, file)
                continue
            where = "the same run" if first[1] == file else first[1]
            problems.append(
                f"{file}: the monitoring stream {stream} holds the batch {name} (SHA-256 "
                f"{sha[:16]}…) twice, at look {first[0]} ({where}) and at look {look}: its "
                "cases are counted twice, so the stream's intervals and verdicts from look "
                f"{look} on are not evidence."
            )
    return problems
