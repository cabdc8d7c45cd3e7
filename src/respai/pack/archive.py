"""The evidence pack on disk: its layout, writing its files and zip, reading it back.

A pack is a folder (and the same folder as ``<name>.zip`` beside it) whose files are
listed, each with its SHA-256, in ``MANIFEST.json``; the copies of the spec and the data
are also listed in ``inputs/SHA256SUMS`` (``sha256sum`` format). This module knows those
names and formats, writes files durably (``fsync``) with the user's umask, writes the zip
reproducibly (fixed times and modes, ZIP64 for large members), opens a folder or a zip
for reading (refusing members outside the archive's folder, symbolic links, and archives
that pass :data:`~respai.limits.MAX_PACK_MEMBERS`, :data:`~respai.limits.MAX_PACK_RATIO`
or :data:`~respai.limits.MAX_PACK_UNPACKED_BYTES`, before anything is unpacked), and
parses the manifest and the sums file, refusing any path that is absolute or climbs out
with ``..`` and any listed file that is a symbolic link. JSON is read with
:func:`respai.record.loads_strict`, within its limits. Every file is read as a regular
file only (:func:`respai.io.open_regular`: a FIFO, a device or a socket, or a link to
one, as the pack or in it, is refused before any byte is read), and a file read whole
within a bound (:data:`~respai.limits.MAX_JSON_BYTES`,
:data:`~respai.limits.MAX_PACK_TEXT_BYTES`).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import re
import shutil
import stat
import tempfile
import zipfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path, PurePosixPath
from typing import IO, Any

from respai.errors import InputError
from respai.io import (
    FileTooLarge,
    NotARegularFile,
    make_folder,
    open_regular,
    read_bounded,
    shared_mode,
)
from respai.limits import (
    MAX_JSON_BYTES,
    MAX_PACK_MEMBERS,
    MAX_PACK_RATIO,
    MAX_PACK_TEXT_BYTES,
    MAX_PACK_UNPACKED_BYTES,
)
from respai.record import RecordError, loads_strict

__all__ = [
    "MANIFEST",
    "PACK_FILES",
    "PACK_FORMAT",
    "PACK_KIND",
    "SUMS",
    "copy_file",
    "earlier_pack",
    "earlier_zip",
    "input_names",
    "opened",
    "parse_sums",
    "read_json",
    "read_manifest",
    "read_pack_text",
    "safe_relative",
    "sha256_file",
    "umask_mode",
    "write_synced",
    "zip_folder",
]

PACK_KIND = "respai.ll144.pack"
"""The ``kind`` of ``MANIFEST.json`` (and how an earlier pack is recognised)."""

PACK_FORMAT = "1.1"
"""The layout version of the pack (1.1: ``environment.lock`` holds the engine's dependency
closure, and the pack may carry the engine's wheel in ``wheel/``)."""

MANIFEST = "MANIFEST.json"
"""The manifest: every file of the pack with its SHA-256 and size."""

SUMS = "inputs/SHA256SUMS"
"""The SHA-256 sums of the input copies, in ``sha256sum`` format."""

PACK_FILES = (
    "scope.md",
    SUMS,
    "reconciliation.json",
    "engine.json",
    "environment.lock",
    "tables/ll144.json",
    "tables/tables.csv",
    "tables/cells.csv",
    "exclusions.md",
    "independence.md",
    "dates.json",
    "record.json",
    "public_key.pem",
    "report.html",
    "summary/summary.html",
    "summary/summary.md",
    "summary/summary.csv",
    MANIFEST,
)
"""The files every pack holds, besides the copies of the spec and the data in ``inputs/``."""

_HEX64 = re.compile(r"^[0-9a-f]{64}$")
_SUM_LINE = re.compile(r"^([0-9a-f]{64}) [ *](.+)$")


def sha256_file(path: Path) -> str:
    """The SHA-256 of a file's bytes, read in chunks.

    Parameters
    ----------
    path
        The file.

    Returns
    -------
    str
        The digest as 64 lowercase hex digits.
    """
    digest = hashlib.sha256()
    with os.fdopen(open_regular(path), "rb") as fh:  # a FIFO or a device is refused
        while chunk := fh.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def safe_relative(text: object, where: str) -> str:
    """A pack-relative POSIX path, refusing absolute paths and ``..``.

    Parameters
    ----------
    text
        The path as the pack lists it.
    where
        Where it is listed, for the error message.

    Returns
    -------
    str
        The normalised POSIX path.

    Raises
    ------
    InputError
        When ``text`` is not a non-empty string naming a file inside the pack.
    """
    if not isinstance(text, str) or not text:
        raise InputError(f"{where} is not a file name inside the pack: {text!r}.")
    pure = PurePosixPath(text)
    if pure.is_absolute() or ".." in pure.parts:
        raise InputError(
            f"{where} names {text!r}, which is not a path inside the pack.",
            "A pack lists its files relative to its own folder.",
        )
    return pure.as_posix()


def umask_mode(mode: int) -> int:
    """``mode`` as every output gets it: the umask applied, never group- or other-writable.

    The same as :func:`respai.io.shared_mode` (0644 files, 0755 folders under umask 000).
    """
    return shared_mode(mode)


def write_synced(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` (creating its folder), 0644, and flush it to disk."""
    make_folder(path.parent, parents=True)
    with path.open("wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    os.chmod(path, umask_mode(0o666))


def copy_file(src: Path, dest: Path) -> str:
    """Copy ``src`` to ``dest`` and return the SHA-256 of the bytes written.

    The copy keeps the source's times, gets the umask's file mode and is flushed to disk.

    Parameters
    ----------
    src, dest
        The file to copy and where to (its folder is created).

    Returns
    -------
    str
        The SHA-256 of the copy, computed while writing it.
    """
    make_folder(dest.parent, parents=True)
    digest = hashlib.sha256()
    with os.fdopen(open_regular(src), "rb") as fin, dest.open("wb") as fout:
        while chunk := fin.read(1 << 20):
            digest.update(chunk)
            fout.write(chunk)
        fout.flush()
        os.fsync(fout.fileno())
    shutil.copystat(src, dest)
    os.chmod(dest, umask_mode(0o666))
    return digest.hexdigest()


def input_names(paths: Sequence[tuple[str, Path]]) -> dict[str, str]:
    """Pack paths of the input copies: ``inputs/<name>``, or ``inputs/<role>/<name>``.

    Parameters
    ----------
    paths
        ``(role, path)`` of each input (``spec``, ``decisions``, ``demographics``).

    Returns
    -------
    dict
        The pack path of each role's copy; a name taken by an earlier role (or by
        ``SHA256SUMS``) goes into a folder named after the role.
    """
    out: dict[str, str] = {}
    taken: set[str] = set()
    for role, path in paths:
        name = f"inputs/{path.name}"
        if name in taken or name == SUMS:
            name = f"inputs/{role}/{path.name}"
        taken.add(name)
        out[role] = name
    return out


def zip_folder(
    folder: Path, files: Sequence[str], target: Path, top: str, when: dt.datetime
) -> None:
    """Write ``files`` of ``folder`` into the zip ``target``, under the folder ``top``.

    Every member gets the time ``when`` (in UTC, not before 1980) and mode 0644, so the
    archive depends only on the files; members of 2 GiB or more are written as ZIP64.

    Parameters
    ----------
    folder
        The pack folder the files are read from.
    files
        The pack-relative names, in archive order.
    target
        The zip file to write (flushed to disk when written).
    top
        The folder name the members are stored under.
    when
        The members' modification time.
    """
    stamp = when.astimezone(dt.UTC)
    date_time = (
        max(stamp.year, 1980),
        stamp.month,
        stamp.day,
        stamp.hour,
        stamp.minute,
        stamp.second,
    )
    with zipfile.ZipFile(target, "w", compression=zipfile.ZIP_DEFLATED, allowZip64=True) as zf:
        for name in files:
            info = zipfile.ZipInfo(f"{top}/{name}", date_time=date_time)
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            big = (folder / name).stat().st_size >= 1 << 31
            with (folder / name).open("rb") as src, zf.open(info, "w", force_zip64=big) as dst:
                shutil.copyfileobj(src, dst, 1 << 20)
    with target.open("rb") as fh:
        os.fsync(fh.fileno())


def earlier_pack(folder: Path) -> bool:
    """Whether ``folder`` is empty or holds an earlier pack (so it may be replaced)."""
    names = list(folder.iterdir())
    if not names:
        return True
    try:
        doc = loads_strict(read_bounded(folder / MANIFEST, MAX_JSON_BYTES))
    except (OSError, RecordError):
        return False
    return isinstance(doc, dict) and doc.get("kind") == PACK_KIND


def earlier_zip(path: Path, name: str) -> bool:
    """Whether the zip ``path`` holds an earlier pack under the folder ``name``."""
    try:
        with os.fdopen(open_regular(path), "rb") as fh, zipfile.ZipFile(fh) as zf:
            info = zf.getinfo(f"{name}/{MANIFEST}")
            if info.file_size > MAX_JSON_BYTES:
                return False
            doc = loads_strict(zf.read(info))
    except (OSError, KeyError, RecordError, zipfile.BadZipFile):
        return False
    return isinstance(doc, dict) and doc.get("kind") == PACK_KIND


def read_json(path: Path, what: str) -> Any:
    """The JSON document in the pack file ``path``.

    Parameters
    ----------
    path
        The file.
    what
        What it is, for the error message (e.g. ``"MANIFEST.json"``).

    Returns
    -------
    Any
        The parsed document.

    Raises
    ------
    InputError
        When the file is missing, unreadable, not JSON or past a limit of
        :func:`respai.record.loads_strict` (the message names the limit).
    """
    try:
        return loads_strict(read_bounded(path, MAX_JSON_BYTES, "MAX_JSON_BYTES"), source=str(path))
    except FileNotFoundError:
        raise InputError(
            f"the pack has no {what} ({path}).",
            "Point respai reproduce at a folder written by respai pack.",
        ) from None
    except OSError as exc:
        raise InputError(
            f"cannot read {path}: it is {exc.strerror}."
            if isinstance(exc, NotARegularFile | FileTooLarge)
            else f"cannot read {path}: {exc.strerror}.",
            "The pack is damaged; restore it from the archive.",
        ) from None
    except RecordError as exc:
        raise InputError(
            exc.message, "The pack is damaged; restore it from the archive."
        ) from None


def read_pack_text(path: Path) -> str:
    """The UTF-8 text of a pack's text file, read whole within a bound.

    Only a regular file is read (a FIFO, a device or a socket, or a link to one, is
    refused before any byte is read), of at most :data:`~respai.limits.MAX_PACK_TEXT_BYTES`.

    Raises
    ------
    OSError
        When the file cannot be read (:class:`respai.io.NotARegularFile` and
        :class:`respai.io.FileTooLarge` included).
    UnicodeDecodeError
        When it is not UTF-8.
    """
    return read_bounded(path, MAX_PACK_TEXT_BYTES, "MAX_PACK_TEXT_BYTES").decode("utf-8")


def parse_sums(path: Path) -> dict[str, str]:
    """The digests listed in a ``SHA256SUMS`` file, by pack path (``inputs/<name>``).

    Parameters
    ----------
    path
        The sums file (``<64 hex digits>  <name>`` per line; blank lines are skipped).

    Returns
    -------
    dict
        The SHA-256 of each listed file, keyed by its path in the pack.

    Raises
    ------
    InputError
        When the file cannot be read, a line is not a ``sha256sum`` line, or a name is
        not a path inside the pack.
    """
    try:
        text = read_pack_text(path)
    except OSError as exc:
        raise InputError(
            f"cannot read {path}: {exc.strerror or exc}.",
            "The pack is damaged; restore it from the archive.",
        ) from None
    except UnicodeDecodeError as exc:
        raise InputError(f"cannot read {path}: {exc}.") from None
    out: dict[str, str] = {}
    for i, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        m = _SUM_LINE.match(line)
        if m is None:
            shown = line if len(line) <= 60 else line[:57] + "..."
            raise InputError(
                f"{path}, line {i} is not a sha256sum line ('<64 hex digits>  <file>'): {shown}.",
                "The pack is damaged; restore it from the archive.",
            )
        name = safe_relative(m.group(2), f"{path}, line {i}")
        out[f"inputs/{name}"] = m.group(1)
    return out


@contextmanager
def opened(pack: Path) -> Iterator[Path]:
    """The pack folder: ``pack`` itself, or a zip archive unpacked into a temporary one.

    Parameters
    ----------
    pack
        A pack folder, or the zip of one.

    Yields
    ------
    Path
        The folder holding ``MANIFEST.json``; an unpacked copy is removed on exit.

    Raises
    ------
    InputError
        When ``pack`` does not exist, is not a regular file (a FIFO, a device: never
        read) nor a folder, is neither a folder nor a zip, holds a member
        outside its folder or a symbolic link, passes a limit of :mod:`respai.limits`
        (checked before anything is unpacked), or holds no single pack.
    """
    if pack.is_dir():
        yield pack
        return
    if not pack.exists():
        raise InputError(
            f"the pack {pack} does not exist.", "Give the folder (or .zip) that respai pack wrote."
        )
    try:  # opened once, as a regular file: a FIFO or a device is refused, never read
        archive = os.fdopen(open_regular(pack), "rb")
    except NotARegularFile as exc:
        raise InputError(
            f"the pack {pack} is {exc.strerror}; it was not read.",
            "Give the folder (or .zip) that respai pack wrote.",
        ) from None
    except OSError as exc:
        raise InputError(
            f"cannot read the pack {pack}: {exc.strerror or exc}.",
            "Give the folder (or .zip) that respai pack wrote.",
        ) from None
    with archive:
        if not zipfile.is_zipfile(archive):
            raise InputError(
                f"{pack} is neither a folder nor a zip archive.",
                "Give the folder (or .zip) that respai pack wrote.",
            )
        archive.seek(0)
        with _unpacked(pack, archive) as folder:
            yield folder


@contextmanager
def _unpacked(pack: Path, archive: IO[bytes]) -> Iterator[Path]:
    """The zip ``archive`` (the file ``pack``) unpacked into a temporary folder."""
    with (
        tempfile.TemporaryDirectory(prefix="respai-reproduce-") as tmp,
        zipfile.ZipFile(archive) as zf,
    ):
        root = Path(tmp)
        members = zf.infolist()
        _check_archive(pack, archive, members)
        for info in members:
            name = safe_relative(info.filename.rstrip("/") or ".", f"{pack}: member")
            if info.is_dir():
                continue
            target = root / name
            target.parent.mkdir(parents=True, exist_ok=True)
            try:
                with zf.open(info) as src, target.open("wb") as dst:
                    shutil.copyfileobj(src, dst, 1 << 20)
            except (zipfile.BadZipFile, EOFError, ValueError, NotImplementedError) as exc:
                raise InputError(
                    f"{pack}: the member {info.filename} cannot be unpacked: {exc}.",
                    "Restore the pack from a good copy of its .zip archive.",
                ) from None
        tops = [p for p in root.iterdir() if (p / MANIFEST).is_file()]
        if (root / MANIFEST).is_file():
            tops = [root]
        if len(tops) != 1:
            raise InputError(
                f"{pack} holds no evidence pack (no {MANIFEST} in it).",
                "Give the .zip that respai pack wrote.",
            )
        yield tops[0]


def _check_archive(pack: Path, archive: IO[bytes], members: Sequence[zipfile.ZipInfo]) -> None:
    """Refuse an archive past the member count or unpacked size limits, or with a link."""
    if len(members) > MAX_PACK_MEMBERS:
        raise InputError(
            f"{pack} holds {len(members):,} members, more than the limit of "
            f"{MAX_PACK_MEMBERS:,} (MAX_PACK_MEMBERS); a pack holds about twenty.",
            "Give the .zip that respai pack wrote.",
        )
    for info in members:
        if stat.S_ISLNK(info.external_attr >> 16):
            raise InputError(
                f"{pack}: the member {info.filename} is a symbolic link; a pack holds only "
                "regular files.",
                "Give the .zip that respai pack wrote.",
            )
    total = sum(info.file_size for info in members)
    size = os.fstat(archive.fileno()).st_size
    bound = min(MAX_PACK_UNPACKED_BYTES, MAX_PACK_RATIO * max(size, 1))
    if total > bound:
        which = (
            f"{MAX_PACK_UNPACKED_BYTES:,} bytes (MAX_PACK_UNPACKED_BYTES)"
            if bound == MAX_PACK_UNPACKED_BYTES
            else f"{MAX_PACK_RATIO} times the archive's size (MAX_PACK_RATIO), {bound:,} bytes"
        )
        raise InputError(
            f"{pack} would unpack to {total:,} bytes, more than {which}; nothing was unpacked.",
            "Unpack it yourself if you trust it, and give respai reproduce the folder.",
        )


def _refuse_links(folder: Path, names: Sequence[str]) -> None:
    """Refuse a listed file that is (or lies under) a symbolic link, or a link to the pack."""
    if folder.is_symlink():
        raise InputError(f"the pack {folder} is a symbolic link.", "Give the pack folder itself.")
    for name in names:
        path = folder
        for part in PurePosixPath(name).parts:
            path = path / part
            if path.is_symlink():
                raise InputError(
                    f"{path} in the pack is a symbolic link (to {os.readlink(path)}); a pack "
                    "holds copies of its inputs, so a link could stand for another file.",
                    "Replace the link with the file from the pack's .zip archive.",
                )


def read_manifest(folder: Path) -> tuple[dict[str, str], dict[str, str | None]]:
    """The files ``MANIFEST.json`` lists and the inputs it names.

    Parameters
    ----------
    folder
        The pack folder.

    Returns
    -------
    tuple
        The SHA-256 of every listed file by its pack path, and the pack path of the
        ``spec``, ``decisions`` and ``demographics`` copies (``None`` when absent).

    Raises
    ------
    InputError
        When the manifest is missing, not a respai pack's, lacks its lists, names a
        path outside the pack, or a file it names is a symbolic link.
    """
    doc = read_json(folder / MANIFEST, MANIFEST)
    if not isinstance(doc, dict) or doc.get("kind") != PACK_KIND:
        raise InputError(
            f"{folder / MANIFEST} is not the manifest of a respai evidence pack (its kind "
            f"is {doc.get('kind') if isinstance(doc, dict) else None!r}, not {PACK_KIND!r}).",
            "Point respai reproduce at a folder written by respai pack.",
        )
    files = doc.get("files")
    inputs = doc.get("inputs")
    if not isinstance(files, list) or not isinstance(inputs, dict):
        raise InputError(
            f"{folder / MANIFEST} lacks its files or inputs list.",
            "The pack is damaged; restore it from the archive.",
        )
    listed: dict[str, str] = {}
    for i, entry in enumerate(files):
        where = f"{MANIFEST}: files[{i}]"
        if not isinstance(entry, dict) or not _HEX64.match(str(entry.get("sha256", ""))):
            raise InputError(
                f"{where} has no path and SHA-256.",
                "The pack is damaged; restore it from the archive.",
            )
        listed[safe_relative(entry.get("path"), where)] = str(entry["sha256"])
    roles: dict[str, str | None] = {}
    for role in ("spec", "decisions", "demographics"):
        value = inputs.get(role)
        where = f"{MANIFEST}: inputs.{role}"
        roles[role] = None if value is None else safe_relative(value, where)
    if roles["spec"] is None or roles["decisions"] is None:
        raise InputError(
            f"{MANIFEST} does not name the spec and decisions copies in inputs/.",
            "The pack is damaged; restore it from the archive.",
        )
    _refuse_links(folder, [*listed, *(r for r in roles.values() if r is not None)])
    return listed, roles
