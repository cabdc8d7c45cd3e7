"""What ``respai verify --ledger`` checks of the monitoring streams a ledger holds.

A stream counts each batch once: a batch SHA-256 at two looks of one stream counts its
cases twice and narrows the intervals as if they were new outcomes, whoever signed it.
And a stream is its criteria: every run of a stream declares the same ``criteria_id``,
the SHA-256 of the canonical ``criteria`` document it holds. :func:`stream_problems`
names every stream that breaks either, with the looks and runs concerned. It reads only
the runs' predicates (of runs that verify), so it imports nothing heavy.

A run that continues a stream holds, in ``run_start.monitor.history``, a copy of every
earlier look's ``monitor_rule`` test record (:func:`history_entry`), naming the run and
record it is copied from, so its page can draw the whole stream. Each copy must equal the
record it names, in an earlier run of the ledger that verifies, and the copies must cover
every rule at every earlier look: :func:`stream_problems` names every copy that does not.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping
from typing import Any

from respai.record.canonical import canonical_bytes
from respai.record.errors import RecordError

__all__ = ["HISTORY_FIELDS", "history_entry", "stream_problems"]

_KIND = "respai.monitor"  # respai.monitor.stream.KIND, without importing the counting code
_TEST = "monitor_rule"  # respai.monitor.seal.TEST_ID

#: The fields of an earlier look's test record that a later run of the stream copies.
HISTORY_FIELDS = ("test_id", "test_key", "threshold", "verdict", "reason", "details")


def history_entry(record: Any) -> dict[str, Any] | None:
    """The copy of a ``monitor_rule`` test record a later run's history holds.

    ``{"look", "rule", "from": {"run_id", "record_id"}, ...}`` with the record's
    :data:`HISTORY_FIELDS` as they are; ``None`` for any other record.

    Examples
    --------
    >>> rec = {"record_type": "test", "test_id": "monitor_rule", "run_id": "r",
    ...        "record_id": "sha256:ab", "test_key": "monitor:g:look1", "verdict": "PASS",
    ...        "reason": "ok", "threshold": {}, "details": {"look": 1, "rule": "g"}}
    >>> entry = history_entry(rec)
    >>> entry["look"], entry["rule"], entry["from"]
    (1, 'g', {'run_id': 'r', 'record_id': 'sha256:ab'})
    """
    if not isinstance(record, Mapping) or record.get("record_type") != "test":
        return None
    details = record.get("details")
    if record.get("test_id") != _TEST or not isinstance(details, Mapping):
        return None
    return {
        "look": details.get("look"),
        "rule": details.get("rule"),
        "from": {"run_id": record.get("run_id"), "record_id": record.get("record_id")},
        **{f: record.get(f) for f in HISTORY_FIELDS},
    }


def _same(a: Any, b: Any) -> bool:
    """Whether two JSON values are the same value (canonically: 1 is not 1.0 or true)."""
    try:
        return canonical_bytes(a) == canonical_bytes(b)
    except (RecordError, TypeError, ValueError):
        return False


def _history_problems(
    file: str,
    stream: str,
    block: Mapping[str, Any],
    rules: list[Any],
    originals: Mapping[Any, tuple[str, Mapping[str, Any]]],
) -> list[str]:
    """Every copied look of a run's history that is not the record it names."""
    history = block.get("history")
    if "history" not in block:
        return []  # a run written before runs copied their stream's history
    if not isinstance(history, list):
        return [f"{file}: the monitoring stream {stream}'s history is not a list of looks."]
    problems: list[str] = []
    got: list[tuple[Any, Any]] = []
    for k, entry in enumerate(history):
        entry = entry if isinstance(entry, Mapping) else {}
        look, rule = entry.get("look"), entry.get("rule")
        got.append((look, rule))
        source = entry.get("from")
        rid = source.get("record_id") if isinstance(source, Mapping) else None
        run_id = source.get("run_id") if isinstance(source, Mapping) else None
        what = (
            f"{file}: the copy of look {look} of rule {rule} (history/{k}) of the stream {stream}"
        )
        original = originals.get(rid) if isinstance(rid, str) else None
        if original is None:
            problems.append(
                f"{what} names the record {rid} of run {run_id}, which no earlier run of the "
                "ledger that verifies holds: the copy cannot be checked against its original."
            )
            continue
        where, rec = original
        details = rec.get("details")
        details = details if isinstance(details, Mapping) else {}
        differ = [f for f in HISTORY_FIELDS if not _same(entry.get(f), rec.get(f))]
        differ += [
            name
            for name, mine, theirs in (
                ("look", look, details.get("look")),
                ("rule", rule, details.get("rule")),
                ("run_id", run_id, rec.get("run_id")),
                ("stream", stream, details.get("stream")),
            )
            if not _same(mine, theirs)
        ]
        if differ:
            problems.append(
                f"{what} differs from the record it names ({rid} in {where}) in "
                f"{', '.join(differ)}: the look drawn from it is not the look that was signed."
            )
    earlier = block.get("earlier_looks")
    if type(earlier) is int:
        want = [(n, r) for n in range(1, earlier + 1) for r in rules]
        if sorted(map(repr, got)) != sorted(map(repr, want)):
            problems.append(
                f"{file}: the history of the stream {stream} holds {len(got)} copied look(s) "
                f"of its rules, not every rule at each of its {earlier} earlier look(s): the "
                "stream it draws leaves looks out or adds some."
            )
    return problems


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
        per copied earlier look that is not the record it names (or a history that
        leaves looks out), per run whose ``criteria_id`` is not its criteria's SHA-256,
        and per run whose criteria differ from those of its stream's first run.

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
    originals: dict[Any, tuple[str, Mapping[str, Any]]] = {}  # record id -> file, test
    criteria: dict[str, tuple[Any, str]] = {}  # stream -> its first run's criteria id, file
    problems: list[str] = []
    for file, predicate in runs:
        if not isinstance(predicate, Mapping) or predicate.get("kind") != _KIND:
            continue
        block = _monitor_block(predicate)
        stream = block.get("stream") if block is not None else None
        if not isinstance(stream, str) or block is None:
            continue
        tests = [
            r
            for r in predicate.get("records") or []
            if isinstance(r, Mapping) and history_entry(r) is not None
        ]
        rules = list(dict.fromkeys(r["details"].get("rule") for r in tests))
        problems.extend(_history_problems(file, stream, block, rules, originals))
        for r in tests:
            originals[r.get("record_id")] = (file, r)
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
