"""Print the AUC interval coverage table of docs/methods/battery.md#auc.

A fixed-seed binormal simulation: positives score N(d, 1), negatives N(0, 1), with
d = sqrt(2) * Phi^-1(AUC), so the true AUC is known. For each size and AUC it draws
``--reps`` samples and reports the share whose 95% interval holds the true AUC, for the
Newcombe score interval the battery uses (``stats.auc_score_interval``) and for the
DeLong interval it used before (``stats.auc_from_rank_sums``). Run:
``python scripts/auc_interval_coverage.py [--reps 4000]``.
"""

from __future__ import annotations

import argparse
import math
from statistics import NormalDist

import numpy as np

from respai import stats

SIZES = ((2, 2), (3, 3), (5, 5), (10, 10), (30, 30), (10, 100), (100, 10))
AUCS = (0.5, 0.7, 0.9, 0.95, 0.99)


def coverage(m: int, n: int, true_auc: float, reps: int) -> tuple[float, float]:
    """(Newcombe, DeLong) coverage of the true AUC over ``reps`` binormal samples."""
    rng = np.random.default_rng([m, n, round(true_auc * 1000)])
    d = math.sqrt(2.0) * NormalDist().inv_cdf(true_auc)
    x = rng.normal(d, 1.0, (reps, m))
    y = rng.normal(0.0, 1.0, (reps, n))
    above = x[:, :, None] > y[:, None, :]
    px = 2 * above.sum(axis=2)  # continuous scores: no ties
    nv = 2 * above.sum(axis=1)
    twice_u = px.sum(axis=1).tolist()
    sx, sv = (px**2).sum(axis=1).tolist(), (nv**2).sum(axis=1).tolist()
    score: dict[int, bool] = {}
    new = old = 0
    for u, a, b in zip(twice_u, sx, sv, strict=True):
        if u not in score:
            iv = stats.auc_score_interval(m, n, u)
            assert iv is not None
            score[u] = iv.lo <= true_auc <= iv.hi
        new += score[u]
        found = stats.auc_from_rank_sums(m, n, u, a, b)
        assert found is not None and found[1] is not None
        old += found[1].lo <= true_auc <= found[1].hi
    return new / reps, old / reps


def main() -> None:
    """Print the table as Markdown."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=4000)
    reps = parser.parse_args().reps
    print("| cases labelled 1 + 0 | " + " | ".join(f"AUC {a}" for a in AUCS) + " |")
    print("|---|" + "---|" * len(AUCS))
    for m, n in SIZES:
        cells = [coverage(m, n, a, reps) for a in AUCS]
        row = " | ".join(f"{new:.1%} ({old:.1%})" for new, old in cells)
        print(f"| {m} + {n} | {row} |")


if __name__ == "__main__":
    main()
