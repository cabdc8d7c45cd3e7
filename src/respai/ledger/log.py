"""Reading a ledger without keys: the run list for ``respai log``, and finding one run.

Nothing here verifies: the summaries show what the files *say*. Use
:func:`~respai.ledger.verify_ledger` to check that they are intact.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from respai import record
from respai.ledger.errors import LedgerError
from respai.ledger.layout import (
    DEFAULT_DIRECTORY,
    MAX_LISTED,
    RUNS,
    RunInfo,
    read_run,
    run_files,
    run_info,
    safe_run_id,
)
from respai.render.escape import terminal_text
from respai.retention import keep_until

__all__ = ["RunSummary", "find_run", "last_envelope", "list_runs", "log_lines"]


@dataclasses.dataclass(frozen=True)
class RunSummary:
    """One run as ``respai log`` lists it, read without verification.

    Attributes
    ----------
    file
        The run file (``<ledger>/runs/<seq>-<run_id>.json``).
    first_seq, last_seq
        The ``seq`` range of its records.
    run_id, timestamp
        The run's id and time.
    system_name, system_version
        The evaluated system, from the record's ``system``.
    dataset_name, dataset_sha256
        The dataset fingerprint.
    verdict
        The run's verdict.
    tests
        The number of test records.
    key_id
        The key the record names.
    kind
        What made the run: ``evaluate`` (a record without a ``kind``), ``ll144``,
        ``plan``, ``monitor``, ``paired``, ``pack``, ...; ``None`` when unreadable.
    problem
        Why the file could not be read, or ``None``.
    keep_until
        The latest ``keep_until`` of the record's retention clocks (``YYYY-MM-DD``), or
        ``None`` when the record states none.
    retention
        The names of the clocks that end on ``keep_until``.
    removed
        For a run removed after its retention ended, its tombstone's line (what, when,
        why, signed by whom); ``None`` for a run that is there.
    """

    file: Path
    first_seq: int | None = None
    last_seq: int | None = None
    run_id: str | None = None
    timestamp: str | None = None
    system_name: str | None = None
    system_version: str | None = None
    dataset_name: str | None = None
    dataset_sha256: str | None = None
    verdict: str | None = None
    tests: int = 0
    key_id: str | None = None
    kind: str | None = None
    problem: str | None = None
    keep_until: str | None = None
    retention: tuple[str, ...] = ()
    removed: str | None = None

    def expired(self, today: dt.date) -> bool:
        """Whether every retention clock of the run has passed on ``today``."""
        return self.keep_until is not None and today > dt.date.fromisoformat(self.keep_until)

    @property
    def dataset_short(self) -> str | None:
        """``sha256:`` and the first 12 hex digits of the dataset digest, or ``None``."""
        return None if self.dataset_sha256 is None else f"sha256:{self.dataset_sha256[:12]}"

    def to_json(self) -> dict[str, Any]:
        """Return the summary as JSON-ready data (for ``respai log --json``)."""
        data = dataclasses.asdict(self)
        data["file"] = f"{'tombstones' if self.removed else RUNS}/{self.file.name}"
        data["dataset_short"] = self.dataset_short
        data["retention"] = list(self.retention)
        return data


def _text(mapping: object, *path: str) -> str | None:
    value: Any = mapping
    for part in path:
        value = value.get(part) if isinstance(value, Mapping) else None
    return value if isinstance(value, str) else None


#: The short name ``respai log`` shows for a record's ``kind``.
_KIND_NAMES = {"respai.ll144.pack": "pack"}


def run_kind(predicate: Mapping[str, Any]) -> str:
    """The short kind of a run: ``evaluate`` without a ``kind``, else its name.

    Examples
    --------
    >>> run_kind({}), run_kind({"kind": "respai.monitor"}), run_kind({"kind": "respai.ll144.pack"})
    ('evaluate', 'monitor', 'pack')
    """
    kind = predicate.get("kind")
    if not isinstance(kind, str):
        return "evaluate"
    return _KIND_NAMES.get(kind, kind.removeprefix("respai."))


def _summary(info: RunInfo) -> RunSummary:
    pred = info.predicate
    if info.error is not None or pred is None:
        return RunSummary(info.path, first_seq=info.name_seq, problem=info.error)
    records = pred.get("records")
    records = records if isinstance(records, list) else []
    kept = keep_until(pred)
    verdict = _text(pred, "verdict")
    if verdict is None and records and isinstance(records[-1], Mapping):
        verdict = _text(records[-1], "verdict") or _text(records[-1], "worst_verdict")
    return RunSummary(
        file=info.path,
        first_seq=info.first_seq,
        last_seq=info.last_seq,
        run_id=info.run_id,
        timestamp=_text(pred, "timestamp"),
        system_name=_text(pred, "system", "name"),
        system_version=_text(pred, "system", "version"),
        dataset_name=_text(pred, "fingerprints", "dataset", "name"),
        dataset_sha256=_text(pred, "fingerprints", "dataset", "sha256"),
        verdict=verdict,
        tests=sum(1 for r in records if isinstance(r, Mapping) and r.get("record_type") == "test"),
        key_id=_text(pred, "key_id"),
        kind=run_kind(pred),
        keep_until=None if kept is None else kept[0],
        retention=() if kept is None else tuple(kept[1]),
    )


def list_runs(directory: Path | str | None = None) -> list[RunSummary]:
    """List the ledger's runs in ``seq`` order, for ``respai log``.

    Nothing is verified and no keys are needed: the summaries show what the files
    *say*. Use :func:`verify_ledger` to check that they are intact.

    Parameters
    ----------
    directory
        The ledger directory; ``.respai`` when ``None``.

    Returns
    -------
    list of RunSummary
        One per run file, by the ``seq`` in its name; an unreadable file is listed with
        its ``problem``.

    Raises
    ------
    LedgerError
        If ``directory`` is not a directory.
    """
    path = DEFAULT_DIRECTORY if directory is None else Path(directory)
    if not path.is_dir():
        raise LedgerError(
            f"The ledger directory {path} does not exist or is not a directory.",
            "Record a run first, or pass the directory that holds runs/.",
        )
    runs = [_summary(run_info(seq, p)) for seq, p in run_files(path)[0]]
    from respai.ledger.tombstone import read_tombstones

    for stone in read_tombstones(path, None)[0]:  # removed runs, as their tombstones say
        s = stone.statement
        runs.append(
            RunSummary(
                stone.path,
                first_seq=int(s["first_seq"]),
                last_seq=int(s["last_seq"]),
                run_id=str(s["run_id"]),
                timestamp=s["run_timestamp"] if isinstance(s["run_timestamp"], str) else None,
                key_id=str(s["key_id"]),
                kind="removed",
                keep_until=str(s["keep_until"]),
                retention=tuple(str(n) for n in s["retention"]),
                removed=stone.text(),
            )
        )
    runs.sort(key=lambda r: (r.first_seq if r.first_seq is not None else -1, r.file.name))
    return runs


def log_lines(runs: Sequence[RunSummary], today: dt.date | None = None) -> list[str]:
    """Return the run summaries as aligned lines for people, oldest first.

    When a run states retention clocks, a ``KEEP UNTIL`` column shows each run's latest
    ``keep_until``, with ``(expired)`` once it has passed on ``today`` (the UTC date by
    default), and a removed run's tombstone line follows the table.

    Every cell is what a run file says, so each is shown with its control, escape and
    bidi characters escaped (:func:`respai.render.escape.terminal_text`) before the
    columns are aligned.

    Examples
    --------
    >>> log_lines([])
    ['No runs in the ledger.']
    """
    if not runs:
        return ["No runs in the ledger."]
    rows: list[tuple[str, ...]] = [
        ("SEQ", "TIME", "KIND", "RUN", "SYSTEM", "DATASET", "VERDICT", "TESTS", "KEY")
    ]
    kept = any(r.keep_until is not None for r in runs)
    if kept:
        today = today or record.now_utc().date()
        rows = [(*rows[0][:-1], "KEEP UNTIL", rows[0][-1])]
    for r in runs:
        if r.problem is not None:
            rows.append(
                (
                    str(r.first_seq),
                    "?",
                    "?",
                    r.file.name,
                    "",
                    "",
                    "UNREADABLE",
                    "",
                    *([""] if kept else []),
                    r.problem or "",
                )
            )
            continue
        span = f"{r.first_seq}..{r.last_seq}"
        system = " ".join(x for x in (r.system_name, r.system_version) if x) or "-"
        dataset = " ".join(x for x in (r.dataset_name, r.dataset_short) if x) or "-"
        key = r.key_id.removeprefix("sha256:")[:12] if r.key_id else "-"
        rows.append(
            (
                span,
                r.timestamp or "-",
                r.kind or "-",
                (r.run_id or "-")[:36],
                system,
                dataset,
                r.verdict or "-",
                str(r.tests),
                *([_keep_cell(r, today)] if kept and today is not None else []),
                key,
            )
        )
    shown = [[terminal_text(cell) for cell in row] for row in rows]
    widths = [max(len(row[i]) for row in shown) for i in range(len(rows[0]) - 1)]
    lines = [
        "  ".join(cell.ljust(w) for cell, w in zip(row[:-1], widths, strict=True)) + "  " + row[-1]
        for row in shown
    ]
    lines += [f"Removed: {terminal_text(r.removed)}." for r in runs if r.removed is not None]
    return lines


def _keep_cell(run: RunSummary, today: dt.date) -> str:
    if run.keep_until is None:
        return "-"
    if run.removed is not None:
        return f"{run.keep_until} (removed)"
    return f"{run.keep_until} (expired)" if run.expired(today) else run.keep_until


def last_envelope(directory: Path | str | None = None) -> dict[str, Any] | None:
    """Return the envelope of the ledger's newest run (highest ``seq``), not verified.

    Returns
    -------
    dict or None
        The envelope, or ``None`` for a ledger without runs.

    Raises
    ------
    LedgerError
        If the directory does not exist or the newest run file cannot be read.
    """
    path = DEFAULT_DIRECTORY if directory is None else Path(directory)
    if not path.is_dir():
        raise LedgerError(f"The ledger directory {path} does not exist or is not a directory.")
    runs, _, _ = run_files(path)
    return read_run(runs[-1][1]) if runs else None


def find_run(directory: Path | str | None, ref: str) -> Path:
    """Find a run by file path, run id, run id prefix, ``seq`` or position in the ledger.

    Parameters
    ----------
    directory
        The ledger directory; ``.respai`` when ``None``.
    ref
        The path of an existing file (returned as it is, the ledger is not read); a run
        id or a unique prefix of one (at least 4 characters); a ``seq`` number (the run
        holding that record); or ``-1`` for the newest run, ``-2`` for the one before,
        and so on.

    Returns
    -------
    Path
        The run file.

    Raises
    ------
    LedgerError
        If no run or more than one run matches.
    """
    if Path(ref).is_file():
        return Path(ref)
    path = DEFAULT_DIRECTORY if directory is None else Path(directory)
    if not path.is_dir():
        raise LedgerError(
            f"{ref!r} is not a file, and the ledger directory {path} to look it up in does "
            "not exist."
        )
    runs, _, _ = run_files(path)
    if re.fullmatch(r"-[1-9][0-9]*", ref):
        back = int(ref)
        if -back > len(runs):
            raise LedgerError(
                f"The ledger {path} holds {len(runs)} run(s); there is no run {ref}."
            )
        return runs[back][1]
    if re.fullmatch(r"0|[1-9][0-9]*", ref):
        seq = int(ref)
        for info in (run_info(s, p) for s, p in runs):
            first, last = info.first_seq, info.last_seq
            if first is not None and last is not None and first <= seq <= last:
                return info.path
        raise LedgerError(f"No run in the ledger {path} holds seq {seq}.")
    safe = safe_run_id(ref)
    tails = [(p, p.name.split("-", 1)[1].removesuffix(".json")) for _, p in runs]
    exact = [p for p, tail in tails if tail == safe]
    if len(exact) == 1:
        return exact[0]
    matches = [p for p, tail in tails if len(ref) >= 4 and tail.startswith(safe)]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise LedgerError(
            f"No run in the ledger {path} has the run id {ref!r}.",
            "Use 'respai log' to list the runs, or pass a seq number or -1 for the newest.",
        )
    raise LedgerError(
        f"{len(matches)} runs in the ledger {path} have run ids starting with {ref!r}: "
        + ", ".join(p.name for p in matches[:MAX_LISTED])
        + ".",
        "Give more characters of the run id.",
    )
