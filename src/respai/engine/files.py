"""A user's file, opened once and read literally: the bytes counted are the bytes hashed.

A path handed to DuckDB or Spark is a pattern to them: ``cases[12].csv``, ``cases?.csv``
and ``cases*.csv`` would be expanded to other files, so the record would fingerprint one
file and count others. Instead the file is opened here once (``O_RDONLY``), checked to be
a regular file, and the engine is given a name for that open descriptor
(``/proc/self/fd/N`` on Linux, ``/dev/fd/N`` elsewhere) that holds no pattern character
and names the very inode that is fingerprinted. Spark, which runs in another process,
gets the path with its pattern characters escaped instead (:func:`literal_pattern`).

The descriptor's ``fstat`` is taken when the file is opened; :meth:`LocalFile.check_unchanged`
compares it with the descriptor's and the path's current ``stat``, so a file written to
(or replaced) while respai counted and hashed it is refused rather than recorded.
"""

from __future__ import annotations

import datetime
import io
import os
import re
import stat
import threading
import weakref
from pathlib import Path
from typing import IO, Any

from respai.errors import InputError

__all__ = ["ARROW_FROM_BYTES", "LocalFile", "LocalFolder", "arrow_pays", "literal_pattern"]

ARROW_FROM_BYTES = 8 * 1024 * 1024
"""A cases file at least this large has its cells and sorted scores fetched as Arrow."""


def arrow_pays(file: object) -> bool:
    """Whether fetching a file's cells as Arrow pays for importing pyarrow (about 70 ms).

    A file of a few megabytes has few cells, which DuckDB's row fetch reads at once; a
    large file may have hundreds of thousands (one per group, label, prediction and
    probability bin), where the row objects cost seconds. ``file`` is a source's file
    (:class:`LocalFile` or :class:`LocalFolder`); anything without a size (a DataFrame's
    source has none) is not read as Arrow by this rule.
    """
    size = getattr(file, "size", None)
    return isinstance(size, int) and size >= ARROW_FROM_BYTES


#: Where this process's open descriptors can be opened by name, best first: on Linux a
#: fresh open file description of the same inode, elsewhere (macOS) a duplicate.
_FD_FOLDERS = ("/proc/self/fd", "/dev/fd")
_PATTERN = re.compile(r"[*?\[\]{}\\]")
_WINDOWS_PATTERN = re.compile(r"[*?\[\]{}]")


def _fd_folder() -> str | None:
    for folder in _FD_FOLDERS:
        if os.path.isdir(folder):
            return folder
    return None


class LocalFile:
    """A local regular file opened read-only, with its ``stat`` at opening.

    Attributes
    ----------
    path
        The file as the user named it: every message names this.
    reader
        The name the engine opens: the descriptor's entry under ``/proc/self/fd``
        (``/dev/fd``), or the path itself where neither exists and the path holds no
        pattern character.
    size
        The size in bytes when it was opened.

    The descriptor stays open as long as this object (and any DuckDB connection that was
    told to keep it, :meth:`keep_open_for`) lives.
    """

    def __init__(self, path: Path, fd: int, opened: os.stat_result, reader: str) -> None:
        self.path = path
        self.fd = fd
        self.reader = reader
        self._opened = opened
        self._fingerprint: dict[str, Any] | None = None
        self._hashing = threading.Lock()  # a second caller waits for the one hash
        self._finalizer = weakref.finalize(self, os.close, fd)

    @classmethod
    def open(cls, path: Path, role: str = "cases file") -> LocalFile:
        """Open ``path`` once, read-only, refusing anything that is not a regular file.

        Parameters
        ----------
        path
            The file as named in the spec (relative paths are kept as given).
        role
            How messages name the file (``"cases file"``).

        Raises
        ------
        InputError
            When the file is missing, a directory or not a regular file, or cannot be read.
        """
        path = Path(path)
        try:
            # non-blocking, so that a named pipe is refused rather than waited on; a
            # regular file reads the same either way
            flags = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NONBLOCK", 0)
            fd = os.open(path, flags)
        except FileNotFoundError:
            raise InputError(
                f"the {role} {path} does not exist.", "Check the path in the spec."
            ) from None
        except IsADirectoryError:  # pragma: no cover - Linux opens a directory read-only
            raise _directory(path, role) from None
        except OSError as exc:
            raise InputError(
                f"cannot open the {role} {path}: {exc.strerror or exc}.",
                "Check that the file exists and that you may read it.",
            ) from None
        try:
            opened = os.fstat(fd)
            if stat.S_ISDIR(opened.st_mode):
                raise _directory(path, role)
            if not stat.S_ISREG(opened.st_mode):
                raise InputError(
                    f"the {role} {path} is not a regular file (it is a pipe, socket or "
                    "device), so it cannot be read twice and fingerprinted.",
                    "Save the data to a file first and point the spec at that file.",
                )
            folder = _fd_folder()
            if folder is not None:
                reader = f"{folder}/{fd}"
            elif _PATTERN.search(str(path)):  # pragma: no cover - no descriptor folder
                raise InputError(
                    f"the {role} {path} has a pattern character (* ? [ ] {{ }} \\) in its "
                    "name, and this system cannot hand the engine an open file instead.",
                    "Rename the file without those characters.",
                )
            else:  # pragma: no cover - no descriptor folder (Windows)
                reader = str(path)
        except BaseException:
            os.close(fd)
            raise
        return cls(path, fd, opened, reader)

    @property
    def size(self) -> int:
        """The file's size in bytes when it was opened."""
        return int(self._opened.st_size)

    def keep_open_for(self, owner: Any) -> None:
        """Keep the descriptor open at least as long as ``owner`` (a DuckDB connection).

        A DuckDB view reads ``reader`` lazily, whenever a query runs; the descriptor must
        not be closed (and its number reused by another file) while the view can run.
        """
        weakref.finalize(owner, _keep, self)

    def open_bytes(self) -> IO[bytes]:
        """A binary file object reading this file from its first byte (the same inode)."""
        fh = open(self.reader, "rb")  # noqa: SIM115 - the caller closes it
        fh.seek(0)  # /dev/fd/N duplicates the descriptor on some systems: rewind it
        return fh

    def open_text(self, encoding: str = "utf-8-sig", errors: str = "replace") -> IO[str]:
        """A text file object reading this file from its first byte (see :meth:`open_bytes`)."""
        return io.TextIOWrapper(self.open_bytes(), encoding=encoding, errors=errors, newline="")

    def head(self, n: int) -> bytes:
        """The first ``n`` bytes, read from the descriptor."""
        return os.pread(self.fd, n, 0)

    def fingerprint(self) -> dict[str, Any]:
        """The SHA-256 fingerprint of the file, read from the open descriptor.

        The descriptor is read with ``pread`` (it has no shared offset to disturb), so the
        hash can run on a thread while the engine counts. It is read once per open file:
        a second call (the LL144 reconciliation of the run that hashed it) gets the same
        digest, after the file is checked unchanged again (:meth:`check_unchanged`), so
        the digest is always of the bytes the descriptor still holds.

        Returns
        -------
        dict
            ``{name, media_type, size_bytes, sha256}``, as
            :func:`respai.record.file_fingerprint` gives it for the path.

        Raises
        ------
        InputError
            When the file changed since it was opened.
        """
        from respai.record.fingerprint import descriptor_fingerprint

        with self._hashing:
            if self._fingerprint is not None:
                self.check_unchanged()
                return dict(self._fingerprint)
            found = descriptor_fingerprint(self.fd, self.path.name)
            self.check_unchanged()
            if found["size_bytes"] != self.size:  # pragma: no cover - check_unchanged saw it
                raise self._changed(self._opened, os.fstat(self.fd))
            self._fingerprint = dict(found)
            return found

    def check_unchanged(self) -> None:
        """Refuse a file that was written to, or replaced, since it was opened.

        The path must still name the inode that was opened, and the descriptor's
        ``fstat`` now must equal the one at opening (size, modification and change
        times, inode).

        Raises
        ------
        InputError
            When anything differs.
        """
        now = os.fstat(self.fd)
        try:
            named = os.stat(self.path)
        except OSError:
            named = None
        if named is None or (named.st_dev, named.st_ino) != (now.st_dev, now.st_ino):
            raise InputError(
                f"{self.path} changed while respai read it (the path now names "
                f"{'no file' if named is None else 'another file'}: it was moved, deleted "
                "or replaced); run again when nothing is writing it.",
                "Wait until the export that writes the file has finished, then run again.",
            )
        if _state(now) != _state(self._opened):
            raise self._changed(self._opened, now)

    def _changed(self, before: os.stat_result, after: os.stat_result) -> InputError:
        return InputError(
            f"{self.path} changed while respai read it (size {before.st_size} -> "
            f"{after.st_size} bytes, modified {_when(before.st_mtime_ns)} -> "
            f"{_when(after.st_mtime_ns)}); run again when nothing is writing it.",
            "Wait until the export that writes the file has finished, then run again.",
        )


class LocalFolder:
    """A local folder of part files, listed once: the files fingerprinted are the files read.

    Attributes
    ----------
    path
        The folder as the user named it.
    listing
        Every regular file under it, when it was listed
        (:func:`respai.record.fingerprint.list_folder`): the fingerprint's manifest.
    """

    def __init__(self, path: Path, listing: list[tuple[str, tuple[int, int, int, int, int]]]):
        self.path = path
        self.listing = listing

    @classmethod
    def open(cls, path: Path) -> LocalFolder:
        """List ``path`` (every file under it), refusing what is not a regular file.

        Raises
        ------
        InputError
            For a link to a folder, a pipe, a socket, a device or an unreadable folder.
        """
        from respai.record.fingerprint import list_folder

        return cls(Path(path), list_folder(Path(path)))

    @property
    def files(self) -> list[str]:
        """Every listed file, as a path relative to the folder (POSIX), sorted."""
        return [relative for relative, _ in self.listing]

    @property
    def size(self) -> int:
        """The listed files' total size in bytes when the folder was listed."""
        return sum(state[2] for _, state in self.listing)

    def fingerprint(self) -> dict[str, Any]:
        """The folder's fingerprint: the manifest of every listed file, then a change check.

        Raises
        ------
        InputError
            When a file changed, or one was added or removed, since the folder was listed.
        """
        from respai.record.fingerprint import folder_fingerprint

        found = folder_fingerprint(self.path, self.listing)
        self.check_unchanged()
        return found

    def check_unchanged(self) -> None:
        """Refuse a folder whose files changed (or were added or removed) since listed.

        Raises
        ------
        InputError
            Naming the first file that differs.
        """
        from respai.record.fingerprint import list_folder

        now = dict(list_folder(self.path))
        then = dict(self.listing)
        for relative in sorted(set(now) | set(then)):
            if now.get(relative) != then.get(relative):
                what = (
                    "was added"
                    if relative not in then
                    else "was removed"
                    if relative not in now
                    else "was written to or replaced"
                )
                raise InputError(
                    f"{self.path / relative} {what} while respai read the folder "
                    f"{self.path}; run again when nothing is writing it.",
                    "Wait until the export that writes the folder has finished, then run again.",
                )


def _state(st: os.stat_result) -> tuple[int, int, int, int, int]:
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns


def _when(ns: int) -> str:
    """A modification time in nanoseconds as RFC 3339 UTC, to the nanosecond."""
    seconds, rest = divmod(ns, 1_000_000_000)
    stamp = datetime.datetime.fromtimestamp(seconds, datetime.UTC)
    return stamp.strftime("%Y-%m-%dT%H:%M:%S") + f".{rest:09d}Z"


def _keep(_file: LocalFile) -> None:
    """Nothing: a finalizer's reference that keeps a :class:`LocalFile` alive."""


def _directory(path: Path, role: str) -> InputError:
    return InputError(
        f"the {role} {path} is a directory.",
        "Point fairness.cases at one CSV, JSONL or Parquet file inside it.",
    )


def literal_pattern(path: str) -> str:
    r"""``path`` with Hadoop glob characters escaped, so Spark reads that one path.

    Examples
    --------
    >>> print(literal_pattern("/data/cases[12].csv"))
    /data/cases\[12\].csv
    """
    # on Windows a backslash separates folders: it is not escaped there
    pattern = _PATTERN if os.sep == "/" else _WINDOWS_PATTERN
    return pattern.sub(lambda m: "\\" + m.group(0), path)
