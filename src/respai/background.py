"""Importing on a second thread the libraries a command needs after its data pass.

A command spends its first fraction of a second in DuckDB (opening the file, the count
pass, the AUC's sort), which runs without holding Python's lock; the libraries it needs
only afterwards (numpy and scipy for exact intervals, rich to print, jsonschema_rs to
check the record) can be imported meanwhile on the second core (``scipy`` is the package
alone: its compiled functions are loaded by :mod:`respai.special`, a respai module).
:func:`preload` starts that import on a daemon thread and returns at once; the command
imports the same modules where it uses them as before, waiting for the thread only if
the import is not done. The engine starts pyarrow's import the same way when it opens a
file large enough to be read as Arrow (:mod:`respai.engine.opening`): a small file's run
never imports it, so its import does not compete with the run for Python's lock.

Only third-party libraries that never import respai are preloaded, so the two threads
can never wait on each other's module locks. ``RESPAI_NO_PRELOAD=1`` turns it off.
"""

from __future__ import annotations

import importlib
import os
import threading

__all__ = ["preload"]


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
