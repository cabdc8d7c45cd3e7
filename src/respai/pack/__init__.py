"""The LL144 evidence pack: everything needed to rerun a bias audit and get the same numbers.

:func:`build_pack` runs the audit of a spec and writes the pack folder and its zip
(:mod:`respai.pack.build`); :func:`reproduce_pack` reruns the audit from the pack's own
copies and compares every number and every file (:mod:`respai.pack.reproduce`);
:func:`reproduce_isolated` does the same in a fresh virtual environment built from the
pack's own wheel and ``environment.lock`` (:mod:`respai.pack.isolated`; the lock and the
wheel are chosen by :mod:`respai.pack.environment`). The
pack's documents are written by :mod:`respai.pack.documents`; its layout, the zip and
the manifest and sums files by :mod:`respai.pack.archive`. ``respai pack`` and
``respai reproduce`` are the thin commands in :mod:`respai.cli.pack`.
"""

from __future__ import annotations

from respai.pack.archive import MANIFEST, PACK_FILES, PACK_FORMAT, PACK_KIND, SUMS
from respai.pack.build import PackResult, build_pack
from respai.pack.isolated import IsolatedResult, reproduce_isolated
from respai.pack.reproduce import IGNORED_FIELDS, Difference, ReproduceResult, reproduce_pack

__all__ = [
    "IGNORED_FIELDS",
    "MANIFEST",
    "PACK_FILES",
    "PACK_FORMAT",
    "PACK_KIND",
    "SUMS",
    "Difference",
    "IsolatedResult",
    "PackResult",
    "ReproduceResult",
    "build_pack",
    "reproduce_isolated",
    "reproduce_pack",
]
