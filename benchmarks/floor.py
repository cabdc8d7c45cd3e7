#!/usr/bin/env python3
"""The floor: one DuckDB GROUP BY over the columns the evaluation reads, nothing else.

``label, prediction, sex, race, age_band`` and the score's calibration bin
(``floor(score * 10)``), with the case count and the integer probability sum per cell,
read from the Parquet or CSV file in one pass. Whatever respai does on top of this pass
(validation, statistics, the record, signing) is what the benchmark's ratios measure.

With ``--no-score`` the score column is left out (the floor of a spec without a score).
With ``--sort`` the GROUP BY is followed by what any exact rank AUC needs at least: the
scores sorted (``ORDER BY score``, with a 4-byte group code beside each, as respai
sorts them) and streamed back as Arrow batches that are only counted.

``--columns=a,b,c`` groups by other columns and ``--score=NAME`` names another score
column (the small-file and many-groups cases of ``run.py``; the sort stays the bench
file's).

Usage: python benchmarks/floor.py FILE [--no-score | --sort] [--columns=..] [--score=..]
[THREADS]   (one JSON line)
"""

from __future__ import annotations

import json
import sys
import time

T0 = time.perf_counter()
import duckdb  # noqa: E402

T_IMPORT = time.perf_counter()
options = dict(a[2:].split("=", 1) for a in sys.argv[1:] if a.startswith("--") and "=" in a)
flags = {a for a in sys.argv[1:] if a.startswith("--") and "=" not in a}
args = [a for a in sys.argv[1:] if not a.startswith("--")]
columns = options.get("columns", "label,prediction,sex,race,age_band").split(",")
score_col = '"' + options.get("score", "score").replace('"', '""') + '"'
groups = ", ".join('"' + c.replace('"', '""') + '"' for c in columns)
no_score = "--no-score" in flags
path = args[0]
con = duckdb.connect()
if len(args) > 1:
    con.execute(f"SET threads = {int(args[1])}")
quoted = path.replace("'", "''")
reader = f"read_csv('{quoted}')" if path.endswith(".csv") else f"read_parquet('{quoted}')"
score = "" if no_score else f"least(floor({score_col} * 10), 9) AS bin, "
micro = "0" if no_score else f"sum(CAST(floor({score_col} * 1000000) AS BIGINT))"
rows = con.execute(
    f"SELECT {groups}, {score}count(*) AS n, {micro} AS micro FROM {reader} GROUP BY ALL"
).fetchall()
T_SCAN = time.perf_counter()
sorted_rows = None
if "--sort" in flags:
    ordered = con.sql(
        f"SELECT (label + 2 * (CASE sex WHEN 'female' THEN 1 WHEN 'male' THEN 2 ELSE 0 END))"
        f"::INTEGER AS cell, score FROM {reader} WHERE score IS NOT NULL ORDER BY score"
    )
    sorted_rows = sum(b.num_rows for b in ordered.to_arrow_reader(1_000_000))
T_SORT = time.perf_counter()
print(
    json.dumps(
        {
            "peer": "duckdb-floor",
            "duckdb": duckdb.__version__,
            "score": not no_score,
            "rows": int(sum(r[-2] for r in rows)),
            "cube_rows": len(rows),
            "import_s": round(T_IMPORT - T0, 3),
            "scan_groupby_s": round(T_SCAN - T_IMPORT, 3),
            "sorted_rows": sorted_rows,
            "sort_stream_s": round(T_SORT - T_SCAN, 3),
        }
    )
)
