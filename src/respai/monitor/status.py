"""``respai monitor --status``: the monitoring streams a ledger holds, their looks and verdicts.

Read as ``respai log`` reads a ledger: what the run files *say*, without verifying them
(``respai verify --ledger`` checks them, and ``respai monitor`` verifies a stream's runs
before it continues it). Each stream is listed once, in the order its first run was
appended, with its criteria id, its runs, every look's worst verdict, the first look a
change detector raised its alarm on, and, for a stream started with ``--new-stream``, the
reason and the stream it replaced.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from respai.errors import InputError
from respai.monitor.stream import stream_runs
from respai.types import Verdict

__all__ = ["StreamStatus", "ledger_streams", "status_lines"]

_LOOK_KEY = re.compile(r"^monitor:(?P<rule>.*):look(?P<look>[0-9]+)$")


@dataclass
class StreamStatus:
    """One stream of a ledger, as its run files say (unverified)."""

    stream: str
    system: str | None
    criteria_id: str | None
    runs: list[str] = field(default_factory=list)
    verdicts: dict[int, str] = field(default_factory=dict)
    alarm_look: int | None = None
    new_stream: Mapping[str, Any] | None = None

    @property
    def looks(self) -> int:
        """How many looks the stream's runs hold."""
        return len(self.verdicts)

    @property
    def latest(self) -> str | None:
        """The latest look's worst verdict, or ``None`` without a look."""
        return self.verdicts[max(self.verdicts)] if self.verdicts else None

    def to_json(self) -> dict[str, Any]:
        """The stream as ``--status --json`` shows it."""
        return {
            "stream": self.stream,
            "system": self.system,
            "criteria_id": self.criteria_id,
            "runs": list(self.runs),
            "looks": self.looks,
            "verdicts": [{"look": n, "verdict": v} for n, v in sorted(self.verdicts.items())],
            "latest_verdict": self.latest,
            "change_alarm_look": self.alarm_look,
            "new_stream": None if self.new_stream is None else dict(self.new_stream),
        }


def _worse(a: str | None, b: str) -> str:
    if a is None:
        return b
    try:
        va, vb = Verdict(a), Verdict(b)
    except ValueError:
        return a
    return (va if va.severity >= vb.severity else vb).value


def ledger_streams(ledger: Path) -> list[StreamStatus]:
    """Every monitoring stream of ``ledger``, in the order it first appears.

    Raises
    ------
    InputError
        When ``ledger`` is not a folder.
    """
    from respai.ledger.layout import _unverified_predicate

    if not ledger.is_dir():
        raise InputError(
            f"no ledger at {ledger}: the folder does not exist.",
            "Give the ledger folder respai monitor appends to (default .respai).",
        )
    found: dict[str, StreamStatus] = {}
    for run in stream_runs(ledger):
        status = found.setdefault(
            run.stream, StreamStatus(run.stream, run.system_name, run.criteria_id)
        )
        status.runs.append(run.path.name)
        predicate = _unverified_predicate(run.envelope) or {}
        records = predicate.get("records")
        for rec in records if isinstance(records, list) else []:
            if not isinstance(rec, Mapping):
                continue
            block = rec.get("monitor") if rec.get("record_type") == "run_start" else None
            if isinstance(block, Mapping) and isinstance(block.get("new_stream"), Mapping):
                status.new_stream = block["new_stream"]
            match = _LOOK_KEY.match(str(rec.get("test_key", "")))
            verdict = rec.get("verdict")
            if rec.get("record_type") != "test" or match is None or not isinstance(verdict, str):
                continue
            look = int(match["look"])
            status.verdicts[look] = _worse(status.verdicts.get(look), verdict)
            details = rec.get("details")
            change = details.get("change") if isinstance(details, Mapping) else None
            alarm = change.get("alarm_look") if isinstance(change, Mapping) else None
            if type(alarm) is int and (status.alarm_look is None or alarm < status.alarm_look):
                status.alarm_look = alarm
    return list(found.values())


def status_lines(ledger: Path, streams: list[StreamStatus]) -> list[str]:
    """The terminal's lines for ``respai monitor --status``."""
    if not streams:
        return [f"no monitoring stream in the ledger {ledger}"]
    out = [f"{len(streams)} monitoring stream(s) in the ledger {ledger} (read, not verified):"]
    for s in streams:
        out.append("")
        out.append(f"{s.stream}")
        out.append(f"  criteria {s.criteria_id or '(none: written before criteria ids)'}")
        latest = s.latest or "-"
        out.append(f"  {s.looks} look(s) in {len(s.runs)} run(s); latest verdict {latest}")
        if s.alarm_look is not None:
            out.append(f"  change detected at look {s.alarm_look}")
        if s.new_stream is not None:
            replaces = s.new_stream.get("replaces")
            out.append(
                f"  started with --new-stream: {s.new_stream.get('reason')}"
                + (f" (replaces {replaces})" if replaces else "")
            )
        if s.verdicts:
            out.append(f"  looks: {_runs_of(sorted(s.verdicts.items()))}")
    return out


def _runs_of(items: list[tuple[int, str]]) -> str:
    """``1-3 PASS, 4 INSUFFICIENT_EVIDENCE, 5-6 FAIL``: consecutive looks of one verdict."""
    parts: list[str] = []
    start, prev, verdict = items[0][0], items[0][0], items[0][1]
    for n, v in items[1:]:
        if v == verdict and n == prev + 1:
            prev = n
            continue
        parts.append(f"{start}-{prev} {verdict}" if prev > start else f"{start} {verdict}")
        start, prev, verdict = n, n, v
    parts.append(f"{start}-{prev} {verdict}" if prev > start else f"{start} {verdict}")
    return ", ".join(parts)
