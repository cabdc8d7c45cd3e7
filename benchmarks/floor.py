#!/usr/bin/env python3
"""The floor: one DuckDB GROUP BY over the columns the evaluation reads, nothing else.

``label, prediction, sex, race, age_band`` and the score's calibration bin
(``floor(score * 10)``), with the case count and the integer probability sum per cell,
read from the Parquet or CSV file in one pass. Whatever respai does on top of this pass
(validation, statistics, the record, signing) is what the benchmark's ratios measure.

Usage: python benchmarks/floor.py FILE [THREADS]   (prints one JSON line)
"""

from __future__ import annotations

import json
import sys
import time

T0 = time.perf_counter()
import duckdb  # noqa: E402

T_IMPORT = time.perf_counter()
path = sys.argv[1]
con = duckdb.connect()
if len(sys.argv) > 2:
    con.execute(f"SET threads = {int(sys.argv[2])}")
quoted = path.replace("'", "''")
reader = f"read_csv('{quoted}')" if path.endswith(".csv") else f"read_parquet('{quoted}')"
rows = con.execute(
    "SELECT label, prediction, sex, race, age_band, "
    "least(floor(score * 10), 9) AS bin, count(*) AS n, "
    "sum(CAST(floor(score * 1000000) AS BIGINT)) AS micro "
    f"FROM {reader} GROUP BY ALL"
).fetchall()
T_SCAN = time.perf_counter()
print(json.dumps({
    "peer": "duckdb-floor",
    "duckdb": duckdb.__version__,
    "rows": int(sum(r[6] for r in rows)),
    "cube_rows": len(rows),
    "import_s": round(T_IMPORT - T0, 3),
    "scan_groupby_s": round(T_SCAN - T_IMPORT, 3),
}))
