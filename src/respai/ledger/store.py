"""Appending to a ledger: opening or creating it, the lock, the head, and one append.

Appending takes the lock (``flock(2)`` on ``lock``), reads the head (the next ``seq``
and the last record id, from the newest run file), and writes the run file, then a
checkpoint over every run, each with write-to-temporary, ``fsync``, ``os.replace`` and
an ``fsync`` of the directory. A crash at any point leaves a ledger that verifies: a run
without its checkpoint, or a stray ``.tmp-*`` file, is reported as a note.

**Nothing cached is trusted when signing.** The root a checkpoint signs is recomputed
from the bytes of every run file each time (one SHA-256 pass over the runs, no JSON
parsing), and before it signs, the signer checks that the runs its own newest checkpoint
covers still have the root it signed then; if they do not, it refuses to append. Older
ledgers kept a ``tree.json`` frontier cache; it is no longer read or written.
"""

from __future__ import annotations

import contextlib
import dataclasses
import fcntl
import os
import stat
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from respai.io import NotARegularFile, make_folder, read_bounded
from respai.ledger.checkpoint import sign_checkpoint, verify_checkpoint
from respai.ledger.errors import CheckpointError, LedgerError
from respai.ledger.layout import (
    CHECKPOINTS,
    DEFAULT_DIRECTORY,
    LEDGER_FORMAT,
    LEDGER_JSON,
    RUNS,
    atomic_write,
    checkpoint_files,
    read_ledger_file,
    read_ledger_json,
    rel,
    run_file_name,
    run_files,
    run_info,
)
from respai.ledger.merkle import Frontier, run_leaf
from respai.ledger.tombstone import ledger_entries
from respai.limits import MAX_CHECKPOINT_BYTES
from respai.record import (
    GENESIS,
    KeyRing,
    RecordError,
    canonical_bytes,
    format_timestamp,
    key_id,
    loads_strict,
    now_utc,
    seal,
    verify_envelope,
)
from respai.record.chain import is_digest_id

__all__ = ["LOCK_TIMEOUT", "ORIGIN_PREFIX", "Appended", "Head", "Ledger"]

ORIGIN_PREFIX = "respai.local/ledger/"
"""The start of a new ledger's origin (its id); a random UUID follows."""

LOCK_TIMEOUT = 60.0
"""Seconds to wait for another appender to release the lock before giving up."""

_LOCK = "lock"


def _write_checkpoint(directory: Path, size: int, text: str) -> Path:
    return atomic_write(directory, f"{size}.txt", text.encode("utf-8"))


@contextlib.contextmanager
def _locked(directory: Path, timeout: float) -> Iterator[None]:
    path = directory / _LOCK
    try:
        # non-blocking: a FIFO put in the lock's place is refused, never waited on
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NONBLOCK, 0o644)
    except OSError as exc:
        raise LedgerError(f"Cannot open the ledger lock {path}: {exc.strerror}.") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise LedgerError(
                f"The ledger lock {path} is {NotARegularFile(path).strerror}; nothing was "
                "appended.",
                f"Remove {path}: respai creates it again as an empty file.",
            )
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise LedgerError(
                        f"Another respai run has held the ledger lock {path} for more than "
                        f"{timeout:g} s; nothing was appended.",
                        "Wait for it to finish, then run again.",
                    ) from None
                time.sleep(0.01)
            except OSError as exc:
                raise LedgerError(
                    f"Cannot lock {path}: {exc.strerror} (the file system may not support flock)."
                ) from None
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)


@dataclasses.dataclass(frozen=True)
class Appended:
    """What :meth:`Head.append` wrote.

    Attributes
    ----------
    run_file
        The run's file under ``runs/``.
    checkpoint
        The checkpoint file under ``checkpoints/``, or ``None`` when the run was stored
        but its checkpoint could not be written (``note`` says why; the ledger still
        verifies, and the next run's checkpoint covers this run).
    first_seq, last_seq
        The run's ``seq`` range.
    size
        The number of runs in the ledger now, the checkpoint's size.
    root
        The checkpoint's 32-byte RFC 6962 root over those runs.
    last_record_id
        The id of the run's last record: the next run links to it.
    note
        A sentence for the user when something short of a failure happened.
    """

    run_file: Path
    checkpoint: Path | None
    first_seq: int
    last_seq: int
    size: int
    root: bytes
    last_record_id: str
    note: str | None = None


@dataclasses.dataclass(frozen=True)
class Ledger:
    """An opened ledger directory.

    Attributes
    ----------
    directory
        The ledger directory.
    origin
        The ledger's id, ``respai.local/ledger/<uuid4>``: the first line of every
        checkpoint.
    created
        When ``ledger.json`` was written (RFC 3339 UTC), or ``None``.

    Examples
    --------
    Seal and append a run under the lock (``predicate`` and ``key`` are the caller's)::

        ledger = Ledger.open(".respai")  # created when missing
        with ledger.append_lock() as head:
            envelope = seal(predicate, None, key, key_id(key.public_key()),
                            prev_record_id=head.last_record_id, start_seq=head.next_seq)
            head.append(envelope, key)
    """

    directory: Path
    origin: str
    created: str | None = None

    @classmethod
    def open(
        cls,
        directory: Path | str | None = None,
        *,
        create: bool = True,
        timeout: float = LOCK_TIMEOUT,
    ) -> Ledger:
        """Open the ledger in ``directory``, creating it when asked.

        Parameters
        ----------
        directory
            The ledger directory; ``.respai`` in the working directory when ``None``.
        create
            Create the directory, ``ledger.json`` (with a new random origin),
            ``runs/`` and ``checkpoints/`` when the ledger does not exist yet (the
            default); with ``False``, a missing ledger is an error. Creation happens
            under the lock, so two runs starting at once create one ledger.
        timeout
            Seconds to wait for the lock when creating.

        Returns
        -------
        Ledger
            The opened ledger.

        Raises
        ------
        LedgerError
            If the ledger does not exist and ``create`` is false, ``ledger.json`` is
            malformed, or it is missing while runs are present (it is never recreated
            over existing runs).
        """
        path = DEFAULT_DIRECTORY if directory is None else Path(directory)
        if (path / LEDGER_JSON).is_file():
            return cls(path, *read_ledger_json(path))
        if (path / LEDGER_JSON).exists() or (path / LEDGER_JSON).is_symlink():
            read_ledger_json(path)  # a FIFO, a device or a dangling link: says which
        if not create:
            if path.is_dir() and (path / RUNS).is_dir():
                raise LedgerError(
                    f"The ledger {path} has no ledger.json, so its id (the checkpoints' "
                    "origin) is unknown.",
                    "Restore ledger.json from a backup; respai does not recreate it over "
                    "existing runs.",
                )
            raise LedgerError(
                f"{path} is not a respai ledger (no {LEDGER_JSON}).",
                "Pass the directory that holds ledger.json, runs/ and checkpoints/, or "
                "record a run first to create one.",
            )
        if path.exists() and not path.is_dir():
            raise LedgerError(f"{path} exists and is not a directory, so it cannot hold a ledger.")
        try:
            make_folder(path, parents=True)  # 0755 whatever the umask
        except OSError as exc:
            raise LedgerError(
                f"Cannot create the ledger directory {path}: {exc.strerror}."
            ) from None
        with _locked(path, timeout):
            if (path / LEDGER_JSON).is_file():
                return cls(path, *read_ledger_json(path))
            runs, _, _ = run_files(path)
            if runs:
                raise LedgerError(
                    f"The ledger {path} holds {len(runs)} run(s) but no ledger.json; "
                    "respai will not start a new ledger over them.",
                    "Restore ledger.json from a backup, or move the runs away.",
                )
            origin = ORIGIN_PREFIX + str(uuid.uuid4())
            created = format_timestamp(now_utc().replace(microsecond=0))
            info = {"format": LEDGER_FORMAT, "origin": origin, "created": created}
            try:
                # ledger.json first: a crash before it leaves no half-made ledger.
                atomic_write(path, LEDGER_JSON, canonical_bytes(info) + b"\n")
                make_folder(path / RUNS)
                make_folder(path / CHECKPOINTS)
            except OSError as exc:
                raise LedgerError(f"Cannot create the ledger in {path}: {exc.strerror}.") from None
            return cls(path, origin, created)

    @property
    def runs_dir(self) -> Path:
        """The ``runs/`` directory."""
        return self.directory / RUNS

    @property
    def checkpoints_dir(self) -> Path:
        """The ``checkpoints/`` directory."""
        return self.directory / CHECKPOINTS

    @contextlib.contextmanager
    def append_lock(self, *, timeout: float = LOCK_TIMEOUT) -> Iterator[Head]:
        """Lock the ledger and yield its head, read under the lock.

        Seal the run with ``prev_record_id=head.last_record_id`` and
        ``start_seq=head.next_seq``, then call :meth:`Head.append` before leaving the
        block. Another process calling this waits until the block ends.

        Parameters
        ----------
        timeout
            Seconds to wait for another appender.

        Yields
        ------
        Head
            The ledger's head; valid only inside the block.

        Raises
        ------
        LedgerError
            If the lock is not released in time, the newest run cannot be read, or a
            checkpoint covers more records than the ledger holds (the tail was
            removed: appending is refused so that the evidence is kept).
        """
        for sub in (self.runs_dir, self.checkpoints_dir):
            try:
                make_folder(sub)
            except OSError as exc:
                raise LedgerError(f"Cannot create {sub}: {exc.strerror}.") from None
        with _locked(self.directory, timeout):
            head = Head(self, *_read_head(self))
            try:
                yield head
            finally:
                head._active = False

    def seal_and_append(
        self,
        predicate: Mapping[str, Any],
        key: Ed25519PrivateKey,
        *,
        subjects: Sequence[Mapping[str, Any]] | None = None,
        timeout: float = LOCK_TIMEOUT,
    ) -> tuple[dict[str, Any], Appended]:
        """Seal ``predicate`` as the ledger's next run and append it, under the lock.

        The predicate's ``timestamp`` is the caller's: stamp it just before calling (or
        seal inside :meth:`append_lock`, as respai's commands do), since ``respai verify
        --ledger`` names a run stamped more than a minute before the run ahead of it
        (``time_order``, see :mod:`respai.ledger.order`).

        Parameters
        ----------
        predicate
            The record, as :func:`respai.record.seal` takes it.
        key
            The Ed25519 private key; it signs the envelope and the checkpoint.
        subjects
            The Statement subjects, or ``None`` to derive them from the fingerprints.
        timeout
            Seconds to wait for another appender.

        Returns
        -------
        tuple
            The sealed envelope and what was written.

        Raises
        ------
        RecordError
            If the record cannot be sealed.
        LedgerError
            If it cannot be appended.
        """
        with self.append_lock(timeout=timeout) as head:
            envelope = seal(
                predicate,
                subjects,
                key,
                key_id(key.public_key()),
                prev_record_id=head.last_record_id,
                start_seq=head.next_seq,
            )
            return envelope, head.append(envelope, key)


def _read_head(ledger: Ledger) -> tuple[int, str]:
    directory = ledger.directory
    runs = ledger_entries(directory)  # a removed run's tombstone keeps its place
    next_seq, last_id = 0, GENESIS
    if runs:
        name_seq, path, stone = runs[-1]
        info = run_info(name_seq, path) if stone is None else stone.info()
        if (
            info.error is not None
            or info.first_seq != name_seq
            or info.last_seq is None
            or info.last_id is None
            or not is_digest_id(info.last_id)
        ):
            reason = info.error or "its records' seq or record_id are not what its name says"
            raise LedgerError(
                f"Cannot append to the ledger {directory}: the newest run file "
                f"{rel(directory, path)} {reason}.",
                f"Run 'respai verify --ledger {directory}' to see what is wrong.",
            )
        next_seq, last_id = info.last_seq + 1, info.last_id
    checkpoints, _, _ = checkpoint_files(directory)
    if checkpoints and checkpoints[-1][0] > len(runs):
        size, path = checkpoints[-1]
        raise LedgerError(
            f"Cannot append to the ledger {directory}: the checkpoint "
            f"{rel(directory, path)} covers {size} runs but the ledger holds "
            f"{len(runs)}, so its tail was removed. Appending is refused so that the "
            "evidence is kept.",
            f"Run 'respai verify --ledger {directory}', and restore the missing runs "
            "from a backup.",
        )
    return next_seq, last_id


class Head:
    """The end of a ledger, read under its lock: where the next run goes.

    Obtained from :meth:`Ledger.append_lock`; valid only inside that block. After
    :meth:`append` it points past the run just written, so several runs may be appended
    under one lock.
    """

    __slots__ = ("_active", "_last_record_id", "_next_seq", "ledger")

    def __init__(self, ledger: Ledger, next_seq: int, last_record_id: str) -> None:
        self.ledger = ledger
        self._next_seq = next_seq
        self._last_record_id = last_record_id
        self._active = True

    @property
    def next_seq(self) -> int:
        """The ``seq`` of the next run's first record (the number of records so far)."""
        return self._next_seq

    @property
    def last_record_id(self) -> str:
        """The id of the ledger's last record, or :data:`~respai.record.GENESIS` if empty."""
        return self._last_record_id

    def __repr__(self) -> str:
        return (
            f"Head(directory={str(self.ledger.directory)!r}, next_seq={self._next_seq}, "
            f"last_record_id={self._last_record_id!r})"
        )

    def append(self, envelope: Mapping[str, Any] | bytes, key: Ed25519PrivateKey) -> Appended:
        """Write a sealed run as the ledger's next run, then a checkpoint over the ledger.

        The envelope must verify with ``key``'s public key as the run following this
        head (its first record at :attr:`next_seq`, linking to :attr:`last_record_id`).
        The run file is written first, then the checkpoint signed with ``key``, each
        atomically; a crash between them leaves a run without a checkpoint, which
        :func:`verify_ledger` reports as a note.

        Parameters
        ----------
        envelope
            The DSSE envelope, parsed, or its exact JSON bytes (written as they are).
            A parsed envelope is written as its RFC 8785 bytes and a newline.
        key
            The private key that signed the envelope; it signs the checkpoint.

        Returns
        -------
        Appended
            The files written and the checkpoint's size and root.

        Raises
        ------
        LedgerError
            If the head is used outside its lock, the envelope does not verify as the
            next run, or a file cannot be written. When the run was stored but its
            checkpoint was not, the message says so; the next run's checkpoint covers
            it.
        """
        ledger = self.ledger
        directory = ledger.directory
        if not self._active:
            raise LedgerError(
                f"The head of the ledger {directory} was used after its append_lock block "
                "ended; another run may have appended since.",
                "Call head.append inside the 'with ledger.append_lock() as head:' block.",
            )
        if isinstance(envelope, bytes | bytearray):
            data = bytes(envelope)
            try:
                parsed: Any = loads_strict(data)
            except RecordError as exc:
                raise LedgerError(f"The run to append is not JSON: {exc.message}") from None
        else:
            parsed = envelope
            data = canonical_bytes(envelope) + b"\n"
        report = verify_envelope(
            parsed,
            KeyRing.from_public_key(key.public_key()),
            expected_prev=self._last_record_id,
            expected_seq=self._next_seq,
        )
        predicate = report.predicate
        if not report.ok or predicate is None:
            details = " ".join(f"{c.name}: {c.detail}." for c in report.checks if not c.ok)
            raise LedgerError(
                f"The run cannot be appended to the ledger {directory}: it does not verify "
                f"as its next run (seq {self._next_seq}, after {self._last_record_id}) "
                f"signed by key {key_id(key.public_key())}; failed: "
                f"{', '.join(report.failed) or 'incomplete checks'}. {details}",
                "Seal it inside the append_lock block with prev_record_id="
                "head.last_record_id and start_seq=head.next_seq, and pass the signing key.",
            )
        records = predicate["records"]
        first_seq, last_seq = records[0]["seq"], records[-1]["seq"]
        name = run_file_name(first_seq, predicate["run_id"])
        final = ledger.runs_dir / name
        if final.exists():  # pragma: no cover - a new seq under the lock is a new name
            raise LedgerError(f"The run file {final} already exists; nothing was written.")
        # The Merkle frontier of the runs before this one, from their files, before
        # anything is written.
        frontier = _frontier_for(ledger, key)
        try:
            run_file = atomic_write(ledger.runs_dir, name, data)
        except OSError as exc:
            raise LedgerError(
                f"Cannot write the run file {final}: {exc.strerror}; nothing was appended."
            ) from None
        self._next_seq, self._last_record_id = last_seq + 1, records[-1]["record_id"]
        frontier.append(run_leaf(data))
        size, root = frontier.size, frontier.root()
        text = sign_checkpoint(ledger.origin, size, root, key)
        checkpoint: Path | None = None
        note = None
        try:
            checkpoint = _write_checkpoint(ledger.checkpoints_dir, size, text)
        except OSError as exc:
            # the run is in the ledger (that cannot be taken back without a gap): report
            note = (
                f"the run was stored in {run_file}, but its checkpoint "
                f"{ledger.checkpoints_dir / f'{size}.txt'} could not be written: "
                f"{exc.strerror}. The ledger still verifies; the next run's checkpoint "
                "covers this run."
            )
        return Appended(
            run_file, checkpoint, first_seq, last_seq, size, root, self._last_record_id, note
        )


def _frontier_for(ledger: Ledger, key: Ed25519PrivateKey) -> Frontier:
    """The Merkle frontier of every run file now in the ledger, in name (ledger) order.

    Recomputed from the files' bytes on every append: no cache is trusted. Before the
    caller signs on top of it, the runs that the newest checkpoint covers must still
    have the root it states, when that checkpoint is signed by ``key`` (this signer
    vouched for it): an appender never extends a history that changed under its own
    signature.
    """
    directory = ledger.directory
    runs = ledger_entries(directory)  # a removed run's leaf is its tombstone's
    mine = _own_newest_checkpoint(ledger, key, len(runs))
    frontier = Frontier()
    for _, path, stone in runs:
        if stone is not None:
            frontier.append(stone.leaf)
            continue
        try:
            data = read_ledger_file(path)
        except OSError as exc:
            raise LedgerError(
                f"Cannot checkpoint the ledger {directory}: the run file "
                f"{rel(directory, path)} cannot be read: {exc.strerror}; nothing was "
                "appended."
            ) from None
        frontier.append(run_leaf(data))
        if mine is not None and frontier.size == mine[0] and frontier.root() != mine[1]:
            raise LedgerError(
                f"Cannot append to the ledger {directory}: its first {mine[0]} run(s) no "
                f"longer have the root that checkpoints/{mine[0]}.txt, signed by this "
                "key, commits to, so a run it covers was changed, replaced or removed "
                "since. Appending is refused so that the evidence is kept.",
                f"Run 'respai verify --ledger {directory}' to see which run, and restore "
                "it from a backup.",
            )
    return frontier


def _own_newest_checkpoint(
    ledger: Ledger, key: Ed25519PrivateKey, runs: int
) -> tuple[int, bytes] | None:
    """The size and root of the newest checkpoint, if ``key`` signed it; else ``None``."""
    checkpoints, _, _ = checkpoint_files(ledger.directory)
    if not checkpoints or checkpoints[-1][0] > runs:
        return None
    size, path = checkpoints[-1]
    try:
        text = read_bounded(path, MAX_CHECKPOINT_BYTES, "MAX_CHECKPOINT_BYTES").decode("utf-8")
        checkpoint = verify_checkpoint(text, [key.public_key()], origin=ledger.origin)
    except (OSError, UnicodeDecodeError, CheckpointError):
        return None  # signed by another key, or damaged: verification reports it
    return (size, checkpoint.root) if checkpoint.size == size else None
