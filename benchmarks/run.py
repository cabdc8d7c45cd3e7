#!/usr/bin/env python3
"""The scale benchmark: respai evaluate vs one DuckDB GROUP BY vs the peers, in one run.

Usage (from the repository root, with the project's virtual environment)::

    .venv/bin/python benchmarks/run.py --sizes 1e6 1e7 [--with-100m] [--peers] [--spark]

Data (``benchmarks/gen_data.py``) goes to ``--data`` (default ``/tmp/respai-bench``),
never into the repository. Every command runs as its own process under
``/usr/bin/time -v`` (wall time, peak RSS), ``--runs`` times (median reported), with a
memory cap and a time limit enforced by polling the process tree: a run over the cap is
stopped and reported as such, not left to the kernel's OOM killer. Results go to
``benchmarks/results.json`` and ``benchmarks/RESULTS.md``.

What is measured, per size and file format:

- ``floor``: ``benchmarks/floor.py``, one DuckDB GROUP BY over label, prediction, sex,
  race, age_band and the score bin;
- ``floor + sort``: the floor followed by ``ORDER BY score`` streamed back (``--sort``),
  the least any exact rank AUC costs;
- ``respai evaluate``: the whole command (battery, group rules, signed record,
  ``--no-ledger``) on ``benchmarks/spec.yaml`` (probability and AUC score = ``score``);
- ``respai evaluate, no score``: the same spec without ``probability`` (no AUC, no
  calibration), i.e. the count pass, the rules and the record;
- ``--peers``: ``../shared/bench/scripts/peer_{aequitas,fairlearn,aif360,holisticai}.py``
  in their own virtual environments (``--venv-prefix``, default
  ``/tmp/respai-bench-venv-``); a peer without its environment is reported as not run;
- ``--spark``: ``evaluate_fairness(spec, spark_df)`` on a local Spark session;
- ``respai --help`` start-up time;
- ``--cpus C [C ...]``: every command again on the first ``C`` cores (``taskset``), once
  per count, labelled ``[cpus=C]``: whether respai's ratio to the floor grows with the
  cores (the floor's GROUP BY and sort parallelise; a Python fold does not);
- ``--small``: a small file (the public COMPAS export, 7,214 rows, when
  ``../shared/data/compas/`` holds it, else a generated CSV of as many rows): ``respai
  fairness`` and ``respai evaluate`` against the floor ``python -c "import duckdb; <one
  GROUP BY>"`` (``floor.py --columns=...``), where start-up and rendering dominate; the
  three run in interleaved rounds (floor, fairness, evaluate, then again), so a change in
  a shared machine's load between runs of a sub-second command hits all three alike;
- ``--many G [G ...]``: ``respai evaluate`` on a spec with one attribute of ``G``
  declared values (5 cases per value, a rule and the battery over it), against its
  GROUP BY floor: the cost per group.

Each goal of ``docs/benchmarks.md`` is a ratio against the floor measured in the same
invocation (``report.py`` prints the goals table).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

#: Peer scripts of ``../shared/bench/scripts`` and their run counts (``None``: ``--runs``;
#: the slow ones run once). Each runs in ``<venv-prefix><name>`` when that exists.
PEERS: list[tuple[str, int | None]] = [
    ("aequitas", None),
    ("fairlearn", 1),
    ("aif360", 1),
    ("holisticai", 1),
]

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
PY = sys.executable
RESPAI = str(Path(PY).with_name("respai"))
SHARED = ROOT.parent / "shared" / "bench" / "scripts"

sys.path.insert(0, str(HERE))
from gen_data import generate  # noqa: E402

# --- running one command --------------------------------------------------------------


def _tree_rss_kb(root: int) -> int:
    """Resident memory of ``root`` and all its descendants (kB), from /proc."""
    children: dict[int, list[int]] = {}
    rss: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as fh:
                fields = fh.read().rsplit(")", 1)[1].split()
            ppid, pages = int(fields[1]), int(fields[21])
        except (OSError, IndexError, ValueError):
            continue
        pid = int(entry)
        children.setdefault(ppid, []).append(pid)
        rss[pid] = pages * (os.sysconf("SC_PAGE_SIZE") // 1024)
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        total += rss.get(pid, 0)
        todo.extend(children.get(pid, []))
    return total


def run_once(
    cmd: list[str], timeout: float, cap_mb: float, env: dict[str, str] | None = None
) -> dict[str, Any]:
    """Run ``cmd`` under /usr/bin/time -v; stop it over ``cap_mb`` or ``timeout``."""
    with tempfile.TemporaryFile("w+") as err, tempfile.TemporaryFile("w+") as out:
        t0 = time.perf_counter()
        p = subprocess.Popen(
            ["/usr/bin/time", "-v", *cmd], stdout=out, stderr=err, env=env, start_new_session=True
        )
        stopped = None
        peak_seen = 0
        while p.poll() is None:
            time.sleep(0.2)
            kb = _tree_rss_kb(p.pid)
            peak_seen = max(peak_seen, kb)
            elapsed = time.perf_counter() - t0
            if kb > cap_mb * 1024:
                stopped = (
                    f"stopped at {kb / 1024:,.0f} MB (cap {cap_mb:,.0f} MB) after {elapsed:.0f} s"
                )
            elif elapsed > timeout:
                stopped = f"stopped after {timeout:.0f} s (time limit)"
            if stopped:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
                break
        wall_outer = time.perf_counter() - t0
        err.seek(0)
        out.seek(0)
        stderr, stdout = err.read(), out.read()
    row: dict[str, Any] = {"rc": p.returncode}
    if stopped:
        row.update(error=stopped, wall_s=round(wall_outer, 2), peak_rss_mb=round(peak_seen / 1024))
        return row
    wall = re.search(
        r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)", stderr
    )
    rss = re.search(r"Maximum resident set size \(kbytes\): (\d+)", stderr)
    if wall and rss:
        h, m, s = wall.groups()
        row["wall_s"] = round(int(h or 0) * 3600 + int(m) * 60 + float(s), 3)
        # time -v reports the largest single process; the tree total we polled is >= it
        row["peak_rss_mb"] = round(max(int(rss.group(1)), peak_seen) / 1024)
    else:
        row["wall_s"] = round(wall_outer, 3)
        row["peak_rss_mb"] = round(peak_seen / 1024)
    for line in stdout.splitlines():
        if line.startswith("{"):
            with contextlib.suppress(ValueError):
                row["own"] = json.loads(line)
    if p.returncode not in (0, 1, 3, 4):  # respai's verdict exit codes are not failures
        row["error"] = f"exit code {p.returncode}"
        row["stderr_tail"] = stderr[-800:]
    return row


def measure(
    label: str,
    cmd: list[str],
    runs: int,
    timeout: float,
    cap_mb: float,
    env: dict[str, str] | None = None,
    slow: float = 120.0,
    **meta: Any,
) -> dict[str, Any]:
    rows = []
    for _ in range(runs):
        row = run_once(cmd, timeout, cap_mb, env)
        rows.append(row)
        if "error" in row or row["wall_s"] > slow:
            break  # a failed or very slow command is not repeated
    return summary(label, cmd, rows, **meta)


def measure_interleaved(
    cases: list[tuple[str, list[str], dict[str, Any]]],
    runs: int,
    timeout: float,
    cap_mb: float,
    env: dict[str, str] | None = None,
) -> list[dict[str, Any]]:
    """Each command once per round, ``runs`` rounds: a floor and the commands it is the
    floor of meet the same changes of the machine's load (sub-second commands on a shared
    machine move by tens of percent from one minute to the next). The first case is the
    floor; every other case also gets ``paired_ratio``, the median over the rounds of its
    time over the floor's time in that round."""
    rows: list[list[dict[str, Any]]] = [[] for _ in cases]
    for _ in range(runs):
        for i, (_, cmd, _) in enumerate(cases):
            if not rows[i] or "error" not in rows[i][-1]:
                rows[i].append(run_once(cmd, timeout, cap_mb, env))
    out = [
        summary(label, cmd, got, interleaved=True, **meta)
        for (label, cmd, meta), got in zip(cases, rows, strict=True)
    ]
    # the first case is the floor: each command's time over the floor's in the same round,
    # whose median a change of the machine's load between rounds does not move
    if not cases or cases[0][2].get("role") != "floor":
        return out
    floor = [r.get("wall_s") for r in rows[0]]
    for result, got in zip(out[1:], rows[1:], strict=True):
        pairs = [
            r["wall_s"] / f
            for r, f in zip(got, floor, strict=False)
            if "error" not in r and isinstance(f, float) and f > 0
        ]
        if pairs:
            result["paired_ratio"] = round(statistics.median(pairs), 3)
            print(f"  {result['label']}: {result['paired_ratio']:.2f}x the floor (paired)")
    return out


def summary(label: str, cmd: list[str], rows: list[dict[str, Any]], **meta: Any) -> dict[str, Any]:
    """One command's runs: the medians, every wall time, or the error that stopped it."""
    ok = [r for r in rows if "error" not in r]
    out: dict[str, Any] = {"label": label, "cmd": cmd, "runs": len(rows), "ok": len(ok), **meta}
    if ok:
        out["wall_s"] = statistics.median(r["wall_s"] for r in ok)
        out["wall_s_all"] = [r["wall_s"] for r in ok]
        out["peak_rss_mb"] = statistics.median(r["peak_rss_mb"] for r in ok)
        owns = [r["own"] for r in ok if "own" in r]
        if owns:
            out["own"] = owns[len(owns) // 2]
    else:
        out["error"] = rows[-1].get("error")
        out["wall_s_at_stop"] = rows[-1].get("wall_s")
        out["peak_rss_mb_at_stop"] = rows[-1].get("peak_rss_mb")
        if "stderr_tail" in rows[-1]:
            out["stderr_tail"] = rows[-1]["stderr_tail"]
    shown = (
        f"{out['wall_s']:.2f} s, {out['peak_rss_mb']:,.0f} MB" if ok else f"FAILED: {out['error']}"
    )
    print(f"  {label}: {shown}", flush=True)
    return out


# --- the benchmark ----------------------------------------------------------------------


def write_specs(data: Path, n: int, fmt: str, path: Path) -> dict[str, Path]:
    template = (HERE / "spec.yaml").read_text(encoding="utf-8")
    full = template.replace("cases: CASES", f"cases: {path}")
    noscore = "\n".join(
        ln for ln in full.splitlines() if not ln.strip().startswith("probability:")
    )
    out = {}
    for name, text in (("full", full), ("noscore", noscore + "\n")):
        spec = data / f"spec_{n}_{fmt}_{name}.yaml"
        spec.write_text(text, encoding="utf-8")
        out[name] = spec
    return out


# --- the small-file and many-groups cases --------------------------------------------

COMPAS = ROOT.parent / "shared" / "data" / "compas" / "compas-scores-two-years.csv"
SMALL_ROWS = 7_214

SMALL_SPEC = """\
system: {{name: small-file, version: "1"}}
fairness:
  name: small-file
  cases: {cases}
  label: {label}
  prediction: prediction
  probability: {prob}
  attributes:
{attributes}
  intersections:
    - [{first}, {second}]
  rules:
    - {{id: sel-{second}, rate: selection, attribute: {second}, max_group_gap: 0.10}}
    - {{id: fnr-{first}, rate: false_negative, attribute: {first}, max_group_gap: 0.10}}
evaluation:
  tests: [accuracy, auc, impact_ratio, selection_rate_diff, equal_opportunity_diff,
          completeness, class_balance]
  score: {prob}
  seed: 1
"""


def small_case(data: Path) -> tuple[Path, Path, list[str], str, str]:
    """The small file, its spec, the floor's columns, its score column and its name.

    COMPAS when the shared data folder holds it: its header names two columns twice
    (the second of each is renamed ``<name>_2``), and ``prediction`` (decile score >= 5)
    and ``prob`` (decile / 10) are added. Otherwise 7,214 generated rows.
    """
    import csv

    if COMPAS.is_file():
        path = data / "compas.csv"
        if not path.exists():
            with (
                COMPAS.open(newline="", encoding="utf-8") as fh,
                path.open("w", newline="", encoding="utf-8") as out,
            ):
                reader = csv.reader(fh)
                header, seen = [], set()
                for name in next(reader):
                    header.append(f"{name}_2" if name in seen else name)
                    seen.add(name)
                writer = csv.writer(out, lineterminator="\n")
                writer.writerow([*header, "prediction", "prob"])
                decile = header.index("decile_score")
                for row in reader:
                    d = int(row[decile])
                    writer.writerow([*row, int(d >= 5), d / 10])
        attributes = (
            "    sex: [Male, Female]\n"
            "    race: [African-American, Caucasian, Hispanic, Other, Asian, Native American]\n"
            "    age_cat: [Less than 25, 25 - 45, Greater than 45]"
        )
        text = SMALL_SPEC.format(
            cases=path,
            label="two_year_recid",
            prob="prob",
            attributes=attributes,
            first="sex",
            second="race",
        )
        columns = ["sex", "race", "age_cat", "two_year_recid", "prediction"]
        name, prob = "COMPAS", "prob"
    else:
        path = generate(SMALL_ROWS, data, ("csv",))["csv"]
        attributes = (
            "    sex: [female, male]\n"
            "    race: [Hispanic or Latino, White, Black or African American, Native Hawaiian "
            "or Other Pacific Islander, Asian, American Indian or Alaska Native, Two or More "
            "Races]\n"
            "    age_band: [under_30, 30_to_60, over_60]"
        )
        text = SMALL_SPEC.format(
            cases=path,
            label="label",
            prob="score",
            attributes=attributes,
            first="sex",
            second="race",
        )
        columns = ["label", "prediction", "sex", "race", "age_band"]
        name, prob = f"generated {SMALL_ROWS:,} rows", "score"
    spec = data / "spec_small.yaml"
    spec.write_text(text, encoding="utf-8")
    return path, spec, columns, prob, name


def many_case(data: Path, groups: int) -> tuple[Path, Path]:
    """A CSV of 5 cases per declared value of one attribute, and its spec."""
    import numpy as np

    path = data / f"many_{groups}.csv"
    spec = data / f"spec_many_{groups}.yaml"
    if not path.exists():
        rng = np.random.default_rng(groups)
        n = 5 * groups
        g, y, s = rng.integers(0, groups, n), rng.integers(0, 2, n), rng.random(n)
        with path.open("w", encoding="utf-8") as fh:
            fh.write("store,label,prediction,score\n")
            fh.writelines(
                f"s{a},{b},{int(d > 0.5)},{d:.6f}\n"
                for a, b, d in zip(g.tolist(), y.tolist(), s.tolist(), strict=True)
            )
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


def machine() -> dict[str, Any]:
    info: dict[str, Any] = {
        "nproc": os.cpu_count(),
        "python": platform.python_version(),
        "platform": platform.platform(),
    }
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as fh:
            model = next(
                (ln.split(":", 1)[1].strip() for ln in fh if ln.startswith("model name")), None
            )
        info["cpu"] = model
        with open("/proc/meminfo", encoding="utf-8") as fh:
            kb = int(next(ln for ln in fh if ln.startswith("MemTotal")).split()[1])
        info["memory_gb"] = round(kb / 2**20, 1)
        with open("/proc/loadavg", encoding="utf-8") as fh:
            info["loadavg_at_start"] = fh.read().split()[:3]
    except (OSError, StopIteration):
        pass
    import duckdb

    info["duckdb"] = duckdb.__version__
    try:
        import pyspark

        info["pyspark"] = pyspark.__version__
    except ImportError:
        info["pyspark"] = None
    info["java"] = shutil.which("java")
    return info


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", nargs="*", type=float, default=[1e6, 1e7])
    ap.add_argument("--with-100m", action="store_true", help="also 100M rows (Parquet only)")
    ap.add_argument("--peers", action="store_true", help="run aequitas and fairlearn too")
    ap.add_argument("--spark", action="store_true", help="also evaluate_fairness on Spark")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--data", type=Path, default=Path("/tmp/respai-bench"))
    ap.add_argument("--venv-prefix", default="/tmp/respai-bench-venv-")
    ap.add_argument("--cap-mb", type=float, default=8000, help="memory cap per run (MB)")
    ap.add_argument("--timeout", type=float, default=1800, help="time limit per run (s)")
    ap.add_argument("--skip", nargs="*", default=[], help="labels (prefixes) to skip")
    ap.add_argument("--only", nargs="*", default=[], help="run only these labels (prefixes)")
    ap.add_argument(
        "--slow", type=float, default=120.0, help="a command slower than this (s) runs once"
    )
    ap.add_argument("--formats", nargs="+", default=["parquet", "csv"], choices=["parquet", "csv"])
    ap.add_argument("--label", default="", help="a note kept with this invocation's results")
    ap.add_argument("--small", action="store_true", help="the small-file (COMPAS) case")
    ap.add_argument("--many", nargs="*", type=int, default=[], help="declared values (G)")
    ap.add_argument("--append", action="store_true", help="add to the existing results file")
    ap.add_argument("--results", type=Path, default=HERE / "results.json")
    ap.add_argument(
        "--cpus",
        nargs="*",
        type=int,
        default=[],
        help="run every command on the first C cores (taskset), once per C given",
    )
    a = ap.parse_args()
    if any(c < 1 or c > (os.cpu_count() or 1) for c in a.cpus):
        ap.error(f"--cpus takes counts from 1 to {os.cpu_count()} (this machine's cores)")

    sizes = [int(s) for s in a.sizes] + ([100_000_000] if a.with_100m else [])
    a.data.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    env["RESPAI_HOME"] = str(a.data / "keys")  # a throwaway signing key, not the user's
    results: list[dict[str, Any]] = []
    if a.append and a.results.is_file():
        results = json.loads(a.results.read_text(encoding="utf-8"))["results"]
    run = 1 + max((r.get("run", 0) for r in results), default=0)  # this invocation
    info = machine()
    print(json.dumps(info), flush=True)
    # an installed package runs from compiled bytecode (pip compiles it); with
    # PYTHONDONTWRITEBYTECODE set, a module edited since its last compile would be
    # compiled again at every start and counted in every command's time
    import respai

    subprocess.run([PY, "-m", "compileall", "-q", str(Path(respai.__file__).parent)], check=True)

    def want(label: str) -> bool:
        if a.only and not any(label.startswith(s) for s in a.only):
            return False
        return not any(label.startswith(s) for s in a.skip)

    def add(label: str, cmd: list[str], runs: int | None = None, **meta: Any) -> None:
        if not want(label):
            return
        # --cpus: the same command on the first C cores only (taskset), once per count
        for cpus in a.cpus or [None]:
            pinned = cmd if cpus is None else ["taskset", "-c", f"0-{cpus - 1}", *cmd]
            results.append(
                measure(
                    label if cpus is None else f"{label} [cpus={cpus}]",
                    pinned,
                    runs or a.runs,
                    a.timeout,
                    a.cap_mb,
                    env,
                    a.slow,
                    run=run,
                    note=a.label,
                    **meta,
                    **({} if cpus is None else {"cpus": cpus}),
                )
            )
            a.results.write_text(
                json.dumps({"machine": info, "results": results}, indent=1), encoding="utf-8"
            )

    add("respai --help", [RESPAI, "--help"], runs=max(5, a.runs), n=0, fmt="-")
    if a.small:
        path, spec, columns, prob, name = small_case(a.data)
        meta = {
            "n": SMALL_ROWS,
            "fmt": f"csv, {name}",
            "file_mb": round(path.stat().st_size / 2**20, 1),
        }
        floor = [
            PY,
            str(HERE / "floor.py"),
            str(path),
            f"--columns={','.join(columns)}",
            f"--score={prob}",
        ]
        out = str(a.data / "out_small")
        # interleaved rounds: the ratio of a sub-second command to its floor is what counts
        small = [
            (f"floor small {name}", floor, {"role": "floor", **meta}),
            (
                f"respai fairness small {name}",
                [RESPAI, "fairness", str(spec)],
                {"role": "respai-fairness", **meta},
            ),
            (
                f"respai evaluate small {name}",
                [RESPAI, "evaluate", str(spec), "--no-ledger", "--out", out],
                {"role": "respai-full", **meta},
            ),
        ]
        small = [c for c in small if want(c[0])]
        for cpus in a.cpus or [None]:
            pinned = [
                (
                    label if cpus is None else f"{label} [cpus={cpus}]",
                    cmd if cpus is None else ["taskset", "-c", f"0-{cpus - 1}", *cmd],
                    {**m, "run": run, "note": a.label, **({} if cpus is None else {"cpus": cpus})},
                )
                for label, cmd, m in small
            ]
            results.extend(measure_interleaved(pinned, a.runs, a.timeout, a.cap_mb, env))
            a.results.write_text(
                json.dumps({"machine": info, "results": results}, indent=1), encoding="utf-8"
            )
    for groups in a.many:
        path, spec = many_case(a.data, groups)
        meta = {
            "n": 5 * groups,
            "fmt": f"csv, {groups:,} declared values",
            "groups": groups,
            "file_mb": round(path.stat().st_size / 2**20, 1),
        }
        floor = [PY, str(HERE / "floor.py"), str(path), "--columns=store,label,prediction"]
        out = str(a.data / f"out_many_{groups}")
        add(f"floor many G={groups}", floor, role="floor", **meta)
        add(
            f"respai evaluate many G={groups}",
            [RESPAI, "evaluate", str(spec), "--no-ledger", "--out", out, "--quiet"],
            runs=1,
            role="respai-full",
            **meta,
        )
    for n in sizes:
        formats = ("parquet",) if n >= 100_000_000 else tuple(a.formats)
        t0 = time.perf_counter()
        paths = generate(n, a.data, formats)
        print(f"data {n:,} rows ready ({time.perf_counter() - t0:.0f} s)", flush=True)
        for fmt in formats:
            path = paths[fmt]
            specs = write_specs(a.data, n, fmt, path)
            out = str(a.data / f"out_{n}_{fmt}")
            meta = {"n": n, "fmt": fmt, "file_mb": round(path.stat().st_size / 2**20)}
            add(
                f"floor {fmt} N={n}", [PY, str(HERE / "floor.py"), str(path)], role="floor", **meta
            )
            add(
                f"floor, no score {fmt} N={n}",
                [PY, str(HERE / "floor.py"), str(path), "--no-score"],
                role="floor-noscore",
                **meta,
            )
            add(
                f"floor + sort {fmt} N={n}",
                [PY, str(HERE / "floor.py"), str(path), "--sort"],
                role="floor-sort",
                **meta,
            )
            add(
                f"respai evaluate {fmt} N={n}",
                [RESPAI, "evaluate", str(specs["full"]), "--no-ledger", "--out", out],
                role="respai-full",
                **meta,
            )
            add(
                f"respai evaluate, no score {fmt} N={n}",
                [RESPAI, "evaluate", str(specs["noscore"]), "--no-ledger", "--out", out],
                role="respai-noscore",
                **meta,
            )
            if a.spark and fmt == "parquet":
                add(
                    f"spark evaluate_fairness {fmt} N={n}",
                    [PY, str(HERE / "spark_evaluate.py"), str(specs["noscore"]), str(path)],
                    runs=1,
                    role="spark",
                    **meta,
                )
                add(
                    f"respai evaluate --engine spark, no score {fmt} N={n}",
                    [
                        RESPAI,
                        "evaluate",
                        str(specs["noscore"]),
                        "--engine",
                        "spark",
                        "--no-ledger",
                        "--out",
                        out,
                    ],
                    runs=1,
                    role="respai-spark",
                    **meta,
                )
            if a.peers and fmt == "parquet" and SHARED.is_dir():
                for peer, runs in PEERS:
                    runs = runs or a.runs
                    py = Path(f"{a.venv_prefix}{peer}") / "bin" / "python"
                    script = SHARED / f"peer_{peer}.py"
                    if not py.exists() or not script.exists():
                        print(f"  {peer}: not run ({py} or {script} missing)", flush=True)
                        continue
                    add(
                        f"{peer} {fmt} N={n}",
                        [str(py), str(script), str(path)],
                        runs=runs,
                        role=peer,
                        **meta,
                    )
    print(f"wrote {a.results}; make the table with: {PY} {HERE / 'report.py'}")


if __name__ == "__main__":
    main()
