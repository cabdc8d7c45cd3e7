"""Atomic files and output folders: the one place respai writes what a user keeps.

Two writers, used by every command:

- :func:`write_file` writes one file all at once: a temporary file beside the target,
  ``fsync``, ``os.replace``, then an ``fsync`` of the folder. A reader sees the old file
  or the new one, never half of one.
- :class:`StagedFolder` builds an output folder beside its target and puts it in place
  with one ``rename``. Before anything is written it checks the target: a path that
  exists and is not an earlier output of the same command is refused
  (:class:`~respai.errors.InputError`, exit 2), so nothing a user keeps there is ever
  deleted. :meth:`StagedFolder.commit` keeps the earlier folder aside until
  :meth:`StagedFolder.finish`, so a step that fails after the commit (a ledger append)
  can put it back with :meth:`StagedFolder.rollback`: outputs and the ledger succeed or
  fail together.

Files are written 0644 and folders 0755 whatever the umask allows beyond that (a umask of
000 does not make a ledger or an output writable by others); a stricter umask (077) is
kept. Private keys are written by :mod:`respai.record.keys`, exclusively and 0600, in a
folder made 0700.

:func:`refuse_overlaps` checks, before anything is written, that no output path is an
input, holds one or lies inside one, and that no output folder and ledger folder lie in
each other; :func:`refuse_inside` that no output is or lies in a folder respai keeps for
itself (a key folder, a ledger).
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import stat
import tempfile
import uuid
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from respai.errors import InputError

__all__ = [
    "Content",
    "FileTooLarge",
    "Guarded",
    "NotARegularFile",
    "StagedFolder",
    "atomic_write",
    "fsync_dir",
    "make_folder",
    "open_regular",
    "read_bounded",
    "read_regular",
    "refuse_inside",
    "refuse_overlaps",
    "shared_mode",
    "write_file",
]


Content = bytes | str | Callable[[], bytes | str]
"""A file's content for :meth:`StagedFolder.write_all`, or a function that makes it."""


def shared_mode(mode: int) -> int:
    """``mode`` with the umask applied, and never writable by group or others.

    ``0o666`` -> ``0o644`` and ``0o777`` -> ``0o755`` under umask 022 and under umask 000
    alike: evidence (a ledger's runs, a signed record) must not be writable by other users
    whatever the umask of the process that wrote it. A stricter umask (027, 077) is kept.
    """
    umask = os.umask(0)
    os.umask(umask)
    return mode & ~(umask | 0o022)


def make_folder(path: Path, *, parents: bool = False) -> None:
    """Create the folder ``path`` (when missing) with :func:`shared_mode` of 0777 (0755).

    ``mkdir`` applies the umask alone, so under umask 000 a folder would be 0777; the mode
    is set on the folder created here. An existing folder is left as it is. Missing parents,
    when ``parents`` is true, are created the same way.

    Raises
    ------
    OSError
        When the folder cannot be created.
    """
    if path.is_dir():
        return
    if parents and not path.parent.is_dir():
        make_folder(path.parent, parents=True)
    try:
        path.mkdir()
    except FileExistsError:
        if path.is_dir():
            return  # made meanwhile by a concurrent run
        raise
    os.chmod(path, shared_mode(0o777))


def fsync_dir(directory: Path) -> None:
    """Flush a folder's entries to disk (after a rename into it); ignored where unsupported."""
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


def _write_new(path: Path, data: bytes, mode: int) -> None:
    """Write ``data`` to a new file ``path`` and flush it to disk."""
    make_folder(path.parent, parents=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
    except BaseException:
        path.unlink(missing_ok=True)
        raise
    os.chmod(path, mode)


class NotARegularFile(OSError):
    """The path names a FIFO, a device, a socket or something else that is no plain file.

    Its ``strerror`` says so in words (``"not a regular file (a pipe, a device or a
    socket)"``), so a handler that words an :class:`OSError` by its ``strerror`` needs
    nothing more.
    """

    def __init__(self, path: Path | str) -> None:
        super().__init__(
            errno.EINVAL, "not a regular file (a pipe, a device or a socket)", str(path)
        )

    def __str__(self) -> str:
        return f"{self.filename} is {self.strerror}"


def _bytes(n: int) -> str:
    """``n`` bytes in words: ``64 MiB``, ``128 KiB`` or ``1,000 bytes``."""
    for unit, size in (("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        if n >= size and n % size == 0:
            return f"{n // size:,} {unit}"
    return f"{n:,} bytes"


class FileTooLarge(OSError):
    """A regular file holds more bytes than respai reads of a file of its kind.

    Parameters
    ----------
    path
        The file.
    limit
        The most bytes read of it.
    name
        The limit's name in :mod:`respai.limits` (``"MAX_JSON_BYTES"``), or ``None``.

    Its ``strerror`` names the limit (``"larger than 64 MiB (MAX_JSON_BYTES), the most
    respai reads of such a file"``).
    """

    def __init__(self, path: Path | str, limit: int, name: str | None = None) -> None:
        named = f" ({name})" if name else ""
        super().__init__(
            errno.EFBIG,
            f"larger than {_bytes(limit)}{named}, the most respai reads of such a file",
            str(path),
        )
        self.limit = limit
        self.limit_name = name

    def __str__(self) -> str:
        return f"{self.filename} is {self.strerror}"


def open_regular(path: Path | str) -> int:
    """Open ``path`` for reading only if it is a regular file (after following links).

    The file is opened non-blocking, so a FIFO with no writer does not hang the open, then
    checked with ``fstat`` on the descriptor itself (no race between check and read), and
    set back to blocking. The caller closes the descriptor.

    Raises
    ------
    FileNotFoundError, IsADirectoryError, NotARegularFile, OSError
        When the path is missing, a folder, not a regular file, or cannot be opened.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        # a socket (ENXIO), or a device with no driver behind it: no plain file either
        if exc.errno in (errno.ENXIO, errno.ENODEV, errno.EOPNOTSUPP):
            raise NotARegularFile(path) from None
        raise
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(errno.EISDIR, "Is a directory", str(path))
        if not stat.S_ISREG(st.st_mode):
            raise NotARegularFile(path)
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_regular(path: Path | str, limit: int) -> bytes:
    """Up to ``limit`` bytes of a regular file (see :func:`open_regular`)."""
    fd = open_regular(path)
    with os.fdopen(fd, "rb") as fh:
        return fh.read(limit)


def read_bounded(path: Path | str, limit: int, name: str | None = None) -> bytes:
    """All of a regular file, refused when it holds more than ``limit`` bytes.

    The one way respai reads a whole file that a user or another file names (a record,
    a ledger's files, a pack's files, a key): a FIFO, a device or a socket, or a link to
    one, is refused before any byte is read (:func:`open_regular`), and a file larger
    than ``limit`` is refused by its size, or, should it grow while read, after
    ``limit + 1`` bytes. Nothing is read without a bound.

    Parameters
    ----------
    path
        The file.
    limit
        The most bytes the file may hold.
    name
        The limit's name in :mod:`respai.limits`, for the message (``"MAX_JSON_BYTES"``).

    Returns
    -------
    bytes
        The file's bytes.

    Raises
    ------
    FileNotFoundError, IsADirectoryError, NotARegularFile, OSError
        As :func:`open_regular`.
    FileTooLarge
        When the file holds more than ``limit`` bytes.
    """
    fd = open_regular(path)
    with os.fdopen(fd, "rb") as fh:
        if os.fstat(fd).st_size > limit:
            raise FileTooLarge(path, limit, name)
        data = fh.read(limit + 1)
    if len(data) > limit:
        raise FileTooLarge(path, limit, name)
    return data


def atomic_write(
    path: Path, data: bytes, *, mode: int | None = None, tmp_prefix: str | None = None
) -> Path:
    """Write ``path`` so that it holds all of ``data`` or keeps what it held; OSError on failure.

    The data goes to a new temporary file in the same folder (named ``tmp_prefix`` plus a
    random part, by default ``.<name>.<random>.tmp``), is flushed to disk, renamed over
    ``path``, and the folder is flushed. ``mode`` defaults to 0644 less the umask.
    """
    stem = tmp_prefix if tmp_prefix is not None else f".{path.name}."
    tmp = path.parent / f"{stem}{uuid.uuid4().hex}{'' if tmp_prefix else '.tmp'}"
    try:
        _write_new(tmp, data, shared_mode(0o666) if mode is None else mode)
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    fsync_dir(path.parent)
    return path


def write_file(path: Path | str, data: bytes | str, *, mode: int | None = None) -> Path:
    """Write one file a user asked for, atomically: the old content or the new, never a mix.

    Parameters
    ----------
    path
        The file to write (its folder is created when missing).
    data
        The content; text is written as UTF-8.
    mode
        Permission bits (default 0644 less the umask).

    Raises
    ------
    InputError
        When ``path`` is a folder or cannot be written (nothing is left behind).
    """
    path = Path(path)
    if path.is_dir():
        raise InputError(f"{path} is a folder; give a file name, e.g. {path / 'report.html'}.")
    raw = data.encode("utf-8") if isinstance(data, str) else data
    try:
        make_folder(path.parent, parents=True)
        return atomic_write(path, raw, mode=mode)
    except OSError as exc:
        raise InputError(
            f"cannot write {path}: {exc.strerror or exc}.", "Choose a path you can write to."
        ) from None


Named = tuple[str, Path | str | None]
"""A path and how messages name it (``("--out", Path("o"))``); ``None`` paths are skipped."""


def _real(path: Path | str) -> Path:
    """The path with every symbolic link that exists resolved (the path need not exist)."""
    return Path(os.path.realpath(path))


def _relation(a: Path | str, b: Path | str) -> str | None:
    """How ``a`` lies to ``b``: the same path, inside it, holding it, or ``None``."""
    ra, rb = _real(a), _real(b)
    same = ra == rb
    if not same:
        with contextlib.suppress(OSError):
            same = os.path.samefile(ra, rb)  # a hard link, a bind mount
    if same:
        return "is the same path as"
    if rb in ra.parents:
        return "is inside"
    if ra in rb.parents:
        return "holds"
    return None


def refuse_overlaps(
    outputs: Iterable[Named], inputs: Iterable[Named] = (), *, ledger: Named | None = None
) -> None:
    """Refuse, before anything is written, an output path that would touch an input.

    An output (a file or a folder) may not be an input, hold one (a folder replaced as a
    whole deletes what it holds) or lie inside one (a folder input, such as a Spark
    dataset or a ledger). An output may not be the ledger folder, lie inside it or hold
    it either: an output folder put in place over a new ledger would delete its
    ``ledger.json`` and its lock, and a file written into it is no run or checkpoint.
    Paths are compared after resolving symbolic links (and as the same file when they
    are hard links of one another).

    Parameters
    ----------
    outputs
        What the command writes, each with the option that named it.
    inputs
        What the command reads (the spec, the data, the record, the keys).
    ledger
        The ledger folder the command appends to, when it appends to one.

    Raises
    ------
    InputError
        Naming both paths and how they overlap (exit 2); nothing has been written.
    """
    readers = [(name, path) for name, path in inputs if path is not None]
    for out_name, out in outputs:
        if out is None:
            continue
        if ledger is not None and ledger[1] is not None:
            how = _relation(out, ledger[1])
            if how is not None:
                raise InputError(
                    f"{out_name} {out} {how} the ledger folder ({ledger[0]} {ledger[1]}): "
                    "writing it would replace or mix with the ledger's own files "
                    "(ledger.json, lock, runs/, checkpoints/), so it is refused and "
                    "nothing was written.",
                    f"Give {out_name} a path outside the ledger folder (and the ledger a "
                    f"folder of its own), e.g. {out_name} respai-out --ledger .respai.",
                )
        for in_name, inp in readers:
            how = _relation(out, inp)
            if how is not None:
                raise InputError(
                    f"{out_name} {out} {how} {in_name} {inp}, which this command reads: "
                    "writing it would overwrite or delete that input, so it is "
                    "refused and nothing was written.",
                    f"Give {out_name} a path that is not an input and holds none.",
                )


Guarded = tuple[str, Path | str, str]
"""A folder no output may be or lie in: how messages name it, the folder, and what a file
written there would do (``("the key folder", Path("keys"), "it could replace a private
key")``)."""


def _where_written(path: Path | str) -> list[Path]:
    """Where writing ``path`` lands: its folder's real path with its name, and its target.

    :func:`write_file` replaces the name itself (a link there is replaced, not followed),
    in the real folder; the link's target is named too, so neither may be guarded.
    """
    path = Path(path)
    return list(dict.fromkeys([_real(path.parent) / path.name, _real(path)]))


def refuse_inside(outputs: Iterable[Named], folders: Iterable[Guarded]) -> None:
    """Refuse, before anything is written, an output that is or lies inside a guarded folder.

    Unlike :func:`refuse_overlaps`, which keeps an output off the files a command reads,
    this keeps a file a user asked for out of folders respai keeps for itself (a key
    folder, a ledger), whatever the command reads. Paths are compared after resolving
    symbolic links, both where the file is written and where a link there points.

    Parameters
    ----------
    outputs
        What the command writes, each with the option that named it.
    folders
        The guarded folders (:data:`Guarded`).

    Raises
    ------
    InputError
        Naming the output, the folder and why (exit 2); nothing has been written.
    """
    guarded = [(name, _real(folder), folder, harm) for name, folder, harm in folders]
    for out_name, out in outputs:
        if out is None:
            continue
        for written in _where_written(out):
            for name, real, folder, harm in guarded:
                if written != real and real not in written.parents:
                    continue
                how = "is" if written == real else "lies inside"
                raise InputError(
                    f"{out_name} {out} {how} {name} {folder}: {harm}, so it is refused and "
                    "nothing was written.",
                    f"Give {out_name} a path outside {name} {folder}.",
                )


class StagedFolder:
    """An output folder built beside its target and moved into place in one rename.

    Parameters
    ----------
    out
        The folder to create, or to replace when it is an earlier output.
    is_earlier
        Tells whether an existing folder is an earlier output of the same command (and
        so may be replaced); an existing file is always refused.
    what
        How messages name the folder, e.g. ``"respai evaluate output"``.
    option
        The option that named the folder, for messages (``"--out"``).

    Raises
    ------
    InputError
        At construction, before anything is written, when ``out`` may not be replaced.
    """

    def __init__(
        self,
        out: Path | str,
        is_earlier: Callable[[Path], bool],
        *,
        what: str = "respai output",
        option: str = "--out",
    ) -> None:
        self.out = Path(out).resolve()
        self.what = what
        if self.out.exists() or self.out.is_symlink():
            if not self.out.is_dir() or self.out.is_symlink():
                raise InputError(
                    f"{option} {self.out} exists and is not a folder; it is left untouched.",
                    f"Pass {option} with a new folder name.",
                )
            if not is_earlier(self.out):
                held = sorted(p.name for p in self.out.iterdir())
                shown = ", ".join(held[:5]) + (
                    f" and {len(held) - 5} more" if len(held) > 5 else ""
                )
                raise InputError(
                    f"{option} {self.out} is a folder that is not an earlier {what} folder "
                    f"(it holds {shown}); it is left untouched.",
                    f"Pass {option} with a new folder name, or remove this one first.",
                )
        self._tmp: Path | None = None
        self._backup: Path | None = None
        self._committed = False

    def _staging(self) -> Path:
        if self._tmp is None:
            parent = self.out.parent
            try:
                make_folder(parent, parents=True)
                self._tmp = Path(tempfile.mkdtemp(prefix=f".{self.out.name}.", dir=parent))
                os.chmod(self._tmp, shared_mode(0o777))
            except OSError as exc:
                raise InputError(
                    f"cannot create the output folder {self.out}: {exc.strerror or exc}.",
                    "Pass --out with a folder you can write to.",
                ) from None
        return self._tmp

    def write(self, name: str, data: bytes | str) -> Path:
        """Write ``name`` (a relative path) into the staged folder; returns its final path."""
        tmp = self._staging()
        target = tmp / name
        if tmp not in target.resolve().parents:
            raise InputError(f"{name!r} is not a path inside the output folder.")
        raw = data.encode("utf-8") if isinstance(data, str) else data
        try:
            if target.parent != tmp:
                make_folder(target.parent, parents=True)
            _write_new(target, raw, shared_mode(0o666))
        except OSError as exc:
            raise InputError(
                f"cannot write {self.out / name}: {exc.strerror or exc}.",
                "Check the folder's permissions and free space.",
            ) from None
        return self.out / name

    def write_all(self, files: Mapping[str, Content]) -> list[Path]:
        """Write every ``name -> content`` of ``files``; returns their final paths.

        A content may be a function that makes it: it is then called when its turn comes,
        so a large file (a record of many groups, its report) is not held in memory while
        the others are made and written.
        """
        return [
            self.write(name, data() if callable(data) else data) for name, data in files.items()
        ]

    @property
    def committed(self) -> bool:
        """Whether :meth:`commit` has put the folder in place (and no rollback since)."""
        return self._committed

    @property
    def staging(self) -> Path:
        """The staged folder (for writers that need a path, e.g. a zip's source)."""
        return self._staging()

    def commit(self) -> Path:
        """Move the staged folder into place; an earlier folder is kept aside until finish."""
        tmp = self._staging()
        try:
            if self.out.exists():
                aside = Path(tempfile.mkdtemp(prefix=f".{self.out.name}.old.", dir=tmp.parent))
                aside.rmdir()
                self.out.rename(aside)
                self._backup = aside
            tmp.rename(self.out)
        except OSError as exc:
            self.rollback()
            raise InputError(
                f"cannot put the output folder {self.out} in place: {exc.strerror or exc}.",
                "Check the folder's permissions and free space.",
            ) from None
        self._committed = True
        self._tmp = None
        fsync_dir(self.out.parent)
        return self.out

    def rollback(self) -> None:
        """Undo: remove the staged or committed folder and put an earlier one back."""
        if self._committed:
            shutil.rmtree(self.out, ignore_errors=True)
            self._committed = False
        if self._tmp is not None:
            shutil.rmtree(self._tmp, ignore_errors=True)
            self._tmp = None
        if self._backup is not None and self._backup.exists() and not self.out.exists():
            self._backup.rename(self.out)
        self._backup = None

    def finish(self) -> None:
        """Drop the earlier folder kept aside by :meth:`commit`."""
        if self._backup is not None:
            shutil.rmtree(self._backup, ignore_errors=True)
            self._backup = None

    def __enter__(self) -> StagedFolder:
        return self

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        if exc_type is not None:
            self.rollback()
        else:
            self.finish()
