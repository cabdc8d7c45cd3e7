"""Handing the memory a large run has freed back to the system between its phases.

Python's objects larger than 512 bytes, numpy's buffers and the strings of a large record
live on the C library's heap. When a phase lets them go, glibc keeps the pages for later
use, so the next phase's allocations stack on memory nothing uses any more: after the
count pass of 100,000 groups about 150 MB of such pages were still resident when the
report page was made. :func:`trim_heap` asks glibc to return them (``malloc_trim``).
:func:`set_mmap_threshold`, which the ``respai`` command calls at its start (and again,
higher, for a run of few groups: :func:`for_groups`), keeps glibc from moving large
blocks (the record's texts, the fold's arrays) onto that heap in the first place. Where
the C library has no such calls (macOS, musl, Windows) both do nothing; the run is the
same, only its peak memory is higher.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from functools import cache

__all__ = [
    "FEW_GROUPS_THRESHOLD_BYTES",
    "MANY_GROUPS",
    "MMAP_THRESHOLD_BYTES",
    "TRIM_MIN_BYTES",
    "for_groups",
    "set_mmap_threshold",
    "trim_heap",
    "tune_this_process",
]

TRIM_MIN_BYTES = 8 * 1024 * 1024
"""Below this many bytes of input a phase leaves the heap as it is: trimming costs a few
milliseconds a call, which only a large run pays back."""


MMAP_THRESHOLD_BYTES = 4 * 1024 * 1024
"""From this size a block of the command's memory gets pages of its own
(:func:`set_mmap_threshold`)."""

MANY_GROUPS = 1000
"""From this many declared groups (all groupings together) a command's run keeps the
threshold at :data:`MMAP_THRESHOLD_BYTES`; with fewer it raises it to
:data:`FEW_GROUPS_THRESHOLD_BYTES` (:func:`for_groups`)."""

FEW_GROUPS_THRESHOLD_BYTES = 32 * 1024 * 1024
"""The threshold of a run of few groups: the largest glibc's own moving threshold takes,
so the fold's arrays of each batch come from the heap, as they would without the command
fixing anything."""

#: glibc's ``mallopt`` parameters: the size from which a block is mapped on its own, and
#: the free space at the heap's top past which the heap is shrunk.
_M_MMAP_THRESHOLD = -3
_M_TRIM_THRESHOLD = -1
#: glibc's own trim threshold before it moves: the heap shrinks once 128 KiB are free on top.
_TRIM_THRESHOLD_BYTES = 128 * 1024
#: Whether this process is the ``respai`` command's own (:func:`tune_this_process`), and
#: whether one of its runs had many groups (the low threshold then stays for the rest).
_OWN_PROCESS: list[bool] = [False, False]


@cache
def _libc_function(name: str) -> Callable[..., int] | None:
    """A function of the C library by name, on Linux, or ``None`` (not glibc, not Linux)."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    try:
        libc = ctypes.CDLL(None)
    except OSError:
        return None
    found: Callable[..., int] | None = getattr(libc, name, None)
    return found


def tune_this_process() -> bool:
    """Mark this process as the ``respai`` command's own and fix its mmap threshold.

    Called once by :func:`respai.cli.app.entry`, before any work: the threshold is
    :data:`MMAP_THRESHOLD_BYTES` (:func:`set_mmap_threshold`) until a run says how many
    groups it has (:func:`for_groups`). The Python API never calls it, and leaves its
    caller's process as it is. Returns what :func:`set_mmap_threshold` returns.
    """
    _OWN_PROCESS[0] = True
    return set_mmap_threshold()


def for_groups(groups: int) -> bool:
    """Set the mmap threshold for a run of ``groups`` declared groups, in the command only.

    In a process marked by :func:`tune_this_process`: from :data:`MANY_GROUPS` groups the
    threshold stays at :data:`MMAP_THRESHOLD_BYTES`, so the large blocks of a large record
    and of the fold go back to the system when freed; with fewer it is raised to
    :data:`FEW_GROUPS_THRESHOLD_BYTES` (and the heap is shrunk only past twice that, as
    glibc's own moving threshold does), because such a run's fold frees and takes again
    the same 8 MB arrays batch after batch, which the heap then serves without fresh
    pages (a 4 MiB threshold cost 10M rows about 0.3 s of system time). Once a run of
    many groups has been seen in the process, a later one of few groups (another block of
    the same spec) leaves the low threshold in place, since the large record is still to
    be made, and the heap is shrunk again as soon as 128 KiB are free on its top. Elsewhere
    it changes nothing and returns ``False``.

    Examples
    --------
    >>> for_groups(10)
    False
    """
    if not _OWN_PROCESS[0]:
        return False
    if groups >= MANY_GROUPS or _OWN_PROCESS[1]:  # many groups, now or in an earlier block
        _OWN_PROCESS[1] = True
        return _set_trim_threshold(_TRIM_THRESHOLD_BYTES) and set_mmap_threshold()
    # as glibc's own moving threshold would have it by now
    fixed = _set_trim_threshold(2 * FEW_GROUPS_THRESHOLD_BYTES)
    return set_mmap_threshold(FEW_GROUPS_THRESHOLD_BYTES) and fixed


def _set_trim_threshold(nbytes: int) -> bool:
    return _mallopt(_M_TRIM_THRESHOLD, nbytes)


def _mallopt(param: int, value: int) -> bool:
    """Call the C library's ``mallopt(param, value)``; ``False`` without it or refused."""
    mallopt = _libc_function("mallopt")
    return mallopt is not None and mallopt(param, int(value)) == 1


def set_mmap_threshold(nbytes: int = MMAP_THRESHOLD_BYTES) -> bool:
    """Give every block of ``nbytes`` or more its own pages, returned when it is freed.

    glibc maps a large block on its own, but after the first such block is freed it
    raises that size (up to 32 MiB), so the record's texts and the fold's arrays of a
    large run then come from the heap, which cannot shrink past the last block still in
    use: at 100,000 groups about 70 MB of freed pages stayed resident that way. A fixed
    threshold turns that off; the command fixes it at its start
    (:func:`tune_this_process`). ``False`` where the C library has no ``mallopt`` or
    refuses the value.

    Examples
    --------
    >>> set_mmap_threshold() in (True, False)
    True
    """
    return _mallopt(_M_MMAP_THRESHOLD, nbytes)


def _malloc_trim() -> Callable[[int], int] | None:
    return _libc_function("malloc_trim")  # glibc only


def trim_heap() -> bool:
    """Return the C heap's free pages to the system; ``False`` where there is no way to.

    Examples
    --------
    >>> trim_heap() in (True, False)
    True
    """
    trim = _malloc_trim()
    if trim is None:
        return False
    trim(0)
    return True
