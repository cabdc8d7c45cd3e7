#!/usr/bin/env python3
"""Attribute a py-spy profile of ``respai evaluate`` to the phases of a run.

Usage::

    py-spy record --idle -r 50 --format raw -o prof.raw -- respai evaluate SPEC ...
    python benchmarks/profile_phases.py prof.raw

Each sample's stack is given to the phase of the innermost frame that names one (so
the score pass inside ``load_counts`` is the score pass, not "loading"); the table gives
seconds (samples / rate) and the share of the run.
"""

from __future__ import annotations

import argparse
import re
from collections import Counter

# (phase, pattern on "function (file:line)"); the innermost match wins
PHASES: list[tuple[str, str]] = [
    ("imports", r"^_find_and_load|^<module> \((?!respai:)"),
    ("spec and policy", r"^load_spec |^load_policy "),
    ("open file (DuckDB view, sniff)", r"^open_file \(respai/engine"),
    ("validation scans (duplicate unit, all-null)", r"^duplicate_unit |^all_null "),
    ("count pass (DuckDB GROUP BY)", r"^count_cube \(respai/engine"),
    ("AUC pass: DuckDB sort and Arrow stream", r"^rank_sums \(respai/engine|^fold_stream "),
    ("AUC pass: numpy fold per group", r"^_RankStream\.|^_sum_squares |^_unpacked "),
    ("gate: value checks per cube cell and score row (Python)", r"^_Gate\.|^build_counts "),
    ("AUC pass: code maps (Python, per cube cell)", r"^_rank_sums \(respai/load\.py"),
    (
        "battery: AUC DeLong from rank sums",
        r"^auc_from_rank_sums|^_auc_entry|^auc \(respai/battery",
    ),
    ("battery: other tests", r"^run_battery "),
    ("group rules and tables", r"^run_rules \(respai/fairness.*:1[5-9]\d|^evaluate_rule"),
    ("terminal render", r"^render_evaluation "),
    ("record: build predicate (dicts)", r"^build_predicate |^_counts_dict "),
    ("record: jsonable copy", r"^jsonable |^_jsonable "),
    ("record: JCS canonical check + bytes", r"^canonical_bytes |^_check \(respai/record"),
    ("record: JCS (rfc8785)", r"rfc8785"),
    ("record: sign (Ed25519)", r"^sign |Ed25519|^_sign"),
    ("record: fingerprints (SHA-256 of file, code)", r"fingerprint"),
    ("record: envelope to JSON bytes", r"^envelope_bytes |^dumps |^encode |^iterencode"),
    ("write outputs", r"^write_outputs "),
]
_COMPILED = [(name, re.compile(p)) for name, p in PHASES]


def phase_of(stack: list[str]) -> str:
    for frame in reversed(stack):
        for name, pattern in _COMPILED:
            if pattern.search(frame):
                return name
    return "other"


def summarise(path: str, rate: float) -> list[tuple[str, float, float]]:
    counts: Counter[str] = Counter()
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            line = line.rstrip("\n")
            if not line:
                continue
            stack, _, n = line.rpartition(" ")
            counts[phase_of(stack.split(";"))] += int(n)
    total = sum(counts.values()) or 1
    return [(name, n / rate, 100.0 * n / total) for name, n in counts.most_common()]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("raw", help="py-spy --format raw output")
    ap.add_argument("--rate", type=float, default=50.0, help="py-spy -r (samples per second)")
    a = ap.parse_args()
    rows = summarise(a.raw, a.rate)
    print("| phase | seconds | share |\n|---|---:|---:|")
    for name, s, share in rows:
        print(f"| {name} | {s:.1f} | {share:.0f} % |")


if __name__ == "__main__":
    main()
