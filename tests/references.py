"""Independent references the tests compare respai with, wrapped for speed only.

``statsmodels.stats.multitest.multipletests`` runs a full ``gc.collect()`` on every call
(to free its intermediate arrays); in a test process holding a large heap that is about
a quarter of a second per call, which made one property test take 48 s. The wrapper
turns that collection off for the call; the numbers are statsmodels' own.
"""

from __future__ import annotations

import gc
from collections.abc import Sequence
from typing import Any

from statsmodels.stats.multitest import multipletests


def holm_adjusted(p: Sequence[float], alpha: float = 0.05) -> list[float]:
    """statsmodels' Holm-adjusted p-values of ``p``."""
    collect = gc.collect
    gc.collect = lambda generation=2: 0  # type: ignore[assignment]
    try:
        result: Any = multipletests(list(p), alpha=alpha, method="holm")
    finally:
        gc.collect = collect
    return [float(x) for x in result[1]]
