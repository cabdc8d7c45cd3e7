"""Handing the memory a large run has freed back to the system between its phases.

Python's objects larger than 512 bytes, numpy's buffers and the strings of a large record
live on the C library's heap. When a phase lets them go, glibc keeps the pages for later
use, so the next phase's allocations stack on memory nothing uses any more: after the
count pass of 100,000 groups about 150 MB of such pages were still resident when the
report page was made. :func:`trim_heap` asks glibc to return them (``malloc_trim``).
:func:`set_mmap_threshold`, which the ``respai`` command calls once at its start, keeps
glibc from moving large blocks (the record's texts, the fold's arrays) onto that heap in
the first place. Where the C library has no such calls (macOS, musl, Windows) both do
nothing; the run is the same, only its peak memory is higher.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from functools import cache

__all__ = ["MMAP_THRESHOLD_BYTES", "TRIM_MIN_BYTES", "set_mmap_threshold", "trim_heap"]

TRIM_MIN_BYTES = 8 * 1024 * 1024
"""Below this many bytes of input a phase leaves the heap as it is: trimming costs a few
milliseconds a call, which only a large run pays back."""


MMAP_THRESHOLD_BYTES = 4 * 1024 * 1024
"""From this size a block of the command's memory gets pages of its own
(:func:`set_mmap_threshold`)."""

#: glibc's ``mallopt`` parameter for the size from which a block is mapped on its own.
_M_MMAP_THRESHOLD = -3


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


def set_mmap_threshold(nbytes: int = MMAP_THRESHOLD_BYTES) -> bool:
    """Give every block of ``nbytes`` or more its own pages, returned when it is freed.

    glibc maps a large block on its own, but after the first such block is freed it
    raises that size (up to 32 MiB), so the record's texts and the fold's arrays of a
    large run then come from the heap, which cannot shrink past the last block still in
    use: at 100,000 groups about 70 MB of freed pages stayed resident that way. A fixed
    threshold turns that off. The ``respai`` command sets it once at its start
    (:func:`respai.cli.app.entry`); the Python API leaves the caller's process as it is.
    ``False`` where the C library has no ``mallopt`` or refuses the value.

    Examples
    --------
    >>> set_mmap_threshold() in (True, False)
    True
    """
    mallopt = _libc_function("mallopt")
    return mallopt is not None and mallopt(_M_MMAP_THRESHOLD, int(nbytes)) == 1


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
