#!/usr/bin/env python3
"""Many groups: one attribute of G declared values (issue 30 point 2).

Writes a CSV of ``--rows`` cases (default 1,000,000) spread over ``G`` values of one
attribute ``store`` (default 100,000) with a label, a prediction and a score, and a spec
declaring every value with the benchmark battery, then times, each as a subprocess under
``/usr/bin/time -v`` (wall seconds and peak resident memory):

- the floor: one DuckDB GROUP BY over the same file (``floor.py --columns=...``);
- ``respai fairness SPEC --json`` (output discarded);
- ``respai evaluate SPEC --no-ledger --out DIR --quiet``.

With ``--profile`` it also writes a cProfile of ``respai evaluate`` to ``DIR/evaluate.prof``
and prints its 25 largest cumulative items.

Usage: python benchmarks/many_groups.py [--groups G] [--rows N] [--data DIR] [--profile]
       [--only floor|fairness|evaluate ...]   (one JSON line per case)
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
PY = sys.executable
RESPAI = str(Path(PY).with_name("respai"))


def write_case(data: Path, groups: int, rows: int) -> tuple[Path, Path]:
    """Write the cases file and its spec (the file only when it is not there yet)."""
    import numpy as np

    data.mkdir(parents=True, exist_ok=True)
    path = data / f"many_{groups}_{rows}.csv"
    spec = data / f"spec_many_{groups}_{rows}.yaml"
    if not path.exists():
        rng = np.random.default_rng(groups)
        g = rng.integers(0, groups, rows)
        y = rng.integers(0, 2, rows)
        s = rng.random(rows)
        tmp = path.with_suffix(".tmp")
        with tmp.open("w", encoding="utf-8") as fh:
            fh.write("store,label,prediction,score\n")
            step = 200_000
            for i in range(0, rows, step):
                fh.writelines(
                    f"s{a},{b},{int(d > 0.5)},{d:.6f}\n"
                    for a, b, d in zip(
                        g[i : i + step].tolist(),
                        y[i : i + step].tolist(),
                        s[i : i + step].tolist(),
                        strict=True,
                    )
                )
        tmp.replace(path)
    values = ", ".join(f"s{i}" for i in range(groups))
    spec.write_text(
        f"""system: {{name: many-groups, version: "1"}}
fairness:
  name: many-groups
  cases: {path}
  label: label
  prediction: prediction
  probability: score
  attributes:
    store: [{values}]
  rules:
    - {{id: sel-store, rate: selection, attribute: store, max_group_gap: 0.5}}
evaluation:
  tests: [accuracy, auc, impact_ratio, selection_rate_diff, equal_opportunity_diff,
          completeness, class_balance]
  score: score
  seed: 1
""",
        encoding="utf-8",
    )
    return path, spec


def timed(name: str, argv: list[str]) -> dict[str, object]:
    """Run ``argv`` under ``/usr/bin/time -v``; wall seconds, peak MB and exit code."""
    proc = subprocess.run(
        ["/usr/bin/time", "-v", *argv],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        check=False,
    )
    err = proc.stderr
    wall = re.search(r"Elapsed \(wall clock\) time.*: (?:(\d+):)?(\d+):([\d.]+)", err)
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", err)
    seconds = None
    if wall:
        h, m, s = wall.groups()
        seconds = round(int(h or 0) * 3600 + int(m) * 60 + float(s), 2)
    out: dict[str, object] = {
        "case": name,
        "wall_s": seconds,
        "peak_mb": round(int(rss.group(1)) / 1024) if rss else None,
        "exit": proc.returncode,
    }
    if proc.returncode != 0:
        out["stderr"] = err.splitlines()[:5]
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--groups", type=int, default=100_000)
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--data", type=Path, default=Path(tempfile.gettempdir()) / "respai-many")
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--only", nargs="*", default=["floor", "fairness", "evaluate"])
    a = ap.parse_args()
    path, spec = write_case(a.data, a.groups, a.rows)
    out = a.data / f"out_{a.groups}"
    shutil.rmtree(out, ignore_errors=True)
    meta = {"groups": a.groups, "rows": a.rows, "file_mb": round(path.stat().st_size / 2**20)}
    cases = {
        "floor": [PY, str(HERE / "floor.py"), str(path), "--columns=store,label,prediction"],
        "fairness": [RESPAI, "fairness", str(spec), "--json"],
        "evaluate": [RESPAI, "evaluate", str(spec), "--no-ledger", "--out", str(out), "--quiet"],
    }
    for name in a.only:
        row = timed(name, cases[name]) | meta
        if name == "evaluate" and (out / "record.json").exists():
            row["record_mb"] = round((out / "record.json").stat().st_size / 2**20, 1)
        print(json.dumps(row), flush=True)
    if a.profile:
        prof = a.data / "evaluate.prof"
        shutil.rmtree(out, ignore_errors=True)
        env = dict(os.environ)
        subprocess.run(
            [
                PY,
                "-m",
                "cProfile",
                "-o",
                str(prof),
                "-m",
                "respai",
                "evaluate",
                str(spec),
                "--no-ledger",
                "--out",
                str(out),
                "--quiet",
            ],
            stdout=subprocess.DEVNULL,
            env=env,
            check=False,
        )
        import pstats

        pstats.Stats(str(prof)).sort_stats("cumulative").print_stats(25)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
