"""A progress display for long scans, on standard error, only for a person at a terminal.

:func:`progress` draws a spinner with the elapsed time (and a bar when the total is
known) with :mod:`rich.progress` while the work runs, and removes it when the work is
done. When standard error is not a terminal (a pipe, a file, CI) or ``quiet`` is set it
draws nothing at all, so logs and machine output never hold progress frames.

DuckDB reports no progress per row, so a file scan shows a spinner and the elapsed time
while the count pass runs; :func:`file_is_large` tells the caller when that is worth it.

>>> with progress("counting cases", quiet=True) as bar:
...     bar.advance(10)
...     bar.update(20, total=100)
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any, Protocol

__all__ = ["LARGE_FILE_BYTES", "ProgressBar", "file_is_large", "progress"]

#: Files at least this large get a progress display by default (about 1M CSV rows).
LARGE_FILE_BYTES = 50_000_000


class ProgressBar(Protocol):
    """What :func:`progress` yields."""

    def advance(self, n: int = 1) -> None:
        """Count ``n`` more units done."""

    def update(self, done: int, total: int | None = None) -> None:
        """Set the units done (and the total, when it becomes known)."""


class _Silent:
    """Draws nothing."""

    def advance(self, n: int = 1) -> None:
        return None

    def update(self, done: int, total: int | None = None) -> None:
        return None


class _Drawn:
    """Forwards to a running :class:`rich.progress.Progress` task."""

    def __init__(self, bar: Any, task: Any) -> None:
        self._bar = bar
        self._task = task

    def advance(self, n: int = 1) -> None:
        self._bar.advance(self._task, n)

    def update(self, done: int, total: int | None = None) -> None:
        if total is None:
            self._bar.update(self._task, completed=done)
        else:
            self._bar.update(self._task, completed=done, total=total)


def _is_terminal(stream: IO[str]) -> bool:
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty and isatty())
    except (ValueError, OSError):  # a closed or detached stream
        return False


@contextmanager
def progress(
    description: str,
    *,
    total: int | None = None,
    quiet: bool = False,
    stream: IO[str] | None = None,
) -> Iterator[ProgressBar]:
    """Show progress for the work inside the ``with`` block (or nothing, see above).

    Parameters
    ----------
    description
        What is being done, e.g. ``"counting cases in cases.parquet"``.
    total
        The units of work when known (a bar is drawn); ``None`` for a spinner only.
    quiet
        Draw nothing (``--quiet``).
    stream
        Where to draw; standard error when omitted. Nothing is drawn unless it is a
        terminal.

    Yields
    ------
    ProgressBar
        ``advance(n)`` and ``update(done, total)``; both do nothing when silent.
    """
    out = sys.stderr if stream is None else stream
    if quiet or not _is_terminal(out):
        yield _Silent()
        return
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        SpinnerColumn,
        TextColumn,
        TimeElapsedColumn,
    )

    columns: list[Any] = [SpinnerColumn(), TextColumn("{task.description}", markup=False)]
    if total is not None:
        columns += [BarColumn(), MofNCompleteColumn()]
    columns.append(TimeElapsedColumn())
    console = Console(file=out, force_terminal=True, highlight=False, markup=False, emoji=False)
    with Progress(*columns, console=console, transient=True) as bar:
        task = bar.add_task(description, total=total)
        yield _Drawn(bar, task)


def file_is_large(path: str | os.PathLike[str], threshold_bytes: int = LARGE_FILE_BYTES) -> bool:
    """Whether ``path`` is a local file of at least ``threshold_bytes``.

    A folder of part files counts its files' sizes; a missing path or a URI is not large.

    >>> file_is_large("no-such-file.csv")
    False
    """
    p = Path(path)
    try:
        if p.is_file():
            return p.stat().st_size >= threshold_bytes
        if p.is_dir():
            size = 0
            for child in p.rglob("*"):
                if child.is_file():
                    size += child.stat().st_size
                    if size >= threshold_bytes:
                        return True
    except OSError:
        return False
    return False
