#!/usr/bin/env python3
"""The AUC's rank sums as DuckDB window functions, against the sorted stream respai uses.

Issue 30 point 1 asked whether the exact rank sums could be computed where the sort
happens (SQL window functions or aggregates returning a few integers per group) instead
of streaming the sorted scores to Python's numpy fold. This script is the measured
attempt, kept so the figures in ``RESULTS.md`` can be reproduced.

``--sql FILE``: for each grouping of the benchmark spec (the whole file, sex, race,
age_band, sex x race), one query under respai's memory cap (512MB) and spill folder::

    SELECT g, count(*) FILTER (y = 1), sum(2 * cq - q) FILTER (y = 1), ...
    FROM (SELECT g, y, s, sum(1 - y) OVER (PARTITION BY g ORDER BY s
                                           RANGE UNBOUNDED PRECEDING) AS cq, ...)

i.e. each case's count of the other label at or below its score within its group, with
the tie block's own count subtracted once (ties counted half, in integers). It prints
one JSON line with the seconds and, with ``--check``, whether the integers equal
``respai.engine.rank_sums`` on the same file (they do).

``--compare FILE``: the floor, the floor plus a sort (``floor.py --sort``), ``respai
evaluate`` on the benchmark spec and ``--sql`` as separate processes under
``/usr/bin/time -v``, interleaved ``--runs`` times; medians as a Markdown table.

Usage::

    python benchmarks/sql_ranks.py --compare /tmp/respai-bench/cases_10000000.parquet
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

RACES = [
    "Hispanic or Latino",
    "White",
    "Black or African American",
    "Native Hawaiian or Other Pacific Islander",
    "Asian",
    "American Indian or Alaska Native",
    "Two or More Races",
]
CODES = [
    ("sex", {"female": 0, "male": 1}),
    ("race", {r: i for i, r in enumerate(RACES)}),
    ("age_band", {"under_30": 0, "30_to_60": 1, "over_60": 2}),
]
GROUPINGS: list[tuple[int, ...]] = [(), (0,), (1,), (2,), (0, 1)]


def _case(column: str, codes: dict[str, int]) -> str:
    whens = " ".join(f"WHEN '{v}' THEN {c}" for v, c in codes.items())
    return f'(CASE "{column}" {whens} ELSE -1 END)::SMALLINT'


def sql_rank_sums(path: str) -> dict[tuple[int, ...], dict[int, tuple[int, ...]]]:
    """Per grouping and group code: positives, negatives, sum x, sum x^2, sum w, sum w^2."""
    import duckdb

    con = duckdb.connect()
    con.execute("SET memory_limit = '512MB'")
    con.execute(f"SET temp_directory = '{tempfile.mkdtemp(prefix='respai-sql-ranks-')}'")
    codes = ", ".join(f"{_case(c, m)} AS a{i}" for i, (c, m) in enumerate(CODES))
    con.execute(
        f"CREATE VIEW coded AS SELECT {codes}, label::BIGINT AS y, score::DOUBLE + 0.0 AS s "
        f"FROM read_parquet('{path}') WHERE score IS NOT NULL"
    )
    sizes = [len(m) for _, m in CODES]
    out: dict[tuple[int, ...], dict[int, tuple[int, ...]]] = {}
    for grouping in GROUPINGS:
        code = "0"
        for i in grouping:
            code = f"a{i}" if code == "0" else f"({code}) * {sizes[i]} + a{i}"
        where = " AND ".join(f"a{i} >= 0" for i in grouping) or "TRUE"
        # at or below (RANGE frame: the whole tie block) and the block itself
        sql = f"""
        SELECT g, count(*) FILTER (y = 1), count(*) FILTER (y = 0),
               sum(2 * cq - tq) FILTER (y = 1), sum((2 * cq - tq)::HUGEINT ** 2) FILTER (y = 1),
               sum(2 * cp - tp) FILTER (y = 0), sum((2 * cp - tp)::HUGEINT ** 2) FILTER (y = 0)
        FROM (
          SELECT g, y,
                 sum(1 - y) OVER w AS cq, sum(y) OVER w AS cp,
                 sum(1 - y) OVER t AS tq, sum(y) OVER t AS tp
          FROM (SELECT {code} AS g, y, s FROM coded WHERE {where})
          WINDOW w AS (PARTITION BY g ORDER BY s RANGE UNBOUNDED PRECEDING),
                 t AS (PARTITION BY g, s)
        ) GROUP BY g ORDER BY g
        """
        rows = con.execute(sql).fetchall()
        out[grouping] = {int(r[0]): tuple(int(v or 0) for v in r[1:]) for r in rows}
    return out


def respai_rank_sums(path: str) -> dict[tuple[int, ...], dict[int, tuple[int, ...]]]:
    """The same integers from ``respai.engine.rank_sums`` (the sorted stream and fold)."""
    from respai.engine import open_file, rank_sums

    source = open_file(path)
    found = rank_sums(
        source,
        "score",
        "label",
        {0: 0, 1: 1},
        [c for c, _ in CODES],
        [m for _, m in CODES],
        [len(m) for _, m in CODES],
        GROUPINGS,
    )
    sizes = [len(m) for _, m in CODES]
    out: dict[tuple[int, ...], dict[int, tuple[int, ...]]] = {}
    for grouping, groups in found.items():
        out[grouping] = {}
        for key, p in groups.items():
            code = 0
            for i, k in zip(grouping, key, strict=True):
                code = code * sizes[i] + k
            out[grouping][code] = (
                p.positives,
                p.negatives,
                p.sum_x,
                p.sum_x2,
                p.sum_w,
                p.sum_w2,
            )
    return out


def compare(path: Path, runs: int) -> None:
    sys.path.insert(0, str(HERE))
    from versions import timed

    from run import write_specs

    data = path.parent
    spec = write_specs(data, 0, "parquet", path)["full"]
    respai = str(Path(sys.executable).with_name("respai"))
    env = {**os.environ, "RESPAI_HOME": str(data / "keys"), "PYTHONPATH": str(ROOT / "src")}
    me = str(Path(__file__).resolve())
    cases: dict[str, list[str]] = {
        "floor (one GROUP BY)": [sys.executable, str(HERE / "floor.py"), str(path)],
        "floor + sort": [sys.executable, str(HERE / "floor.py"), str(path), "--sort"],
        "respai evaluate (sorted stream + numpy fold)": [
            respai, "evaluate", str(spec), "--no-ledger", "--out", str(data / "out_sql_cmp"),
        ],
        "rank sums as DuckDB windows, 5 groupings (no evaluation)": [
            sys.executable, me, "--sql", str(path),
        ],
    }  # fmt: skip
    found: dict[str, list[tuple[float, float]]] = {k: [] for k in cases}
    for _ in range(runs):
        for name, cmd in cases.items():
            found[name].append(timed(cmd, env))
            print(name, found[name][-1], file=sys.stderr, flush=True)
    floor = statistics.median(w for w, _ in found["floor (one GROUP BY)"])
    sort = statistics.median(w for w, _ in found["floor + sort"])
    print(f"| case ({os.cpu_count()} cores) | wall s | x floor | x floor + sort | peak MB |")
    print("|---|---|---|---|---|")
    for name, rows in found.items():
        wall = statistics.median(w for w, _ in rows)
        rss = statistics.median(r for _, r in rows)
        print(f"| {name} | {wall:.2f} | {wall / floor:.1f} | {wall / sort:.2f} | {rss:.0f} |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sql", help="run the window-function rank sums on FILE")
    ap.add_argument("--check", action="store_true", help="with --sql: compare with respai")
    ap.add_argument("--compare", type=Path, help="the interleaved comparison on FILE")
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    if a.compare is not None:
        compare(a.compare.resolve(), a.runs)
        return
    t0 = time.perf_counter()
    got = sql_rank_sums(a.sql)
    row: dict[str, Any] = {"sql_windows_s": round(time.perf_counter() - t0, 3)}
    if a.check:
        want = respai_rank_sums(a.sql)
        row["identical"] = got == want
    print(json.dumps(row))


if __name__ == "__main__":
    main()
