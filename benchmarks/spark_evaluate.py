#!/usr/bin/env python3
"""The group rules on Spark: ``evaluate_fairness(spec, spark_df)`` over a Parquet or CSV file.

Starts a local Spark session (``local[2]`` unless ``SPARK_MASTER`` is set), reads the file
with :func:`respai.engine.open_spark_file` and runs the same narwhals count pass there.
Prints one JSON line with the session start-up and evaluation times.

Usage: python benchmarks/spark_evaluate.py SPEC FILE
"""

from __future__ import annotations

import json
import os
import sys
import time

T0 = time.perf_counter()
from respai import engine  # noqa: E402
from respai.engine.spark import spark_session  # noqa: E402
from respai.run.group_rules import evaluate_fairness  # noqa: E402
from respai.spec import load_spec  # noqa: E402

spec_path, path = sys.argv[1], sys.argv[2]
session = spark_session(os.environ.get("SPARK_MASTER"))
T_SESSION = time.perf_counter()
spec = load_spec(spec_path)
f = spec.fairness
text = [*f.attributes, f.label, f.prediction, *([f.unit] if f.unit else [])]
source = engine.open_spark_file(path, None, f.delimiter, text, session)
result = evaluate_fairness(spec, source)
T_DONE = time.perf_counter()
print(
    json.dumps(
        {
            "engine": "spark",
            "verdict": result.verdict.value,
            "cases": result.counts.total,
            "session_s": round(T_SESSION - T0, 2),
            "evaluate_s": round(T_DONE - T_SESSION, 2),
        }
    )
)
