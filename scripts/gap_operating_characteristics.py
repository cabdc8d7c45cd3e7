"""Print the operating characteristics of a gap rule (docs/methods/group-rules.md).

For ``G`` = 2, 6 and 12 groups with a false negative rate of 0.2 in every group, a
``max_group_gap: 0.05`` rule at alpha 0.05: the fewest labelled-1 cases per group for an
80% chance of PASS under each method, and at that size the chance of a PASS and of a
FAIL with the largest gap exactly at the limit (one group at 0.25). Exact sums over the
binomial counts (``tests/gap_oc.py``), not simulations; ``tests/rules/test_gap_oc.py``
checks them against the engine's verdicts and asserts the published numbers. Run from the
repository root: ``python scripts/gap_operating_characteristics.py`` (about 15 seconds).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests import gap_oc


def main() -> None:
    """Print the table as Markdown."""
    rows = gap_oc.table()
    by = {(g, m): (n, wp, wf) for g, m, n, wp, wf in rows}
    print(
        "| G | simultaneous (default): cases per group | pairwise: cases per group | "
        "pairwise / default | P(PASS) at the limit, default / pairwise | "
        "P(FAIL) at the limit, default / pairwise |"
    )
    print("|---|---:|---:|---:|---|---|")
    for g in gap_oc.GROUPS:
        n_s, wp_s, wf_s = by[(g, "simultaneous")]
        n_p, wp_p, wf_p = by[(g, "pairwise")]
        print(
            f"| {g} | {n_s:,} | {n_p:,} | {n_p / n_s:.2f} | {wp_s:.4f} / {wp_p:.4f} | "
            f"{wf_s:.4f} / {wf_p:.4f} |"
        )


if __name__ == "__main__":
    main()
