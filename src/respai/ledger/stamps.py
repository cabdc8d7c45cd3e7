"""The RFC 3161 tokens of a ledger's runs (``timestamps/<run file>``), checked together.

Each run stamped with ``--timestamp`` has its sidecar under ``timestamps/`` with the run
file's name (:func:`respai.sealing.seal_run` writes it). :func:`check_ledger_stamps`
checks every token with :func:`respai.record.timestamp.check_tokens` over the run file's
bytes, names a signer's clock that disagrees with a token (:func:`clock_finding`), and
compares each plan's earliest token with the tokens of the runs held to it: a plan whose
authority time is later than a run held to it was not registered before that run, whatever
its own time says (``plan_after_run``, a problem).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from respai.ledger.layout import rel, run_files, run_info
from respai.record.errors import RecordError
from respai.record.times import format_timestamp, parse_timestamp
from respai.record.timestamp import (
    check_tokens,
    clock_finding,
    read_sidecar,
    record_message,
)

__all__ = ["STAMPS", "LedgerStamps", "check_ledger_stamps"]

STAMPS = "timestamps"
"""The ledger's folder of run sidecars."""


@dataclasses.dataclass(frozen=True)
class LedgerStamps:
    """The timestamp findings of a ledger: lines for people, JSON, and the outcome."""

    lines: tuple[str, ...]
    runs: tuple[dict[str, Any], ...]
    problems: tuple[str, ...]
    unstamped: int

    @property
    def ok(self) -> bool:
        """Whether no token failed and no clock or plan finding was made."""
        return not self.problems

    def to_json(self) -> dict[str, Any]:
        """JSON-ready data."""
        return {
            "ok": self.ok,
            "runs": list(self.runs),
            "problems": list(self.problems),
            "unstamped_runs": self.unstamped,
        }


def check_ledger_stamps(directory: Path, trusted: Sequence[Any] | None) -> LedgerStamps:
    """Check the tokens of every run in the ledger ``directory``.

    Parameters
    ----------
    directory
        The ledger folder.
    trusted
        The authorities' certificates (``--tsa-cert``), or ``None`` to list the tokens
        without checking them (then no clock or plan finding is made either: an
        unchecked token's time is the sidecar's word only).
    """
    found, _, _ = run_files(directory)
    lines: list[str] = []
    runs: list[dict[str, Any]] = []
    problems: list[str] = []
    unstamped = 0
    plan_time: dict[str, tuple[dt.datetime, str]] = {}
    held: list[tuple[str, str, dt.datetime]] = []  # (run file, plan id, its earliest token)
    for seq, path in found:
        info = run_info(seq, path)
        name = rel(directory, path)
        doc = read_sidecar(directory / STAMPS / path.name)
        if doc is None:
            unstamped += 1
            continue
        if isinstance(doc, str) or info.predicate is None:
            why = doc if isinstance(doc, str) else f"{name} {info.error}"
            problems.append(f"{name}: {why}")
            lines.append(f"FAIL  timestamp: {name}: {why}")
            continue
        from respai.record.canonical import loads_strict

        checks = check_tokens(doc, record_message(loads_strict(info.data)), trusted)
        entry: dict[str, Any] = {"run": name, "tokens": [c.to_json() for c in checks]}
        runs.append(entry)
        for c in checks:
            mark = "note" if c.ok is None else ("ok  " if c.ok else "FAIL")
            lines.append(f"{mark}  timestamp: {name} {c.detail}")
            if c.ok is False:
                problems.append(f"{name}: {c.detail}")
        good = [c.time for c in checks if c.ok and c.time is not None]
        if trusted is None or not good:
            continue
        first = min(good)
        stated = _stated(info.predicate)
        finding = None if stated is None else clock_finding(stated, first)
        entry["clock"] = finding
        if finding is not None:
            problems.append(f"{name}: {finding}")
            lines.append(f"FAIL  clock: {name}: {finding}")
        start = info.predicate["records"][0]
        if info.predicate.get("kind") == "respai.plan" and isinstance(start.get("plan_id"), str):
            plan_time.setdefault(start["plan_id"], (first, name))
        plan = start.get("plan") if isinstance(start, dict) else None
        if isinstance(plan, dict) and isinstance(plan.get("plan_id"), str):
            held.append((name, plan["plan_id"], first))
    for name, plan_id, run_time in held:
        if plan_id not in plan_time:
            continue
        when, plan_file = plan_time[plan_id]
        if when > run_time:
            finding = (
                f"plan_after_run: the plan {plan_file} was stamped at {format_timestamp(when)}, "
                f"after the run held to it, {name}, stamped at {format_timestamp(run_time)}: "
                "the criteria were not registered before that run, whatever the plan's own "
                "time says"
            )
            problems.append(finding)
            lines.append(f"FAIL  {finding}")
    if unstamped and (runs or trusted is not None):
        lines.append(f"note  timestamp: {unstamped} run(s) carry no token")
    return LedgerStamps(tuple(lines), tuple(runs), tuple(problems), unstamped)


def _stated(predicate: dict[str, Any]) -> dt.datetime | None:
    try:
        return parse_timestamp(predicate.get("timestamp"))
    except RecordError:  # an unreadable time is the ledger check's problem
        return None
