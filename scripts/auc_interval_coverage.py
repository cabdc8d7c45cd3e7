"""Print the AUC interval coverage tables of docs/methods/battery.md#auc.

The fixed-seed grid of ``tests/auc_grid.py``: five score shapes (binormal with the
positives spread 1/3, 1 or 3 times as wide as the negatives, bimodal positives, scores
tied into five levels), seven sizes from 10 + 10 to 1,000 + 1,000 and true AUCs from 0.6
to 0.99, each cell ``--reps`` samples (2,000 by default, as the tests). For each cell it
prints the share of samples whose 95% interval holds the true AUC: the interval the
battery reads (``stats.auc_interval``) and, in brackets, Newcombe's score interval alone
(``stats.auc_score_interval``, the interval of engine 0.3.0). Run from the repository
root: ``python scripts/auc_interval_coverage.py [--reps 2000]`` (about five minutes).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests import auc_grid

from respai import stats


def cell(name: str, m: int, n: int, target: float, reps: int) -> tuple[float, float, float, float]:
    """Coverage of the battery's interval and of Newcombe's alone, and their mean widths."""
    true, sums = auc_grid.samples(name, m, n, target, reps)
    new = old = 0
    width = old_width = 0.0
    for u, sx, sv in sums:
        iv = stats.auc_interval(m, n, u, sx, sv)
        score = stats.auc_score_interval(m, n, u)
        assert iv is not None and score is not None
        new += iv.lo <= true <= iv.hi
        old += score.lo <= true <= score.hi
        width += iv.hi - iv.lo
        old_width += score.hi - score.lo
    return new / reps, old / reps, width / reps, old_width / reps


def main() -> None:
    """Print one Markdown table per shape, and the lowest cell."""
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--reps", type=int, default=auc_grid.REPS)
    reps = parser.parse_args().reps
    lowest = (2.0, "")
    head = "| cases labelled 1 + 0 | " + " | ".join(f"AUC {a}" for a in auc_grid.AUCS) + " |"
    rule = "|---|" + "---|" * len(auc_grid.AUCS)
    widths: dict[str, list[str]] = {}
    for name in auc_grid.SHAPES:
        print(f"\n**{name}**\n\n{head}\n{rule}")
        widths[name] = []
        for m, n in auc_grid.SIZES:
            found = [cell(name, m, n, a, reps) for a in auc_grid.AUCS]
            for (new, *_), a in zip(found, auc_grid.AUCS, strict=True):
                lowest = min(lowest, (new, f"{name}, {m} + {n}, AUC {a}"))
            row = " | ".join(f"{new:.1%} ({old:.1%})" for new, old, _, _ in found)
            print(f"| {m} + {n} | {row} |", flush=True)
            row = " | ".join(f"{w:.3f} ({w / v:.2f}x)" for _, _, w, v in found)
            widths[name].append(f"| {m} + {n} | {row} |")
    print(f"\nlowest: {lowest[0]:.3f} ({lowest[1]})")
    print("\nmean width of the battery's interval (and its ratio to Newcombe's)")
    for name in ("binormal 1", "binormal 3"):
        print(f"\n**{name}**\n\n{head}\n{rule}\n" + "\n".join(widths[name]))


if __name__ == "__main__":
    main()
