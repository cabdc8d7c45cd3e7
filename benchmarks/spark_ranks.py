#!/usr/bin/env python3
"""The AUC's rank sums on Spark against Spark sorting the same scores once (issue 30 point 4).

One Spark session (``local[2]`` unless ``--master``), one Parquet file of ``--rows`` cases
(two attributes, a 0/1 label, a continuous score; made with a fixed seed when missing),
and in one process, interleaved ``--runs`` times after one warm-up round:

- ``spark sort``: the floor, Spark sorting the scores once (``orderBy`` written to the
  ``noop`` sink, so nothing is collected);
- ``respai one sort``: :func:`respai.engine.rank_sums` on the Spark source, the path
  respai uses (one range-partitioned sort, each partition folded where it lives);
- ``respai windows`` (with ``--windows``): the former path, window functions per grouping.

Prints one JSON line with every time, the medians and the ratio to the floor, and
whether the paths gave the same integers.

Usage::

    python benchmarks/spark_ranks.py --rows 10000000 --runs 3
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

GROUPINGS = [(), (0,), (1,), (0, 1)]


def _data(path: Path, rows: int) -> None:
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(30)
    label = rng.integers(0, 2, rows)
    table = pa.table(
        {
            "sex": rng.choice(["f", "m"], rows),
            "race": rng.choice(["a", "b", "c"], rows),
            "label": label,
            "score": rng.random(rows) + 0.3 * label,
        }
    )
    pq.write_table(table, path)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", type=float, default=1e6)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--master", default="local[2]")
    ap.add_argument("--windows", action="store_true", help="also time the window functions")
    ap.add_argument("--folder", type=Path, default=Path("/tmp/respai-bench"))
    a = ap.parse_args()
    rows = int(a.rows)
    a.folder.mkdir(parents=True, exist_ok=True)
    path = a.folder / f"spark_ranks_{rows}.parquet"
    if not path.exists():
        _data(path, rows)

    from respai import engine
    from respai.engine import ranks
    from respai.engine.spark import spark_session

    spark = spark_session(a.master)
    source = engine.open_spark_file(path)
    args: tuple[Any, ...] = (
        "score",
        "label",
        {0: 0, 1: 1},
        ["sex", "race"],
        ({"f": 0, "m": 1}, {"a": 0, "b": 1, "c": 2}),
        [2, 3],
        GROUPINGS,
    )
    scores = spark.read.parquet(str(path)).select("score")

    def floor() -> None:
        scores.orderBy("score").write.mode("overwrite").format("noop").save()

    cases: dict[str, Callable[[], Any]] = {
        "spark sort": floor,
        "respai one sort": lambda: engine.rank_sums(source, *args),
    }
    if a.windows:
        frame = ranks._coded(source, *args[:5])
        cases["respai windows"] = lambda: ranks._rank_windows(frame, GROUPINGS)
    times: dict[str, list[float]] = {name: [] for name in cases}
    results: dict[str, Any] = {}
    for round_ in range(a.runs + 1):  # round 0 warms the JVM and the Python workers
        for name, run in cases.items():
            start = time.perf_counter()
            out = run()
            took = time.perf_counter() - start
            if round_:
                times[name].append(round(took, 3))
            if out is not None:
                results[name] = out
    medians = {name: statistics.median(t) for name, t in times.items()}
    floor_s = medians["spark sort"]
    first = next(iter(results.values()))
    print(
        json.dumps(
            {
                "rows": rows,
                "master": a.master,
                "cores": os.cpu_count(),
                "times": times,
                "median": medians,
                "ratio_to_floor": {n: round(m / floor_s, 2) for n, m in medians.items()},
                "same_integers": all(r == first for r in results.values()),
            }
        )
    )


if __name__ == "__main__":
    main()
