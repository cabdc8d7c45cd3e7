#!/usr/bin/env python3
"""Two versions of respai on the same data, interleaved in one invocation, beside the floor.

Usage (from the repository root, with the project's virtual environment)::

    git worktree add /tmp/respai-old <commit>
    .venv/bin/python benchmarks/versions.py --old /tmp/respai-old/src --rows 1e7

Both versions run ``respai evaluate`` (the full benchmark spec, ``--no-ledger``) on the
same Parquet file of ``benchmarks/gen_data.py``, as their own processes under
``/usr/bin/time -v`` (wall time and peak RSS), in the order floor, old, new, repeated
``--runs`` times, so a slow moment of the machine hits both alike; the medians are
printed as a Markdown table for ``RESULTS.md``. The old version is imported from
``--old`` (a source tree, through ``PYTHONPATH``); the new one from this repository.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from run import write_specs  # noqa: E402 - the harness's own spec writer


def timed(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall seconds and peak RSS (MB) of one process, from ``/usr/bin/time -v``."""
    proc = subprocess.run(
        ["/usr/bin/time", "-v", *cmd], capture_output=True, text=True, env=env, check=False
    )
    if proc.returncode not in (0, 1, 3, 4):
        raise SystemExit(f"{cmd} failed ({proc.returncode}): {proc.stderr[-2000:]}")
    wall = re.search(r"Elapsed \(wall clock\) time.*: (?:(\d+):)?(\d+):([\d.]+)", proc.stderr)
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", proc.stderr)
    assert wall is not None and rss is not None, proc.stderr[-2000:]
    h, m, s = wall.groups()
    return int(h or 0) * 3600 + int(m) * 60 + float(s), int(rss.group(1)) / 1024


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--old", type=Path, required=True, help="the old version's src folder")
    ap.add_argument("--rows", type=float, default=1e7)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--data", type=Path, default=Path("/tmp/respai-bench"))
    a = ap.parse_args()
    n = int(a.rows)
    a.data.mkdir(parents=True, exist_ok=True)
    path = a.data / f"cases_{n}.parquet"
    if not path.exists():
        subprocess.run(
            [sys.executable, str(HERE / "gen_data.py"), "--rows", str(n), "--out", str(a.data),
             "--formats", "parquet"],
            check=True,
        )  # fmt: skip
    spec = write_specs(a.data, n, "parquet", path)["full"]
    respai = str(Path(sys.executable).with_name("respai"))
    base = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    home = {"RESPAI_HOME": str(a.data / "keys")}
    cases = {
        "floor (one GROUP BY)": ([sys.executable, str(HERE / "floor.py"), str(path)], base),
        "floor + sort": ([sys.executable, str(HERE / "floor.py"), str(path), "--sort"], base),
        "respai evaluate, old": (
            [respai, "evaluate", str(spec), "--no-ledger", "--out", str(a.data / "out_old")],
            {**base, **home, "PYTHONPATH": str(a.old.resolve())},
        ),
        "respai evaluate, new": (
            [respai, "evaluate", str(spec), "--no-ledger", "--out", str(a.data / "out_new")],
            {**base, **home, "PYTHONPATH": str(ROOT / "src")},
        ),
    }
    found: dict[str, list[tuple[float, float]]] = {k: [] for k in cases}
    for _ in range(a.runs):
        for name, (cmd, env) in cases.items():
            found[name].append(timed(cmd, env))
    floor = statistics.median(w for w, _ in found["floor (one GROUP BY)"])
    print(f"| case ({n:,} rows, Parquet, {os.cpu_count()} cores) | wall s | x floor | peak MB |")
    print("|---|---|---|---|")
    for name, runs in found.items():
        wall = statistics.median(w for w, _ in runs)
        rss = statistics.median(r for _, r in runs)
        print(f"| {name} | {wall:.2f} | {wall / floor:.1f} | {rss:.0f} |")


if __name__ == "__main__":
    main()
