#!/usr/bin/env python3
"""A projection, NOT respai's behaviour: ``respai evaluate`` with the AUC's scores on a grid.

Today the score pass (``engine.score_histogram``) keeps every distinct score value, so
with a continuous score the histograms (and the record, which carries them so a reader
can recompute the AUC) grow with the number of cases. This script runs the real
``respai evaluate`` command in-process with one change: the score is first floored to a
grid of ``1 / GRID`` (default 10,000 steps), so at most GRID + 1 distinct values reach
Python. It measures what fix 1 in RESULTS.md would buy; on the benchmark's data the AUC
it reports differs from the exact one by about 5e-8 (within-bin pairs count as ties).

Usage: python benchmarks/whatif_grid.py GRID respai-evaluate-arguments...
"""

from __future__ import annotations

import copy
import sys
from typing import Any

import narwhals as nw

from respai import engine

GRID = int(float(sys.argv[1]))
_original = engine.score_histogram


def _on_grid(source: engine.Source, keys: Any, score: str) -> Any:
    gridded = copy.copy(source)
    s = nw.col(score).cast(nw.Float64)
    gridded._frame = source._frame.with_columns(((s * GRID).floor() / GRID).alias(score))
    return _original(gridded, keys, score)


engine.score_histogram = _on_grid  # type: ignore[assignment]

from respai.cli import main  # noqa: E402

sys.exit(main(sys.argv[2:]))
