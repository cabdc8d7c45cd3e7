"""Methods 0.3 in the battery: exact decisions, missing decisions at their worst, small
cells, and simultaneous intervals with the joint coverage they claim.

References are independent of respai: Fractions re-derived from the counts, SciPy's exact
binomial interval, and exact enumeration of the binomial distribution.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace
from fractions import Fraction
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binom, binomtest

from respai.battery import DEFAULT_THRESHOLDS, Decision, Threshold, run_battery
from respai.counts import Cell, Counts, Grouping, Row, build_counts
from respai.stats import wilson_interval
from respai.types import Verdict

#: The estimate rule (a screening verdict) for every test: most tests here check its exact
#: comparisons; the interval rule, the default since engine 0.4.0, has its own tests in
#: test_decision_default.py.
SCREEN = {k: replace(v, decision=Decision.ESTIMATE) for k, v in DEFAULT_THRESHOLDS.items()}

DECISION_TESTS = ["accuracy", "impact_ratio", "selection_rate_diff", "equal_opportunity_diff"]


def counts_of(cells: dict[str, Cell]) -> Counts:
    """Counts with one grouping ``g`` of the given cells (and their sum overall)."""
    keyed = {(k,): c for k, c in cells.items()}
    base = build_counts([], {"g": list(cells)}, [("g",)], None)
    overall = sum(cells.values(), Cell())
    return replace(
        base,
        groupings={("g",): Grouping(("g",), keyed, None, {})},
        overall=overall,
        total=overall.n,
        null_cells={"label": 0, "prediction": overall.missing, "g": 0},
    )


def by_key(counts: Counts, tests: list[str], **kw: Any) -> dict[str, Any]:
    return {r.key: r for r in run_battery(counts, tests, SCREEN, **kw)}


# -- 1. exact decisions at the threshold ---------------------------------------------------


def test_impact_ratio_of_exactly_four_fifths_passes() -> None:
    counts = counts_of({"a": Cell(tp=100, tn=200), "b": Cell(tp=125, tn=175)})
    r = by_key(counts, ["impact_ratio"])["impact_ratio:g"]
    assert (100 / 300) / (125 / 300) < 0.8  # the float reading that failed before
    assert r.verdict is Verdict.PASS
    assert r.value_range.worst == 0.8 and r.value_range.cases_without_decision == 0


def test_equal_opportunity_difference_of_exactly_a_tenth_passes() -> None:
    counts = counts_of({"a": Cell(tp=40, fn=60, tn=50), "b": Cell(tp=30, fn=70, tn=50)})
    r = by_key(counts, ["equal_opportunity_diff"])["equal_opportunity_diff:g"]
    assert 40 / 100 - 30 / 100 > 0.1
    assert r.verdict is Verdict.PASS and r.value == pytest.approx(0.1)


def test_a_threshold_written_in_a_policy_is_the_decimal() -> None:
    # a policy's YAML float 0.75 / 0.1: equal values pass, the next count fails
    counts = counts_of({"a": Cell(tp=75, tn=25), "b": Cell(tp=100)})
    t = {**SCREEN, "impact_ratio": Threshold(">=", 0.75, "policy", Decision.ESTIMATE)}
    (r,) = run_battery(counts, ["impact_ratio"], t)
    assert r.verdict is Verdict.PASS
    counts = counts_of({"a": Cell(tp=74, tn=26), "b": Cell(tp=100)})
    (r,) = run_battery(counts, ["impact_ratio"], t)
    assert r.verdict is Verdict.FAIL


@settings(max_examples=60, deadline=None)
@given(
    cells=st.lists(st.tuples(st.integers(0, 60), st.integers(1, 60)), min_size=2, max_size=4),
    t=st.sampled_from(["0.8", "0.75", "0.5", "0.9"]),
    d=st.sampled_from(["0.1", "0.05", "0.2", "0.25"]),
)
def test_spread_verdicts_agree_with_a_fraction_rederivation(
    cells: list[tuple[int, int]], t: str, d: str
) -> None:
    groups = {f"g{i}": Cell(tp=min(k, n), tn=n - min(k, n)) for i, (k, n) in enumerate(cells)}
    counts = counts_of(groups)
    thresholds = {
        **SCREEN,
        "impact_ratio": Threshold(">=", float(t), "test", Decision.ESTIMATE),
        "selection_rate_diff": Threshold("<=", float(d), "test", Decision.ESTIMATE),
    }
    res = {
        r.test_id: r
        for r in run_battery(
            counts, ["impact_ratio", "selection_rate_diff"], thresholds, min_cell=0
        )
    }
    rates = [Fraction(c.tp, c.n) for c in groups.values()]
    if max(rates) > 0:
        want = Verdict.PASS if min(rates) / max(rates) >= Fraction(t) else Verdict.FAIL
        assert res["impact_ratio"].verdict is want
    want = Verdict.PASS if max(rates) - min(rates) <= Fraction(d) else Verdict.FAIL
    assert res["selection_rate_diff"].verdict is want


def test_completeness_and_class_balance_at_the_threshold_pass() -> None:
    # 2 empty of 100 cells is exactly 0.98; 10 of 100 labelled 1 is exactly 0.10
    counts = replace(
        counts_of({"a": Cell(tp=10, tn=40), "b": Cell(tn=50)}),
        null_cells={"g": 2},  # one column read: 100 cells
    )
    res = by_key(counts, ["completeness", "class_balance"])
    assert res["completeness"].value == pytest.approx(0.98)
    assert res["completeness"].verdict is Verdict.PASS
    assert res["class_balance"].verdict is Verdict.PASS


# -- 3. no passing by abstaining ------------------------------------------------------------


def test_blanking_wrong_predictions_does_not_raise_accuracy() -> None:
    # German-credit-like: 759 of 1000 right; blanking 140 wrong ones left 759/860 = 0.883
    before = counts_of({"a": Cell(tp=400, tn=359, fp=121, fn=120)})
    after = counts_of({"a": Cell(tp=400, tn=359, fp=51, fn=50, missing_pos=70, missing_neg=70)})
    b, a = by_key(before, ["accuracy"])["accuracy"], by_key(after, ["accuracy"])["accuracy"]
    assert b.verdict is Verdict.PASS  # 0.759 >= 0.70
    assert a.value == pytest.approx(759 / 860)
    assert a.value_range.worst == pytest.approx(0.759) and a.value_range.best == pytest.approx(
        0.899
    )
    assert a.interval.lo == pytest.approx(wilson_interval(759, 1000).lo)
    assert a.interval.hi == pytest.approx(wilson_interval(899, 1000).hi)
    strict = {**SCREEN, "accuracy": Threshold(">=", 0.8, "test", Decision.ESTIMATE)}
    assert run_battery(before, ["accuracy"], strict)[0].verdict is Verdict.FAIL
    assert run_battery(after, ["accuracy"], strict)[0].verdict is Verdict.FAIL


def test_missing_decisions_is_a_test_of_its_own() -> None:
    at = counts_of({"a": Cell(tp=49, tn=49, missing_pos=1, missing_neg=1)})  # 2/100
    over = counts_of({"a": Cell(tp=49, tn=48, missing_pos=2, missing_neg=1)})  # 3/100
    (r,) = run_battery(at, ["missing_decisions"], SCREEN)
    assert r.verdict is Verdict.PASS and r.value == pytest.approx(0.02)
    assert r.details == {
        "cases": 100,
        "without_decision": 2,
        "without_decision_label_1": 1,
        "without_decision_label_0": 1,
    }
    iv = wilson_interval(2, 100)
    assert (r.interval.lo, r.interval.hi) == (iv.lo, iv.hi)
    (r,) = run_battery(over, ["missing_decisions"], SCREEN)
    assert r.verdict is Verdict.FAIL
    assert DEFAULT_THRESHOLDS["missing_decisions"].comparison == "<="


def _cube(y: np.ndarray, p: np.ndarray, g: np.ndarray) -> list[Row]:
    cube = Counter(zip(g.tolist(), y.tolist(), p.tolist(), strict=True))
    return [Row((gg,), (None,), yy, pp, None, n) for (gg, yy, pp), n in cube.items()]


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(40, 400),
    share=st.floats(0.0, 1.0),
    min_cell=st.sampled_from([0, 5, 30]),
    decision=st.sampled_from(list(Decision)),
)
def test_blanking_wrong_predictions_never_turns_a_verdict_into_a_pass(
    seed: int, n: int, share: float, min_cell: int, decision: Decision
) -> None:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    p = np.where(rng.random(n) < 0.7, y, 1 - y).astype(object)
    g = rng.choice(["a", "b", "c"], n)
    wrong = np.flatnonzero(p != y)
    blank = wrong[rng.random(len(wrong)) < share]
    q = p.copy()
    q[blank] = None
    attrs = {"g": ["a", "b", "c"]}
    thresholds = {k: replace(v, decision=decision) for k, v in SCREEN.items()}
    tests = [*DECISION_TESTS, "missing_decisions"]
    runs = []
    for preds in (p, q):
        counts = build_counts(_cube(y, preds, g), attrs, [("g",)], None)
        counts = replace(counts, null_cells={"prediction": counts.overall.missing})
        runs.append({r.key: r for r in run_battery(counts, tests, thresholds, min_cell=min_cell)})
    before, after = runs
    for key, r in after.items():
        if r.verdict is Verdict.PASS:
            assert before[key].verdict is Verdict.PASS, (key, before[key].reason, r.reason)
        if before[key].value_range is not None and r.value_range is not None:
            if key.startswith(("accuracy", "impact_ratio")):
                assert r.value_range.worst <= before[key].value_range.worst + 1e-12
            else:
                assert r.value_range.worst >= before[key].value_range.worst - 1e-12


def test_worst_case_of_a_ratio_counts_missing_decisions_against_it() -> None:
    # a: 50/100 selected + 10 undecided; b: 60/100. Worst: 50/110 over 60/100 (b has none)
    counts = counts_of({"a": Cell(tp=50, tn=50, missing_pos=10), "b": Cell(tp=60, tn=40)})
    r = by_key(counts, ["impact_ratio", "selection_rate_diff"], min_cell=0)
    ratio, diff = r["impact_ratio:g"], r["selection_rate_diff:g"]
    assert ratio.value == pytest.approx(0.5 / 0.6)
    assert ratio.value_range.worst == pytest.approx(float(Fraction(50, 110) / Fraction(60, 100)))
    # at best all 10 undecided cases are selected: 60/110 over 60/100
    assert ratio.value_range.best == pytest.approx(float(Fraction(60, 110) / Fraction(60, 100)))
    assert ratio.verdict is Verdict.FAIL  # 0.758 < 0.8, though 0.833 over decided cases
    assert diff.value_range.worst == pytest.approx(0.6 - 50 / 110)
    rows = ratio.details["groups"]
    assert rows[0]["missing_decisions"] == 10
    assert rows[0]["rate_range"] == {"lo": 50 / 110, "hi": 60 / 110}


# -- 5. small cells --------------------------------------------------------------------------


def test_a_small_cell_is_shown_and_flagged_and_cannot_fail_the_test_alone() -> None:
    # the 0/2 cell of the COMPAS sex x race table gave an impact ratio of 0
    cells = {"a": Cell(tp=40, tn=60), "b": Cell(tp=42, tn=58), "c": Cell(tn=2)}
    res = by_key(counts_of(cells), ["impact_ratio"], min_cell=30)["impact_ratio:g"]
    assert res.value == 0.0
    assert res.verdict is Verdict.INSUFFICIENT_EVIDENCE
    assert res.details["small_cells"] == ["c"] and res.details["min_cell"] == 30
    assert [row["small_cell"] for row in res.details["groups"]] == [False, False, True]
    assert "min_cell" in res.reason and "rests on them" in res.reason


def test_a_small_cell_cannot_decide_a_pass() -> None:
    cells = {"a": Cell(tp=40, tn=60), "b": Cell(tp=42, tn=58), "c": Cell(tp=1, tn=1)}
    res = by_key(counts_of(cells), ["impact_ratio"], min_cell=30)["impact_ratio:g"]
    assert res.value == pytest.approx(0.4 / 0.5)
    assert res.verdict is Verdict.INSUFFICIENT_EVIDENCE
    assert by_key(counts_of(cells), ["impact_ratio"], min_cell=2)["impact_ratio:g"].verdict is (
        Verdict.PASS
    )


def test_a_failure_of_the_large_groups_stands_beside_a_small_cell() -> None:
    cells = {"a": Cell(tp=20, tn=80), "b": Cell(tp=60, tn=40), "c": Cell(tn=2)}
    res = by_key(counts_of(cells), ["impact_ratio"], min_cell=30)["impact_ratio:g"]
    assert res.verdict is Verdict.FAIL
    assert "fail on their own" in res.reason


# -- 6. simultaneous intervals ---------------------------------------------------------------


def test_simultaneous_intervals_are_clopper_pearson_at_the_bonferroni_share() -> None:
    cells = {"a": Cell(tp=3, tn=7), "b": Cell(tp=6, tn=4), "c": Cell(tp=0, tn=10)}
    (res,) = run_battery(counts_of(cells), ["selection_rate_diff"], SCREEN)
    for row, cell in zip(res.details["groups"], cells.values(), strict=True):
        ref = binomtest(cell.tp, cell.n).proportion_ci(1 - 0.05 / 3, method="exact")
        iv = row["interval_simultaneous"]
        assert iv["method"] == "clopper-pearson"
        assert iv["confidence"] == pytest.approx(1 - 0.05 / 3)
        assert (iv["lo"], iv["hi"]) == (pytest.approx(ref.low, abs=1e-12), pytest.approx(ref.high))
    assert res.interval.confidence == 0.95
    assert "Clopper-Pearson" in res.interval.method


def _coverage(n: int, p: float, alpha: float) -> float:
    """P(the interval of k ~ Binomial(n, p) covers p), by exact enumeration over k."""
    counts = counts_of({"a": Cell(tp=0, tn=n), "b": Cell(tp=0, tn=n)})
    covered = 0.0
    for k in range(n + 1):
        cells = {"a": Cell(tp=k, tn=n - k), "b": Cell(tp=0, tn=n)}
        counts = counts_of(cells)
        (res,) = run_battery(counts, ["selection_rate_diff"], SCREEN, alpha)
        iv = res.details["groups"][0]["interval_simultaneous"]
        if iv["lo"] <= p <= iv["hi"]:
            covered += float(binom.pmf(k, n, p))
    return covered


@pytest.mark.parametrize("n", [10, 25])
def test_joint_coverage_of_two_groups_is_at_least_the_stated_level(n: int) -> None:
    # two independent groups: joint coverage is the product of the two coverages
    for p in (0.014, 0.05, 0.2, 0.5, 0.77, 0.95):
        single = _coverage(n, p, 0.05)
        assert single >= 1 - 0.05 / 2 - 1e-12, (n, p, single)
        assert single * single >= 0.95, (n, p)
    # the Wilson intervals the battery used before did not: 0.754 at n = 10, p = 0.014
    wilson = sum(
        binom.pmf(k, 10, 0.014)
        for k in range(11)
        if (iv := wilson_interval(k, 10, 0.975)) and iv.lo <= 0.014 <= iv.hi
    )
    assert wilson**2 < 0.95


def test_a_float_value_of_one_division_is_read_as_its_decimal() -> None:
    # the AUC and perturbation stability reach the decision as floats: 7/10 is 0.7
    from respai.battery import decide

    t = Threshold(">=", 0.7, "test", Decision.ESTIMATE)
    assert Fraction(7 / 10) < Fraction(7, 10)
    assert decide(7 / 10, None, t)[0] is Verdict.PASS
    assert decide(0.6999999999999999, None, t)[0] is Verdict.FAIL
    assert decide(Fraction(7, 10), None, t)[0] is Verdict.PASS
