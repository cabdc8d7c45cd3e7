#!/usr/bin/env python3
"""Seconds per phase of one ``respai evaluate`` run, by timing the functions that do them.

py-spy's sampled seconds (``profile_phases.py``) slow the run and count every thread;
this wraps the phase functions with a clock instead and runs the command once in this
process, so the seconds add up to the wall time.

Usage: python benchmarks/phases.py SPEC [more respai evaluate options]
"""

from __future__ import annotations

import contextlib
import functools
import sys
import time
from collections import Counter
from typing import Any

T0 = time.perf_counter()
import importlib  # noqa: E402

from respai import cli, engine  # noqa: E402
from respai.engine import fold, opening  # noqa: E402

# the modules, not the functions of the same name
run_evaluation = importlib.import_module("respai.run.evaluation")
run_seal = importlib.import_module("respai.run.seal")

T_IMPORT = time.perf_counter()
SPENT: Counter[str] = Counter()
PEAK: dict[str, float] = {}


def peak_mb() -> float:
    """This process's peak resident memory so far, in MB (Linux reports KiB)."""
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def timed(owner: Any, name: str, phase: str) -> None:
    original = getattr(owner, name)

    @functools.wraps(original)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            SPENT[phase] += time.perf_counter() - start
            PEAK[phase] = peak_mb()

    setattr(owner, name, wrapper)


engine.count_cube  # noqa: B018 - resolve the lazy names before wrapping them
engine.rank_sums  # noqa: B018
timed(opening, "open_file", "open the file (DuckDB view, header checks)")
timed(engine, "count_cube", "count pass (DuckDB GROUP BY)")
timed(fold._RankStream, "add", "AUC: numpy fold per group")
timed(fold, "_unpacked", "AUC: unpack the codes (numpy)")
timed(engine, "rank_sums", "AUC pass, all of it")
timed(run_evaluation, "run_evaluation", "evaluate: load + blocks (+ hashing overlapped)")
timed(run_seal, "seal_evaluation", "record: build, canonicalise, sign, write")

with contextlib.suppress(SystemExit):  # the command exits with the verdict's code
    cli.main(["evaluate", *sys.argv[1:], "--quiet"])
total = time.perf_counter() - T0
SPENT["AUC: DuckDB sort and Arrow stream (rest of the AUC pass)"] = (
    SPENT["AUC pass, all of it"]
    - SPENT["AUC: numpy fold per group"]
    - SPENT["AUC: unpack the codes (numpy)"]
)
print(
    f"\n| phase | s | peak MB at its end |\n|---|---:|---:|\n| imports | {T_IMPORT - T0:.2f} | |",
    file=sys.stderr,
)
for phase, s in SPENT.items():
    peak = f"{PEAK[phase]:.0f}" if phase in PEAK else ""
    print(f"| {phase} | {s:.2f} | {peak} |", file=sys.stderr)
print(f"| **whole run** | {total:.2f} | {peak_mb():.0f} |", file=sys.stderr)
