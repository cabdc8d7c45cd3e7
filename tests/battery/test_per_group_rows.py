"""A grouping of more than 1,000 groups: the battery computes no per-group rows.

Its record writes the counts as columns (``respai.record.compact``) and derives each
group's row from them, so the battery leaves ``groups`` (spread tests) and the AUC's
``per_group`` empty there. Everything else of the result (value, interval, verdict,
bounds, worst groups, reasons) must be what the battery gives with the rows computed.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from respai import battery
from respai.counts import RankSums, Row, build_counts
from respai.record.compact import COMPACT_MIN_GROUPS


def test_the_limit_is_the_records() -> None:
    assert battery.PER_GROUP_ROWS_MAX == COMPACT_MIN_GROUPS


def _counts(groups: int) -> object:
    rng = np.random.default_rng(3)
    names = [f"s{i}" for i in range(groups)]
    rows = [
        Row((names[g],), (None,), y, p, None, int(n))
        for g in range(groups)
        for y in (0, 1)
        for p in (0, 1, None)
        if (n := rng.integers(0, 12))
    ]
    counts = build_counts(rows, {"store": names}, [("store",)], None)
    ranks = {
        (name,): RankSums(10, 10, 100, 1400, 1400) for name in names
    }  # AUC 0.5 in every group
    return dataclasses.replace(
        counts, overall_ranks=RankSums(10, 10, 100, 1400, 1400), ranks={("store",): ranks}
    )


def test_results_are_the_same_without_rows(monkeypatch: pytest.MonkeyPatch) -> None:
    counts = _counts(COMPACT_MIN_GROUPS + 1)
    tests = ["auc", "impact_ratio", "selection_rate_diff", "equal_opportunity_diff"]
    lean = battery.run_battery(counts, tests, battery.DEFAULT_THRESHOLDS)  # type: ignore[arg-type]
    monkeypatch.setattr(battery, "PER_GROUP_ROWS_MAX", 10**9)
    full = battery.run_battery(counts, tests, battery.DEFAULT_THRESHOLDS)  # type: ignore[arg-type]
    assert len(lean) == len(full)
    for a, b in zip(lean, full, strict=True):
        da, db = dict(a.details), dict(b.details)
        if "groups" in db:
            assert da.pop("groups") == [] and len(db.pop("groups")) == COMPACT_MIN_GROUPS + 1
        if "per_group" in db:
            assert da.pop("per_group") == {"store": []}
            assert len(db.pop("per_group")["store"]) == COMPACT_MIN_GROUPS + 1
        assert da == db
        assert dataclasses.replace(a, details={}) == dataclasses.replace(b, details={})


def test_small_groupings_keep_their_rows() -> None:
    counts = _counts(5)
    (r,) = battery.run_battery(counts, ["impact_ratio"], battery.DEFAULT_THRESHOLDS)  # type: ignore[arg-type]
    assert len(r.details["groups"]) == 5
