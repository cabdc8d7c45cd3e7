"""Handing the memory a large run has freed back to the system between its phases.

Python's objects larger than 512 bytes, numpy's buffers and the strings of a large record
live on the C library's heap. When a phase lets them go, glibc keeps the pages for later
use, so the next phase's allocations stack on memory nothing uses any more: after the
count pass of 100,000 groups about 150 MB of such pages were still resident when the
report page was made. :func:`trim_heap` asks glibc to return them (``malloc_trim``).
Where the C library has no such call (macOS, musl, Windows) it does nothing; the run is
the same, only its peak memory is higher.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from functools import cache

__all__ = ["TRIM_MIN_BYTES", "trim_heap"]

TRIM_MIN_BYTES = 8 * 1024 * 1024
"""Below this many bytes of input a phase leaves the heap as it is: trimming costs a few
milliseconds a call, which only a large run pays back."""


@cache
def _malloc_trim() -> Callable[[int], int] | None:
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    try:
        libc = ctypes.CDLL(None)
    except OSError:
        return None
    trim: Callable[[int], int] | None = getattr(libc, "malloc_trim", None)  # glibc only
    return trim


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
