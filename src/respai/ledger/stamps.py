"""The RFC 3161 tokens of a ledger's runs and checkpoints, kept and checked together.

::

    timestamps/runs/<seq>-<run_id>.json   the tokens over runs/<seq>-<run_id>.json
    timestamps/checkpoints/<size>.json    the tokens over checkpoints/<size>.txt

A run sealed with ``--timestamp`` is stamped before anything is written
(:func:`respai.sealing.seal_run`); once it is appended, :func:`keep_tokens` writes its
tokens here and stamps the new checkpoint. A checkpoint's token dates the whole ledger up
to its size: every run it covers existed no later than the token's time, so a history
rewritten later cannot carry it.

:func:`check_ledger_stamps` checks every token with
:func:`respai.record.timestamp.check_tokens` over the file's bytes, names a signer's
clock that disagrees with a run's token (:func:`clock_finding`), and compares each plan's
earliest token with the tokens of the runs held to it: a plan whose authority time is
later than a run held to it was not registered before that run, whatever its own time
says (``plan_after_run``, a problem).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from respai.ledger.layout import (
    atomic_write,
    checkpoint_files,
    read_ledger_file,
    rel,
    run_files,
    run_info,
)
from respai.record.errors import RecordError
from respai.record.times import format_timestamp, parse_timestamp
from respai.record.timestamp import (
    CHECKPOINT_MESSAGE,
    check_tokens,
    clock_finding,
    read_sidecar,
    record_message,
)

if TYPE_CHECKING:
    from respai.ledger.store import Appended

__all__ = ["STAMPS", "LedgerStamps", "check_ledger_stamps", "keep_tokens"]

STAMPS = "timestamps"
"""The ledger's folder of tokens (``runs/`` and ``checkpoints/`` inside)."""


def keep_tokens(
    appended: Appended, run_tokens: bytes, urls: Sequence[str], note: str | None
) -> str | None:
    """Write a just-appended run's tokens into its ledger and stamp the new checkpoint.

    The run is in the ledger already, so nothing here fails the run: a file that cannot
    be written, or an authority that gives no token for the checkpoint (it gave one for
    the run a moment ago), is a sentence added to ``note``; the output folder's
    ``timestamps.json`` holds the run's tokens either way.
    """
    from respai.errors import Error
    from respai.record.timestamp import sidecar_bytes, stamp

    directory = appended.run_file.parent.parent
    missed: list[str] = []
    runs = directory / STAMPS / "runs"
    try:
        runs.mkdir(parents=True, exist_ok=True)
        atomic_write(runs, appended.run_file.name, run_tokens)
    except OSError as exc:
        missed.append(
            f"the run's tokens could not be written to {runs / appended.run_file.name}: "
            f"{exc.strerror or exc} (the output folder's timestamps.json holds them)"
        )
    if appended.checkpoint is not None:
        folder = directory / STAMPS / "checkpoints"
        name = f"{appended.size}.json"
        try:
            body = read_ledger_file(appended.checkpoint)
            doc = stamp(body, urls, kind=CHECKPOINT_MESSAGE)
            folder.mkdir(parents=True, exist_ok=True)
            atomic_write(folder, name, sidecar_bytes(doc))
        except (OSError, Error) as exc:
            why = exc.message if isinstance(exc, Error) else (exc.strerror or str(exc))
            missed.append(f"the checkpoint {appended.checkpoint.name} was not stamped: {why}")
    if not missed:
        return note
    text = "; ".join(missed)
    return text if note is None else f"{note} Also, {text}."


@dataclasses.dataclass(frozen=True)
class LedgerStamps:
    """The timestamp findings of a ledger: lines for people, JSON, and the outcome."""

    lines: tuple[str, ...]
    runs: tuple[dict[str, Any], ...]
    problems: tuple[str, ...]
    unstamped: int
    checkpoints: tuple[dict[str, Any], ...] = ()

    @property
    def ok(self) -> bool:
        """Whether no token failed and no clock or plan finding was made."""
        return not self.problems

    def to_json(self) -> dict[str, Any]:
        """JSON-ready data."""
        return {
            "ok": self.ok,
            "runs": list(self.runs),
            "checkpoints": list(self.checkpoints),
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
        doc = read_sidecar(directory / STAMPS / "runs" / path.name)
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
    checkpoints = _check_checkpoints(directory, trusted, lines, problems)
    return LedgerStamps(tuple(lines), tuple(runs), tuple(problems), unstamped, checkpoints)


def _check_checkpoints(
    directory: Path, trusted: Sequence[Any] | None, lines: list[str], problems: list[str]
) -> tuple[dict[str, Any], ...]:
    """Check the tokens over each stamped checkpoint file (appending lines and problems)."""
    found, _, _ = checkpoint_files(directory)
    out: list[dict[str, Any]] = []
    for _, path in found:
        name = rel(directory, path)
        doc = read_sidecar(
            directory / STAMPS / "checkpoints" / f"{path.stem}.json", CHECKPOINT_MESSAGE
        )
        if doc is None:
            continue
        if isinstance(doc, str):
            problems.append(f"{name}: {doc}")
            lines.append(f"FAIL  timestamp: {name}: {doc}")
            continue
        try:
            data = read_ledger_file(path)
        except OSError as exc:
            problems.append(f"{name}: cannot be read ({exc.strerror})")
            continue
        checks = check_tokens(doc, data, trusted)
        out.append({"checkpoint": name, "tokens": [c.to_json() for c in checks]})
        for c in checks:
            mark = "note" if c.ok is None else ("ok  " if c.ok else "FAIL")
            lines.append(f"{mark}  timestamp: {name} {c.detail}")
            if c.ok is False:
                problems.append(f"{name}: {c.detail}")
    return tuple(out)


def _stated(predicate: dict[str, Any]) -> dt.datetime | None:
    try:
        return parse_timestamp(predicate.get("timestamp"))
    except RecordError:  # an unreadable time is the ledger check's problem
        return None
