"""The ledger folder: its layout, its file names, atomic writes, and reading run files.

::

    ledger.json                         {"format", "origin", "created"}
    lock                                flock(2) target: one appender at a time
    runs/<seq, 12 digits>-<run_id>.json one DSSE envelope per run, written atomically
    checkpoints/<size>.txt              a C2SP signed-note checkpoint after each run

Nothing here verifies a signature: these are the files as they are.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from respai import io
from respai.ledger.checkpoint import check_origin
from respai.ledger.errors import CheckpointError, LedgerError, LedgerFormatError
from respai.limits import MAX_JSON_BYTES
from respai.record import RecordError, envelope_payload, loads_strict

__all__ = [
    "CHECKPOINTS",
    "DEFAULT_DIRECTORY",
    "LEDGER_FORMAT",
    "LEDGER_JSON",
    "MAX_LISTED",
    "RUNS",
    "TMP_PREFIX",
    "RunInfo",
    "atomic_write",
    "checkpoint_files",
    "enclosing_ledger",
    "read_ledger_file",
    "read_ledger_json",
    "read_run",
    "rel",
    "run_file_name",
    "run_files",
    "run_info",
    "safe_run_id",
]

DEFAULT_DIRECTORY = Path(".respai")
"""Where the ledger lives when no directory is given: ``.respai/`` in the working directory."""

LEDGER_FORMAT = "respai-ledger/2"
"""The ``format`` of ``ledger.json``.

Format 2: a checkpoint's size counts runs and its tree has one leaf per run, the SHA-256
of the run file (:func:`~respai.ledger.run_leaf`). Format 1 (respai 0.2.0) counted
records and its leaves were the record ids only; such a ledger is refused with a message
saying so (:func:`read_ledger_json`).
"""

_OLD_FORMATS = {
    "respai-ledger/1": (
        "format 1 (written by respai 0.2.0), whose checkpoints sign the record ids only, "
        "so they do not cover a run's timestamp, fingerprints or counts; this respai "
        "reads and writes format 2 only"
    ),
}

LEDGER_JSON = "ledger.json"
RUNS = "runs"
CHECKPOINTS = "checkpoints"
TMP_PREFIX = ".tmp-"
MAX_LISTED = 8
"""How many file names a message lists at most."""

_RUN_NAME = re.compile(r"^([0-9]{12,})-([A-Za-z0-9._-]+)\.json$")
_CHECKPOINT_NAME = re.compile(r"^(0|[1-9][0-9]*)\.txt$")
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")


def enclosing_ledger(path: Path | str) -> Path | None:
    """The ledger folder ``path`` is or lies inside, or ``None``.

    A ledger folder is any folder holding a ``ledger.json``, or the default ledger
    (:data:`DEFAULT_DIRECTORY` of the current folder) even before it exists. ``path`` and
    every folder above it, up to the filesystem root, are looked at, with symbolic links
    resolved (both the folder the file would be written in and a link's target); the
    nearest ledger folder is returned.

    Examples
    --------
    >>> enclosing_ledger(".respai/runs/x.json") == Path(".respai").resolve()
    True
    """
    path = Path(path)
    default = Path(os.path.realpath(DEFAULT_DIRECTORY))
    for where in dict.fromkeys(
        [Path(os.path.realpath(path.parent)) / path.name, Path(os.path.realpath(path))]
    ):
        for folder in [where, *where.parents]:
            if folder == default or os.path.lexists(folder / LEDGER_JSON):
                return folder
    return None


def safe_run_id(run_id: str) -> str:
    """Return the run id as it appears in a file name (see :func:`run_file_name`)."""
    return _UNSAFE.sub("_", run_id)[:64] or "_"


def run_file_name(first_seq: int, run_id: str) -> str:
    """Return the file name of a run: ``<seq of its first record, 12 digits>-<run_id>.json``.

    Characters other than letters, digits, ``.``, ``_`` and ``-`` in the run id become
    ``_``, and it is cut to 64 characters.

    Examples
    --------
    >>> run_file_name(5, "0193f6a2-7c1e")
    '000000000005-0193f6a2-7c1e.json'
    """
    return f"{first_seq:012d}-{safe_run_id(run_id)}.json"


def atomic_write(directory: Path, name: str, data: bytes) -> Path:
    """Write ``directory/name`` so that it either holds all of ``data`` or does not exist.

    The one atomic writer (:func:`respai.io.atomic_write`), with the ledger's own
    temporary names (``.tmp-*``), which verification reports when a crash leaves one.
    """
    return io.atomic_write(directory / name, data, mode=0o644, tmp_prefix=TMP_PREFIX)


def rel(directory: Path, path: Path) -> str:
    """Return ``path`` relative to the ledger ``directory`` for messages (``runs/...``)."""
    try:
        return path.relative_to(directory).as_posix()
    except ValueError:
        return str(path)


def _numbered_files(
    folder: Path, pattern: re.Pattern[str]
) -> tuple[list[tuple[int, Path]], list[Path], list[Path]]:
    """Files whose name matches ``pattern`` (by their number), stray temporary files, others."""
    found: list[tuple[int, Path]] = []
    strays: list[Path] = []
    others: list[Path] = []
    if not folder.is_dir():
        return found, strays, others
    for path in sorted(folder.iterdir()):
        match = pattern.match(path.name)
        if path.name.startswith(TMP_PREFIX):
            strays.append(path)
        elif match and not path.is_dir():
            # a FIFO or a device under a run's name is listed too: reading it is refused
            # (see read_ledger_file), and the refusal names it as what it is
            found.append((int(match.group(1)), path))
        else:
            others.append(path)
    found.sort(key=lambda item: (item[0], item[1].name))
    return found, strays, others


def run_files(directory: Path) -> tuple[list[tuple[int, Path]], list[Path], list[Path]]:
    """Return the run files by name seq, the stray temporary files, and other files."""
    return _numbered_files(directory / RUNS, _RUN_NAME)


def checkpoint_files(
    directory: Path,
) -> tuple[list[tuple[int, Path]], list[Path], list[Path]]:
    """Return the checkpoint files by size, the stray temporary files, and other files."""
    return _numbered_files(directory / CHECKPOINTS, _CHECKPOINT_NAME)


def read_ledger_file(path: Path) -> bytes:
    """The bytes of a ledger's JSON file (``ledger.json``, a run), read with a bound.

    Only a regular file is read (a FIFO, a device or a socket, or a link to one, is
    refused before any byte is read), and at most
    :data:`~respai.limits.MAX_JSON_BYTES` bytes: no respai reader accepts a larger JSON
    document.

    Raises
    ------
    OSError
        When the file cannot be read; :class:`respai.io.NotARegularFile` and
        :class:`respai.io.FileTooLarge` (whose ``strerror`` says why in words) included.
    """
    return io.read_bounded(path, MAX_JSON_BYTES, "MAX_JSON_BYTES")


def read_run(path: Path | str) -> dict[str, Any]:
    """Read one run file: the DSSE envelope, parsed strictly, not verified.

    Parameters
    ----------
    path
        A ``runs/*.json`` file (or any envelope file).

    Returns
    -------
    dict
        The envelope.

    Raises
    ------
    LedgerError
        If the file cannot be read or is not a JSON object.
    """
    path = Path(path)
    try:
        data = read_ledger_file(path)
    except OSError as exc:
        raise LedgerError(f"Cannot read the run file {path}: {exc.strerror}.") from None
    try:
        envelope = loads_strict(data)
    except RecordError as exc:
        raise LedgerError(f"The run file {path} is not JSON: {exc.message}") from None
    if not isinstance(envelope, dict):
        raise LedgerError(f"The run file {path} does not hold a JSON object (a DSSE envelope).")
    return envelope


def _unverified_predicate(envelope: Any) -> dict[str, Any] | None:
    try:
        statement = loads_strict(envelope_payload(envelope))
    except RecordError:
        return None
    predicate = statement.get("predicate") if isinstance(statement, dict) else None
    return predicate if isinstance(predicate, dict) else None


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


@dataclasses.dataclass(frozen=True)
class RunInfo:
    """What a run file says about itself, read without verification.

    ``data`` is the file's exact bytes (its Merkle leaf is their SHA-256); the other
    fields are ``None`` when the file does not say, and ``error`` says why a file could
    not be read as a run at all.
    """

    path: Path
    name_seq: int
    name_run: str
    data: bytes
    predicate: dict[str, Any] | None
    run_id: str | None
    first_seq: int | None
    last_seq: int | None
    first_prev: str | None
    last_id: str | None
    error: str | None


def _unreadable(path: Path, name_seq: int, name_run: str, data: bytes, error: str) -> RunInfo:
    return RunInfo(path, name_seq, name_run, data, None, None, None, None, None, None, error)


def run_info(name_seq: int, path: Path) -> RunInfo:
    """Read what the run file ``path`` (named with ``name_seq``) says about itself."""
    match = _RUN_NAME.match(path.name)
    name_run = match.group(2) if match else ""
    try:
        data = read_ledger_file(path)
    except OSError as exc:
        return _unreadable(path, name_seq, name_run, b"", f"cannot be read: {exc.strerror}")
    try:
        envelope = loads_strict(data)
    except RecordError as exc:
        return _unreadable(path, name_seq, name_run, data, f"is not JSON: {exc.message}")
    predicate = _unverified_predicate(envelope)
    records = predicate.get("records") if predicate is not None else None
    if predicate is None or not isinstance(records, list) or not records:
        return _unreadable(
            path,
            name_seq,
            name_run,
            data,
            "holds no readable record (the envelope's payload is not a Statement with records)",
        )
    first = records[0] if isinstance(records[0], Mapping) else {}
    last = records[-1] if isinstance(records[-1], Mapping) else {}
    run_id = predicate.get("run_id")
    first_prev, last_id = first.get("prev_record_id"), last.get("record_id")
    return RunInfo(
        path=path,
        name_seq=name_seq,
        name_run=name_run,
        data=data,
        predicate=predicate,
        run_id=run_id if isinstance(run_id, str) else None,
        first_seq=_int(first.get("seq")),
        last_seq=_int(last.get("seq")),
        first_prev=first_prev if isinstance(first_prev, str) else None,
        last_id=last_id if isinstance(last_id, str) else None,
        error=None,
    )


def read_ledger_json(directory: Path) -> tuple[str, str | None]:
    """Return the ledger's origin and creation time from ``ledger.json``.

    Raises
    ------
    LedgerFormatError
        If the ledger is of an older format (named, with what to do).
    LedgerError
        If the file cannot be read, is not a ledger file of :data:`LEDGER_FORMAT`, or
        has no usable origin.
    """
    path = directory / LEDGER_JSON
    try:
        data = loads_strict(read_ledger_file(path))
    except OSError as exc:
        raise LedgerError(f"Cannot read {path}: {exc.strerror}.") from None
    except RecordError as exc:
        raise LedgerError(f"{path} is not valid JSON: {exc.message}") from None
    found = data.get("format") if isinstance(data, dict) else None
    if isinstance(found, str) and found in _OLD_FORMATS:
        raise LedgerFormatError(
            f"{path} says the ledger is {_OLD_FORMATS[found]}.",
            "Verify it with respai 0.2.0 (pip install 'respai==0.2.0'); to keep "
            f"recording, move {directory} aside and let the next run start a new ledger.",
        )
    if not isinstance(data, dict) or found != LEDGER_FORMAT:
        raise LedgerError(
            f"{path} is not a respai ledger file of format {LEDGER_FORMAT!r} (its format "
            f"is {found!r})."
        )
    origin = data.get("origin")
    try:
        check_origin(origin)
    except CheckpointError:
        raise LedgerError(
            f"{path} has no usable 'origin' (the ledger's id): {origin!r}."
        ) from None
    created = data.get("created")
    return str(origin), created if isinstance(created, str) else None
