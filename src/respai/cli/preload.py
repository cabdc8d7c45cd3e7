"""What each command imports on a second thread while DuckDB reads its data.

:func:`respai.background.preload` does the importing; these are the lists. Only
third-party libraries that never import respai are named, so the two threads can never
wait on each other's module locks.
"""

from __future__ import annotations

from respai.background import preload

__all__ = ["EVALUATE", "FAIRNESS", "preload"]

#: What ``respai fairness`` needs after its count pass: the arrays and SciPy of the exact
#: intervals, the printer.
FAIRNESS = ("numpy", "scipy", "rich.console", "rich.table")
#: ``respai evaluate`` adds the record's schema check (pyarrow, for a file of 8 MiB or
#: more, is started by the engine when it opens the file).
EVALUATE = (*FAIRNESS, "jsonschema_rs")
