#!/usr/bin/env python3
"""benchmarks/results.json -> the tables in benchmarks/RESULTS.md.

Only the part between ``<!-- generated:start -->`` and ``<!-- generated:end -->`` is
rewritten; the analysis around it is written by hand.

Usage: python benchmarks/report.py [--results benchmarks/results.json] [--out RESULTS.md]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
START, END = "<!-- generated:start -->", "<!-- generated:end -->"
ORDER = [
    "floor",
    "floor-noscore",
    "floor-sort",
    "respai-fairness",
    "respai-full",
    "respai-noscore",
    "spark",
    "respai-spark",
    "aequitas",
    "fairlearn",
    "aif360",
    "holisticai",
]
OPTIONAL = {
    "respai-fairness",
    "floor-noscore",
    "floor-sort",
    "spark",
    "respai-spark",
    "aequitas",
    "fairlearn",
    "aif360",
    "holisticai",
}
NAMES = {
    "floor": "DuckDB floor (one GROUP BY)",
    "floor-noscore": "DuckDB floor without the score column",
    "floor-sort": "DuckDB floor + ORDER BY score streamed (the least an exact AUC needs)",
    "respai-fairness": "respai fairness (rules and tables, printed to a pipe)",
    "respai-full": "**respai evaluate** (score = probability: AUC + calibration)",
    "respai-noscore": "respai evaluate, spec without a score column",
    "spark": "respai evaluate_fairness on Spark local[2] (no score; incl. JVM start)",
    "respai-spark": "respai evaluate --engine spark, no score (local[2], incl. JVM start)",
    "aequitas": "aequitas 1.1.0 (peer_aequitas.py)",
    "fairlearn": "fairlearn 0.15.0 (peer_fairlearn.py)",
    "aif360": "AIF360 0.6.1 (peer_aif360.py)",
    "holisticai": "holisticai 1.0.14 (peer_holisticai.py)",
}


def _cell(r: dict[str, Any] | None) -> str:
    if r is None:
        return "not run"
    if r.get("ok"):
        runs = "" if r["ok"] >= 3 else f" [{r['ok']} run]"
        return f"{r['wall_s']:.2f} s ({r['peak_rss_mb']:,.0f} MB){runs}"
    return f"did not finish: {r.get('error')}"


def _ratio(a: dict[str, Any] | None, b: dict[str, Any] | None, key: str) -> str:
    if not a or not b or not a.get("ok") or not b.get("ok"):
        return "-"
    return f"{a[key] / b[key]:.1f}x"


#: The goals of issue 16: (what, role, size test, key, limit as a ratio to the floor).
GOALS: list[tuple[str, str, Any, str, float]] = [
    (
        "10M Parquet, full evaluate: wall",
        "respai-full",
        lambda n, f: (n, f) == (10**7, "parquet"),
        "wall_s",
        3.0,
    ),
    (
        "10M Parquet, full evaluate: peak memory",
        "respai-full",
        lambda n, f: (n, f) == (10**7, "parquet"),
        "peak_rss_mb",
        2.0,
    ),
    (
        "small file, respai fairness: wall",
        "respai-fairness",
        lambda n, f: f.startswith("csv, ") and "declared" not in f,
        "wall_s",
        1.5,
    ),
    (
        "small file, respai evaluate: wall",
        "respai-full",
        lambda n, f: f.startswith("csv, ") and "declared" not in f,
        "wall_s",
        2.5,
    ),
]


def _run(r: dict[str, Any]) -> str:
    """The invocation's number, and its note when it has one."""
    return f"{r.get('run', 0)} ({r['note']})" if r.get("note") else str(r.get("run", 0))


def goals(rows: list[dict[str, Any]]) -> list[str]:
    """The goals table: each goal in every invocation that measured it with its floor."""
    lines = [
        "### Goals (ratio to the floor measured in the same invocation)",
        "",
        "| goal | run | respai | floor | ratio | limit | met |",
        "|---|---|---:|---:|---:|---:|---|",
    ]
    for what, role, size, key, limit in GOALS:
        found = []
        for r in rows:
            if r.get("role") != role or not r.get("ok") or not size(r["n"], r["fmt"]):
                continue
            floor = next(
                (
                    f
                    for f in rows
                    if f.get("role") == "floor"
                    and f.get("ok")
                    and f.get("run") == r.get("run")
                    and (f["n"], f["fmt"]) == (r["n"], r["fmt"])
                ),
                None,
            )
            if floor is not None:
                found.append((r, floor))
        if not found:
            lines.append(f"| {what} | - | not measured | | | {limit:g}x | |")
        unit = "s" if key == "wall_s" else "MB"
        for r, floor in found:
            ratio = r[key] / floor[key]
            digits = 2 if key == "wall_s" else 0
            lines.append(
                f"| {what} | {_run(r)} | {r[key]:,.{digits}f} {unit} "
                f"| {floor[key]:,.{digits}f} {unit} "
                f"| {ratio:.1f}x | {limit:g}x | {'yes' if ratio <= limit else 'no'} |"
            )
    for r in rows:
        if r.get("role") == "respai-full" and "groups" in r:
            g = r["groups"]
            if r.get("ok"):
                per = 1000 * r["wall_s"] / g
                met = r["wall_s"] < 15 and r["peak_rss_mb"] < 500
                lines.append(
                    f"| {g:,} declared values, evaluate (< 15 s, < 500 MB) | {_run(r)} "
                    f"| {r['wall_s']:,.1f} s, {r['peak_rss_mb']:,.0f} MB ({per:.1f} ms per group) "
                    f"| | | | {'yes' if met else 'no'} |"
                )
            else:
                lines.append(
                    f"| {g:,} declared values, evaluate | {_run(r)} "
                    f"| did not finish: {r.get('error')} | | | | no |"
                )
    return [*lines, ""]


def tables(data: dict[str, Any]) -> str:
    m = data["machine"]
    res = data["results"]
    lines = [
        f"Machine: {m.get('nproc')} cores ({m.get('cpu')}), {m.get('memory_gb')} GB memory, "
        f"Python {m.get('python')}, DuckDB {m.get('duckdb')}, pyspark {m.get('pyspark')}, "
        f"{m.get('platform')}; other jobs shared the machine.",
        "",
        "Wall time is the median of the runs shown (3 unless marked), peak RSS the median "
        "of the runs' peaks (the whole process tree, JVM included). `run` numbers the "
        "invocations of `run.py`; ratios are only taken within one invocation: against "
        "the floor (all columns the spec reads, score included) and against the floor "
        "without the score column (the fair floor for the no-score spec).",
        "",
    ]
    rows = [r for r in res if "role" in r]
    lines += goals(rows)
    sizes = sorted({(r["n"], r["fmt"]) for r in rows}, key=lambda t: (t[0], t[1] != "parquet"))
    for n, fmt in sizes:
        here = [r for r in rows if r["n"] == n and r["fmt"] == fmt]
        file_mb = here[0].get("file_mb")
        lines += [
            f"### {n:,} rows, {fmt} ({file_mb:,} MB)",
            "",
            "| run | command | wall s (peak MB) | wall vs floor | peak vs floor "
            "| wall vs no-score floor |",
            "|---:|---|---:|---:|---:|---:|",
        ]
        runs = sorted({r.get("run", 0) for r in here})
        for run in runs:
            mine = {r["role"]: r for r in here if r.get("run", 0) == run}
            floor, floor0 = mine.get("floor"), mine.get("floor-noscore")
            for role in ORDER:
                r = mine.get(role)
                if r is None:
                    continue
                lines.append(
                    f"| {run} | {NAMES[role]} | {_cell(r)} | {_ratio(r, floor, 'wall_s')} | "
                    f"{_ratio(r, floor, 'peak_rss_mb')} | {_ratio(r, floor0, 'wall_s')} |"
                )
        for run in runs:
            mine = {r["role"]: r for r in here if r.get("run", 0) == run}
            for peer in ("aequitas", "fairlearn", "aif360", "holisticai"):
                p = mine.get(peer)
                if p and p.get("ok"):
                    lines.append("")
                    lines.append(
                        f"Run {run}, {peer} / respai (wall): full "
                        f"{_ratio(p, mine.get('respai-full'), 'wall_s')}, no score "
                        f"{_ratio(p, mine.get('respai-noscore'), 'wall_s')}."
                    )
        lines.append("")
    helps = [r for r in res if r["label"] == "respai --help"]
    if helps and helps[-1].get("ok"):
        h = helps[-1]
        lines.append(
            f"`respai --help`: {h['wall_s']:.2f} s median of {h['ok']} runs "
            f"({', '.join(f'{x:.2f}' for x in h['wall_s_all'])})."
        )
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--results", type=Path, default=HERE / "results.json")
    ap.add_argument("--out", type=Path, default=HERE / "RESULTS.md")
    a = ap.parse_args()
    body = tables(json.loads(a.results.read_text(encoding="utf-8")))
    text = a.out.read_text(encoding="utf-8") if a.out.exists() else f"{START}\n{END}\n"
    head, _, rest = text.partition(START)
    _, _, tail = rest.partition(END)
    a.out.write_text(f"{head}{START}\n{body}{END}{tail}", encoding="utf-8")
    print(f"wrote {a.out}")


if __name__ == "__main__":
    main()
