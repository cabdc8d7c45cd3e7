"""Importing, on a second thread, libraries a command needs after its data pass.

A command spends its first fraction of a second in DuckDB (opening the file, the count
pass, the AUC's sort), which runs without holding Python's lock; the libraries it needs
only afterwards (numpy and scipy for exact intervals, rich to print, jsonschema_rs to
check the record) can be imported meanwhile on the second core (``scipy`` is the package
alone: its compiled functions are loaded by :mod:`respai.special`, a respai module).
:func:`preload` starts that import on a daemon thread and returns at once; the command
imports the same modules where it uses them as before, waiting for the thread only if
the import is not done.

Only third-party libraries that never import respai are preloaded, so the two threads
can never wait on each other's module locks. ``RESPAI_NO_PRELOAD=1`` turns it off.
"""

from __future__ import annotations

import importlib
import os
import threading

__all__ = ["EVALUATE", "FAIRNESS", "preload"]

#: What ``respai fairness`` needs after its count pass: the arrays and SciPy of the exact
#: intervals, the printer.
FAIRNESS = ("numpy", "scipy", "rich.console", "rich.table")
#: ``respai evaluate`` adds the record's schema check and the AUC's Arrow stream (a file of
#: 8 MiB or more; a smaller one's scores come as numpy arrays).
EVALUATE = (*FAIRNESS, "jsonschema_rs", "pyarrow")


def preload(modules: tuple[str, ...]) -> threading.Thread | None:
    """Import ``modules`` on a daemon thread; ``None`` when turned off.

    A module that fails to import is left alone: the command imports it again where it
    needs it and reports the error there.
    """
    if os.environ.get("RESPAI_NO_PRELOAD"):
        return None

    def run() -> None:
        for name in modules:
            try:
                importlib.import_module(name)
            except Exception:
                continue

    thread = threading.Thread(target=run, name="respai-preload", daemon=True)
    thread.start()
    return thread
