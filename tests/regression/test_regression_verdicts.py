"""The regression rules' verdicts: PASS and FAIL only when the intervals prove them."""

from __future__ import annotations

import numpy as np
import pytest
from tests.regression.helpers import block, cases, run_frame

from respai.types import Verdict

GAP = {"id": "gap", "metric": "mean_error", "attribute": "g", "max_group_gap": 1.0}
BOUNDS = {"target": [0, 100], "prediction": [0, 100]}


def test_equal_groups_pass_and_a_shifted_group_fails() -> None:
    """Equal errors pass the gap rule; a group shifted by 5 fails it (t-intervals)."""
    spec = block([GAP], groups=("a", "b"))
    same = run_frame(spec, cases({"a": 2000, "b": 2000}, seed=1, noise=1.0))
    assert same.rules[0].verdict is Verdict.PASS, same.rules[0].reason
    shifted = run_frame(spec, cases({"a": 500, "b": 500}, seed=1, shift={"b": 5.0}))
    assert shifted.rules[0].verdict is Verdict.FAIL
    assert shifted.rules[0].value is not None and shifted.rules[0].value > 4
    assert "differs by more than 1" in shifted.rules[0].reason


def test_worst_group_max_and_min() -> None:
    """worst_group {max} fails when a group's whole interval is above the limit."""
    frame = cases({"a": 800, "b": 800}, seed=2, shift={"b": 3.0}, noise=0.5)
    spec = block(
        [
            {"id": "hi", "metric": "mean_error", "attribute": "g", "worst_group": {"max": 1.0}},
            {"id": "lo", "metric": "mean_error", "attribute": "g", "worst_group": {"min": -1.0}},
        ],
        groups=("a", "b"),
    )
    res = run_frame(spec, frame)
    assert res.rules[0].verdict is Verdict.FAIL and "group b" in res.rules[0].reason
    assert res.rules[1].verdict is Verdict.PASS


def test_a_small_group_cannot_pass_and_never_excuses_a_fail() -> None:
    """A group under min_cell keeps a PASS out; a FAIL proven by large groups stands."""
    spec = block([GAP], groups=("a", "b", "c"), min_cell=30)
    ok = run_frame(spec, cases({"a": 2000, "b": 2000, "c": 5}, seed=3, noise=0.2))
    assert ok.rules[0].verdict is Verdict.INSUFFICIENT_EVIDENCE
    assert ok.rules[0].code == "small_cell" and ok.rules[0].small == ("c",)
    bad = run_frame(spec, cases({"a": 500, "b": 500, "c": 5}, seed=3, shift={"b": 5.0}))
    assert bad.rules[0].verdict is Verdict.FAIL


def test_a_group_with_one_case_or_none() -> None:
    """One case has no t-interval, no case no value: the rule cannot pass."""
    spec = block([GAP], groups=("a", "b", "c"))
    res = run_frame(spec, cases({"a": 300, "b": 1}, seed=4))
    r = res.rules[0]
    assert r.verdict is Verdict.INSUFFICIENT_EVIDENCE
    b, c = r.groups[1], r.groups[2]
    assert b.n == 1 and b.intervals["mean_error"] is None and b.values["mean_error"] is not None
    assert c.n == 0 and c.values["mean_error"] is None


def test_too_many_missing_predictions_cannot_pass() -> None:
    """A group with more than max_missing of its cases without a prediction cannot pass."""
    frame = cases({"a": 2000, "b": 2000}, seed=5, noise=0.2)
    spec = block([GAP], groups=("a", "b"))
    assert run_frame(spec, frame).rules[0].verdict is Verdict.PASS
    frame.loc[frame.index[:100], "p"] = np.nan  # 5% of group a
    r = run_frame(spec, frame).rules[0]
    assert r.verdict is Verdict.INSUFFICIENT_EVIDENCE and r.code == "too_many_missing"
    assert r.over_missing == ("a",) and r.left_out["missing_prediction"] == 100


def test_missing_predictions_counted_at_their_worst_with_bounds() -> None:
    """With bounds, a blanked prediction widens the interval to the range's ends."""
    frame = cases({"a": 3000, "b": 3000}, seed=6, noise=0.5)
    spec = block([{**GAP, "max_group_gap": 3.0}], groups=("a", "b"), bounds=BOUNDS)
    full = run_frame(spec, frame).rules[0]
    frame.loc[frame.index[:30], "p"] = np.nan  # 1% of a: under max_missing
    part = run_frame(spec, frame).rules[0]
    a_full, a_part = full.groups[0].intervals["mean_error"], part.groups[0].intervals["mean_error"]
    assert a_full is not None and a_part is not None
    assert a_part.lo < a_full.lo - 0.5 and a_part.hi > a_full.hi + 0.5
    assert "at their worst" in a_part.method
    assert part.verdict.severity >= full.verdict.severity


def test_blanking_predictions_never_improves_these_verdicts() -> None:
    """For each verdict kind, blanking predictions keeps or worsens it (fixed seeds)."""
    for seed, shift in ((7, 0.0), (8, 4.0), (9, 1.0)):
        frame = cases({"a": 400, "b": 400}, seed=seed, shift={"b": shift}, noise=1.0)
        for bounds in (None, BOUNDS):
            spec = block([{**GAP, "max_group_gap": 2.0}], groups=("a", "b"), bounds=bounds)
            before = run_frame(spec, frame).rules[0].verdict
            rng = np.random.default_rng(seed)
            for share in (0.02, 0.3):
                blank = frame.copy()
                blank.loc[rng.random(len(blank)) < share, "p"] = np.nan
                after = run_frame(spec, blank).rules[0].verdict
                assert after.severity >= before.severity or after is Verdict.INSUFFICIENT_EVIDENCE
                if before is Verdict.FAIL and share <= 0.05:
                    assert after is Verdict.FAIL


def test_undeclared_and_empty_groups_are_left_out_by_reason() -> None:
    """Rows of undeclared or empty group values are counted by reason, not used."""
    frame = cases({"a": 50, "b": 50, "z": 7}, seed=10)
    frame.loc[frame.index[:3], "g"] = None
    res = run_frame(block([GAP], groups=("a", "b")), frame)
    r = res.rules[0]
    assert r.left_out["undeclared_group"] == 7 and r.left_out["empty_group"] == 3
    assert sum(g.rows for g in r.groups) == 97
    assert res.overall.rows == 107


def test_weighted_rules_read_hajek_means() -> None:
    """With weights the rule's value is the gap of weighted means; intervals named so."""
    frame = cases({"a": 600, "b": 600}, seed=11, shift={"b": 2.0})
    frame["w"] = np.where(frame["g"] == "a", 1.0, 3.0)
    frame.loc[frame.index[:10], "w"] = 50.0
    res = run_frame(block([GAP], groups=("a", "b")), frame, weight="w")
    e = frame["p"] - frame["y"]
    means = [np.average(e[frame["g"] == g], weights=frame["w"][frame["g"] == g]) for g in "ab"]
    assert res.rules[0].value == pytest.approx(abs(means[1] - means[0]), rel=1e-9)
    iv = res.rules[0].groups[0].intervals["mean_error"]
    assert iv is not None and iv.method.startswith("weighted t")
    assert res.weights is not None and res.weights["n"] == 1200
    assert res.weights["n_eff"] < 1200
