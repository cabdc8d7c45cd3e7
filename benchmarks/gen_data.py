#!/usr/bin/env python3
"""Seeded synthetic decided cases for the scale benchmark (CSV and Parquet).

Columns: ``id`` (int64), ``label`` and ``prediction`` (0/1, int8), ``score`` (float64 in
(0, 1)), ``sex`` (female / male, ~2 % ``unknown``), ``race`` (7 EEO-1 categories plus an
undeclared ``Other``, ~3 % null) and ``age_band`` (3 bands). The score is lowered for
female x Black or African American and for over_60, so the group rules have something to
find.

Rows are made in fixed chunks of 1,000,000, chunk ``k`` drawn from
``numpy.random.default_rng([seed, k])`` and written as it is made (pyarrow
``ParquetWriter`` / ``CSVWriter``), so memory stays at one chunk whatever the row count,
and the first 1M rows of every file are the same.

Usage::

    python benchmarks/gen_data.py --rows 1e7 --out /tmp/respai-bench [--formats parquet csv]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pcsv
import pyarrow.parquet as pq

SEED = 20260101
CHUNK = 1_000_000

SEX = np.array(["female", "male", "unknown"], dtype=object)
SEX_P = [0.49, 0.49, 0.02]
RACE = np.array(
    [
        "Hispanic or Latino",
        "White",
        "Black or African American",
        "Native Hawaiian or Other Pacific Islander",
        "Asian",
        "American Indian or Alaska Native",
        "Two or More Races",
        "Other",  # undeclared in the spec: counted as left out
        None,
    ],
    dtype=object,
)
RACE_P = [0.170, 0.535, 0.125, 0.004, 0.072, 0.009, 0.050, 0.005, 0.030]
AGE = np.array(["under_30", "30_to_60", "over_60"], dtype=object)
AGE_P = [0.30, 0.55, 0.15]


def chunk(seed: int, k: int, start: int, n: int) -> pa.Table:
    """Rows ``start .. start + n`` (chunk ``k``): deterministic in (seed, k)."""
    rng = np.random.default_rng([seed, k])
    sex = rng.choice(len(SEX), size=n, p=SEX_P)
    race = rng.choice(len(RACE), size=n, p=RACE_P)
    age = rng.choice(len(AGE), size=n, p=AGE_P)
    base = np.choose(age, [0.32, 0.37, 0.33])
    label = (rng.random(n) < base).astype(np.int8)
    logit = -0.9 + 2.0 * label + rng.normal(0.0, 1.1, size=n)
    logit -= 0.9 * ((sex == 0) & (race == 2))
    logit -= 0.35 * (age == 2)
    logit += 0.15 * ((sex == 1) & (race == 1))
    score = 1.0 / (1.0 + np.exp(-logit))
    return pa.table(
        {
            "id": pa.array(np.arange(start, start + n, dtype=np.int64)),
            "label": pa.array(label),
            "prediction": pa.array((score >= 0.5).astype(np.int8)),
            "score": pa.array(score),
            "sex": pa.array(SEX[sex], type=pa.string()),
            "race": pa.array(RACE[race], type=pa.string(), from_pandas=True),
            "age_band": pa.array(AGE[age], type=pa.string()),
        }
    )


def generate(
    rows: int, out: Path, formats: tuple[str, ...] = ("parquet", "csv"), seed: int = SEED
) -> dict[str, Path]:
    """Write ``cases_<rows>.<fmt>`` under ``out`` (skipping files already complete)."""
    out.mkdir(parents=True, exist_ok=True)
    paths = {fmt: out / f"cases_{rows}.{fmt}" for fmt in formats}
    todo = {fmt: p for fmt, p in paths.items() if not p.exists()}
    if not todo:
        return paths
    tmp = {fmt: p.with_suffix(p.suffix + ".part") for fmt, p in todo.items()}
    writers: dict[str, object] = {}
    start = k = 0
    while start < rows:
        n = min(CHUNK, rows - start)
        table = chunk(seed, k, start, n)
        if not writers:
            if "parquet" in tmp:
                writers["parquet"] = pq.ParquetWriter(
                    tmp["parquet"], table.schema, compression="snappy"
                )
            if "csv" in tmp:
                writers["csv"] = pcsv.CSVWriter(tmp["csv"], table.schema)
        for w in writers.values():
            w.write_table(table)  # type: ignore[attr-defined]
        start += n
        k += 1
    for w in writers.values():
        w.close()  # type: ignore[attr-defined]
    for fmt, p in tmp.items():
        p.rename(todo[fmt])
    return paths


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=float, required=True, help="row count, e.g. 1e7")
    ap.add_argument("--out", type=Path, required=True, help="output folder (not in the repo)")
    ap.add_argument("--formats", nargs="+", default=["parquet", "csv"], choices=["parquet", "csv"])
    ap.add_argument("--seed", type=int, default=SEED)
    a = ap.parse_args()
    t0 = time.perf_counter()
    paths = generate(int(a.rows), a.out, tuple(a.formats), a.seed)
    print(
        f"{int(a.rows)} rows in {time.perf_counter() - t0:.1f} s: "
        + ", ".join(str(p) for p in paths.values())
    )


if __name__ == "__main__":
    main()
