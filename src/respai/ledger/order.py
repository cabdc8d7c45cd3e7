"""Time order in a ledger: what the runs' own timestamps say about the order of events.

A run's ``timestamp`` is the signer's statement (the signing machine's clock), and each
run verifies against the key's validity window on its own. Read together, in the order
the chain fixes, the runs can still contradict each other. :func:`check_order` names
three such findings, each with a name like the checks of a record:

``time_order`` (a problem: the ledger does NOT verify)
    A run stamped more than :data:`TIME_TOLERANCE` (60 s) earlier than the run before it
    in the chain. respai's commands stamp a run while they hold the ledger's lock, so an
    honest clock gives times that never go back; a caller of
    :meth:`~respai.ledger.Ledger.seal_and_append` stamps its predicate before it waits
    for the lock (up to :data:`~respai.ledger.LOCK_TIMEOUT`, 60 s), and machines sharing
    a ledger keep their clocks within less, hence the tolerance.
``key_after_successor`` (a problem)
    A run signed by a retired key (one with ``not_after`` in the key ring) after a run
    signed by its successor: the key created most recently before the retirement (else
    the first created after it). Every run can be inside its key's window, yet a key
    that was replaced signing again after the new key took over is what a holder of the
    old key backdating runs looks like.
``plan_after_data`` (a warning, a note: the ledger still verifies)
    A run held to a plan (``run_start.plan``) evaluates a dataset (by SHA-256) that a run
    before the plan in the chain had already evaluated: the criteria were sealed after
    that data had been seen. The plan says so itself ("does not state that nobody looked
    at the data"); the records are intact and true, so it is named, not failed.

Only runs that verify are compared: one that does not is a problem already.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import itertools
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from respai.ledger.layout import RunInfo, rel
from respai.record import KeyRing, RecordError, format_timestamp, parse_timestamp
from respai.record.keys import KeyEntry

__all__ = [
    "KEY_AFTER_SUCCESSOR",
    "PLAN_AFTER_DATA",
    "TIME_ORDER",
    "TIME_TOLERANCE",
    "OrderFinding",
    "check_order",
]

TIME_TOLERANCE = dt.timedelta(seconds=60)
"""How much earlier than the run before it a run may be stamped before ``time_order``."""

TIME_ORDER = "time_order"
KEY_AFTER_SUCCESSOR = "key_after_successor"
PLAN_AFTER_DATA = "plan_after_data"

_PLAN_KIND = "respai.plan"


@dataclasses.dataclass(frozen=True)
class OrderFinding:
    """One finding about the order of a ledger's runs.

    Attributes
    ----------
    name
        ``time_order``, ``key_after_successor`` or ``plan_after_data``.
    failure
        Whether it makes the ledger fail (``plan_after_data`` is a warning).
    runs
        The run files it names (``runs/...``), in chain order.
    detail
        What was found, for people.
    """

    name: str
    failure: bool
    runs: tuple[str, ...]
    detail: str

    def text(self) -> str:
        """The finding as one line: its name, then what was found."""
        return f"{self.name}: {self.detail}"

    def to_json(self) -> dict[str, Any]:
        """Return the finding as JSON-ready data."""
        return {
            "name": self.name,
            "severity": "problem" if self.failure else "warning",
            "runs": list(self.runs),
            "detail": self.detail,
        }


@dataclasses.dataclass(frozen=True)
class _Run:
    file: str
    time: dt.datetime
    stamp: str
    key_id: str | None
    kind: str | None
    dataset: str | None
    plan: str | None  # the plan id of run_start.plan
    plan_id: str | None  # the plan id a plan run seals


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def _start(predicate: Mapping[str, Any]) -> Mapping[str, Any]:
    records = predicate.get("records")
    first = records[0] if isinstance(records, list) and records else None
    return first if isinstance(first, Mapping) else {}


def _run(directory: Path, info: RunInfo) -> _Run | None:
    predicate = info.predicate or {}
    try:
        time = parse_timestamp(predicate.get("timestamp"))
    except RecordError:
        return None
    fingerprints = predicate.get("fingerprints")
    dataset = fingerprints.get("dataset") if isinstance(fingerprints, Mapping) else None
    start = _start(predicate)
    ref = start.get("plan")
    return _Run(
        file=rel(directory, info.path),
        time=time.replace(microsecond=0),
        stamp=str(predicate.get("timestamp")),
        key_id=_text(predicate.get("key_id")),
        kind=_text(predicate.get("kind")),
        dataset=_text(dataset.get("sha256")) if isinstance(dataset, Mapping) else None,
        plan=_text(ref.get("plan_id")) if isinstance(ref, Mapping) else None,
        plan_id=_text(start.get("plan_id")),
    )


def check_order(directory: Path, verified: Sequence[RunInfo], keys: KeyRing) -> list[OrderFinding]:
    """Name what the timestamps of a ledger's verified runs say against their chain order.

    Parameters
    ----------
    directory
        The ledger folder (for the run file names in messages).
    verified
        The runs that verify, in chain order.
    keys
        The trusted keys, with their validity windows (for ``key_after_successor``).

    Returns
    -------
    list of OrderFinding
        ``time_order`` and ``key_after_successor`` findings (failures), then
        ``plan_after_data`` ones (warnings); empty for an honest ledger.
    """
    runs = [r for r in (_run(directory, info) for info in verified) if r is not None]
    return [*_time_order(runs), *_key_after_successor(runs, keys), *_plan_after_data(runs)]


def _time_order(runs: Sequence[_Run]) -> list[OrderFinding]:
    found = []
    for before, after in itertools.pairwise(runs):
        if after.time < before.time - TIME_TOLERANCE:
            found.append(
                OrderFinding(
                    TIME_ORDER,
                    True,
                    (before.file, after.file),
                    f"{after.file} is stamped {after.stamp}, earlier than {before.file} "
                    f"({before.stamp}), which comes before it in the chain, by more than "
                    f"{TIME_TOLERANCE.total_seconds():g} s: the timestamps run backwards (a "
                    "clock set back, or a run signed with a false time), so the runs' times "
                    "cannot be taken as the order of events.",
                )
            )
    return found


def _successor(retired: KeyEntry, entries: Sequence[KeyEntry]) -> KeyEntry | None:
    """The key that replaced ``retired``, or ``None``.

    The newest key made before its retirement, else the first made after it (keys are
    told apart by ``not_before``); ``retired`` has a ``not_after``.
    """
    assert retired.not_after is not None
    start = retired.not_before or dt.datetime.min.replace(tzinfo=dt.UTC)
    newer = [
        e
        for e in entries
        if e.key_id != retired.key_id and e.not_before is not None and e.not_before > start
    ]
    made = {e.key_id: e.not_before for e in newer if e.not_before is not None}
    before = [e for e in newer if made[e.key_id] <= retired.not_after]
    if before:
        return max(before, key=lambda e: made[e.key_id])
    return min(newer, key=lambda e: made[e.key_id]) if newer else None


def _key_after_successor(runs: Sequence[_Run], keys: KeyRing) -> list[OrderFinding]:
    entries = list(keys)
    found = []
    for old in entries:
        if old.not_after is None:
            continue
        new = _successor(old, entries)
        if new is None or new.not_before is None:
            continue
        first_new = next((r for r in runs if r.key_id == new.key_id), None)
        if first_new is None:
            continue
        later = [r for r in runs[runs.index(first_new) + 1 :] if r.key_id == old.key_id]
        if later:
            shown = ", ".join(f"{r.file} ({r.stamp})" for r in later[:8])
            more = f" and {len(later) - 8} more" if len(later) > 8 else ""
            found.append(
                OrderFinding(
                    KEY_AFTER_SUCCESSOR,
                    True,
                    (first_new.file, *(r.file for r in later)),
                    f"the retired key {old.key_id} (not_after "
                    f"{format_timestamp(old.not_after)}) signed {shown}{more} after "
                    f"{first_new.file} ({first_new.stamp}) had been signed by the key that "
                    f"replaced it, {new.key_id} (not_before "
                    f"{format_timestamp(new.not_before)}): a replaced key signed again "
                    "after its successor took over, as a holder of the old key backdating "
                    "runs inside its window would.",
                )
            )
    return found


def _plan_after_data(runs: Sequence[_Run]) -> list[OrderFinding]:
    plans: dict[str, int] = {}  # plan id -> the index of its first sealing
    for i, run in enumerate(runs):
        if run.kind == _PLAN_KIND and run.plan_id is not None:
            plans.setdefault(run.plan_id, i)
    found = []
    seen: set[tuple[str, str]] = set()
    for run in runs:
        if run.plan is None or run.dataset is None or run.plan not in plans:
            continue
        at = plans[run.plan]
        if (run.plan, run.dataset) in seen:
            continue
        earlier = [r for r in runs[:at] if r.kind != _PLAN_KIND and r.dataset == run.dataset]
        if not earlier:
            continue
        seen.add((run.plan, run.dataset))
        plan = runs[at]
        shown = ", ".join(f"{r.file} ({r.stamp})" for r in earlier[:8])
        more = f" and {len(earlier) - 8} more" if len(earlier) > 8 else ""
        found.append(
            OrderFinding(
                PLAN_AFTER_DATA,
                False,
                (*(r.file for r in earlier), plan.file, run.file),
                f"{run.file} is held to the plan {run.plan}, sealed in {plan.file} "
                f"({plan.stamp}), but the dataset it evaluates (sha256 {run.dataset}) had "
                f"already been evaluated before that plan was sealed, by {shown}{more}: the "
                "criteria were registered after this data had been seen.",
            )
        )
    return found
