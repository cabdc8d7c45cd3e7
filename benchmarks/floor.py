#!/usr/bin/env python3
"""The floor: one DuckDB GROUP BY over the columns the evaluation reads, nothing else.

``label, prediction, sex, race, age_band`` and the score's calibration bin
(``floor(score * 10)``), with the case count and the integer probability sum per cell,
read from the Parquet or CSV file in one pass. Whatever respai does on top of this pass
(validation, statistics, the record, signing) is what the benchmark's ratios measure.

With ``--no-score`` the score column is left out (the floor of a spec without a score).

Usage: python benchmarks/floor.py FILE [--no-score] [THREADS]   (prints one JSON line)
"""

from __future__ import annotations

import json
import sys
import time

T0 = time.perf_counter()
import duckdb  # noqa: E402

T_IMPORT = time.perf_counter()
args = [a for a in sys.argv[1:] if a != "--no-score"]
no_score = len(args) < len(sys.argv) - 1
path = args[0]
con = duckdb.connect()
if len(args) > 1:
    con.execute(f"SET threads = {int(args[1])}")
quoted = path.replace("'", "''")
reader = f"read_csv('{quoted}')" if path.endswith(".csv") else f"read_parquet('{quoted}')"
score = ("" if no_score else "least(floor(score * 10), 9) AS bin, ")
micro = ("0" if no_score else "sum(CAST(floor(score * 1000000) AS BIGINT))")
rows = con.execute(
    f"SELECT label, prediction, sex, race, age_band, {score}count(*) AS n, "
    f"{micro} AS micro FROM {reader} GROUP BY ALL"
).fetchall()
T_SCAN = time.perf_counter()
print(json.dumps({
    "peer": "duckdb-floor",
    "duckdb": duckdb.__version__,
    "score": not no_score,
    "rows": int(sum(r[-2] for r in rows)),
    "cube_rows": len(rows),
    "import_s": round(T_IMPORT - T0, 3),
    "scan_groupby_s": round(T_SCAN - T_IMPORT, 3),
}))
