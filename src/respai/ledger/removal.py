"""Removing a run whose retention ended: the run file goes, a signed tombstone takes its place.

See :mod:`respai.ledger.tombstone` for what the tombstone holds and how verification
uses it; ``respai ledger remove`` is the command.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from respai import record
from respai.io import make_folder
from respai.ledger.errors import LedgerError
from respai.ledger.layout import RUNS, atomic_write, rel, run_info
from respai.ledger.log import find_run
from respai.ledger.store import Ledger
from respai.ledger.tombstone import TOMBSTONES, Tombstone, build_tombstone, read_tombstones
from respai.retention import keep_until

__all__ = ["remove_run"]


def remove_run(
    directory: Path | str,
    ref: str,
    *,
    reason: str,
    key: Ed25519PrivateKey,
    key_id: str,
) -> Tombstone:
    """Remove the run ``ref`` after its retention ended, leaving a signed tombstone.

    Parameters
    ----------
    directory
        The ledger directory.
    ref
        The run: a run id (or unique prefix), a ``seq``, ``-1`` for the newest, or the
        run file's path inside the ledger.
    reason
        Why the run is removed (stated in the tombstone).
    key, key_id
        The remover's signing key and its id.

    Returns
    -------
    Tombstone
        The tombstone written to ``tombstones/<run file>``.

    Raises
    ------
    LedgerError
        When the run states no retention, must still be kept (the date is named), is not
        a run of this ledger, or cannot be read; nothing is removed.
    """
    directory = Path(directory)
    if not reason.strip():
        raise LedgerError(
            "The reason for removing a run is empty.",
            "Say why it is removed, e.g. --reason 'retention ended; data-subject request'.",
        )
    ledger = Ledger.open(directory, create=False)
    with ledger.append_lock():
        path = find_run(directory, ref)
        if path.resolve().parent != (directory / RUNS).resolve():
            raise LedgerError(f"{path} is not a run file of the ledger {directory}.")
        info = run_info(int(path.name.split("-", 1)[0]), path)
        if info.error is not None or info.first_seq is None or info.last_seq is None:
            raise LedgerError(
                f"{rel(directory, path)} {info.error or 'has no readable seq range'}; only a "
                "readable run can be removed with a tombstone."
            )
        kept = keep_until(info.predicate)
        if kept is None:
            raise LedgerError(
                f"{rel(directory, path)} (run {info.run_id}) states no retention clock, so "
                "respai cannot say it may be removed; it was not removed.",
                "Only runs recorded under a policy with retention: can be removed.",
            )
        day, names = kept
        now = record.now_utc()
        if now.date() <= dt.date.fromisoformat(day):
            raise LedgerError(
                f"{rel(directory, path)} (run {info.run_id}) must be kept until {day} "
                f"under retention {', '.join(names)}; today is {now.date()}, so it was not "
                "removed.",
                f"Remove it after {day}.",
            )
        data = build_tombstone(
            info,
            keep_until=day,
            retention=names,
            reason=reason,
            removed_at=now,
            key=key,
            key_id=key_id,
        )
        make_folder(directory / TOMBSTONES)
        atomic_write(directory / TOMBSTONES, path.name, data)
        path.unlink()
    stones, _ = read_tombstones(directory, None)
    return next(s for s in stones if s.path.name == path.name)
