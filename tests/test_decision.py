"""The one decision module: bounds from sorted ends equal the brute force over all pairs.

A rule without a reference compares every ordered pair of distinct groups.
:mod:`respai.decision` answers each question (the gap bounds, is some gap above the
limit, is every gap within it, the ratio bounds, is some ratio below the limit, is every
ratio at least it, the spread with the missing decisions at their worst) from the groups
sorted by one end; here each answer is checked against the same question asked of the
explicit list of all ``G (G - 1)`` pairs, on random ends that include exact ties with
the limit, so the pairs near the limit (decided exactly) are exercised too. Then the
small-cell rule, the verdict table and the alpha every block reads.
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from respai import decision, exact
from respai.spec.model import Policy
from respai.types import Interval, Verdict

# ends on a grid of twentieths, so a difference or quotient often equals the limit exactly
_end = st.integers(min_value=0, max_value=20).map(lambda k: Fraction(k, 20))


@st.composite
def _groups(draw: st.DrawFn) -> tuple[list[exact.Bound], list[exact.Bound], list[Interval]]:
    n = draw(st.integers(min_value=2, max_value=9))
    los: list[exact.Bound] = []
    his: list[exact.Bound] = []
    ivs: list[Interval] = []
    for _ in range(n):
        a, b = sorted((draw(_end), draw(_end)))
        b = max(b, Fraction(1, 20))  # an upper end is above 0 (a group has a case)
        los.append(exact.Exact(a))
        his.append(exact.Exact(b))
        ivs.append(Interval(float(a), float(b), "clopper-pearson", 0.95))
    return los, his, ivs


def _every_pair(n: int) -> list[tuple[int, int]]:
    return [(i, j) for i in range(n) for j in range(n) if i != j]


@settings(max_examples=300, deadline=None)
@given(_groups(), st.integers(min_value=0, max_value=20))
def test_gap_questions_match_the_listed_pairs(
    g: tuple[list[exact.Bound], list[exact.Bound], list[Interval]], k: int
) -> None:
    los, his, ivs = g
    limit = Fraction(k, 20)
    every = _every_pair(len(ivs))
    lo_bound = max(ivs[i].lo - ivs[j].hi for i, j in every)
    hi_bound = max(ivs[i].hi - ivs[j].lo for i, j in every)
    assert decision.some_gap_above(los, his, lo_bound, limit, None) == decision.some_gap_above(
        los, his, lo_bound, limit, every
    )
    assert decision.every_gap_within(his, los, hi_bound, limit, None) == decision.every_gap_within(
        his, los, hi_bound, limit, every
    )


@settings(max_examples=300, deadline=None)
@given(_groups(), st.integers(min_value=1, max_value=25))
def test_ratio_questions_match_the_listed_pairs(
    g: tuple[list[exact.Bound], list[exact.Bound], list[Interval]], k: int
) -> None:
    los, his, ivs = g
    limit = Fraction(k, 25)
    every = _every_pair(len(ivs))
    assert decision.ratio_bounds(ivs, None) == decision.ratio_bounds(ivs, every)
    assert decision.some_ratio_below(his, los, limit, None, ivs) == decision.some_ratio_below(
        his, los, limit, every, ivs
    )
    assert decision.every_ratio_at_least(
        los, his, limit, None, ivs
    ) == decision.every_ratio_at_least(los, his, limit, every, ivs)


@given(st.lists(st.floats(min_value=0, max_value=1), min_size=2, max_size=12))
def test_best_other_is_the_largest_of_the_others(values: list[float]) -> None:
    assert decision._best_other(values) == [
        max(v for k, v in enumerate(values) if k != i) for i in range(len(values))
    ]


def test_pairs_with_a_reference_are_linear() -> None:
    pairs = decision.pairs_for(5, 2)
    assert pairs is not None
    assert sorted(pairs) == sorted((i, j) for i, j in _every_pair(5) if 2 in (i, j))
    assert decision.pairs_for(5, None) is None
    assert decision.reference_gap_bounds([Interval(0.5, 0.75, "wilson", 0.95)] * 2, [(0, 1)]) == (
        -0.25,
        0.25,
    )


# --- the largest gap over distinct groups ---------------------------------------------


def brute_force_max_gap(intervals: list[Interval]) -> tuple[float, float]:
    pairs = list(itertools.permutations(intervals, 2))  # ordered pairs of distinct groups
    return (
        max(a.lo - b.hi for a, b in pairs),
        max(a.hi - b.lo for a, b in pairs),
    )


bounds = st.one_of(
    st.sampled_from([0.0, 0.25, 0.5, 0.75, 1.0]),  # ties
    st.floats(min_value=0.0, max_value=1.0, allow_nan=False),
)


@st.composite
def intervals(draw: st.DrawFn) -> Interval:
    a, b = sorted((draw(bounds), draw(bounds)))
    return Interval(a, b, "clopper-pearson", 0.95)


@settings(max_examples=500, deadline=None)
@given(ivs=st.lists(intervals(), min_size=2, max_size=12))
def test_max_gap_bounds_equals_brute_force(ivs: list[Interval]) -> None:
    assert decision.max_gap_bounds(ivs) == brute_force_max_gap(ivs)


@settings(max_examples=300, deadline=None)
@given(ivs=st.lists(intervals(), min_size=2, max_size=12), data=st.data())
def test_max_gap_bounds_when_one_group_holds_both_extremes(
    ivs: list[Interval], data: st.DataObject
) -> None:
    # Force one group to hold both the largest hi and the smallest lo.
    i = data.draw(st.integers(0, len(ivs) - 1))
    ivs[i] = Interval(0.0, 1.0, "clopper-pearson", 0.95)
    assert decision.max_gap_bounds(ivs) == brute_force_max_gap(ivs)


def test_max_gap_bounds_pairs_distinct_groups() -> None:
    wide = Interval(0.0, 1.0, "wilson", 0.95)
    narrow = Interval(0.4, 0.6, "wilson", 0.95)
    # Pairing "wide" with itself would give (0 - 1, 1 - 0) = (-1, 1).
    assert decision.max_gap_bounds([wide, narrow]) == pytest.approx((-0.6, 0.6))
    assert decision.max_gap_bounds([narrow, wide]) == pytest.approx((-0.6, 0.6))
    # Exact ties between distinct groups are legitimate pairs.
    assert decision.max_gap_bounds([wide, wide]) == (-1.0, 1.0)
    a = Interval(0.5, 0.75, "wilson", 0.95)
    b = Interval(0.25, 0.5, "wilson", 0.95)
    assert decision.max_gap_bounds([a, b]) == (0.0, 0.5)


@pytest.mark.parametrize("n", [0, 1])
def test_max_gap_bounds_needs_two_groups(n: int) -> None:
    with pytest.raises(ValueError):
        decision.max_gap_bounds([Interval(0.0, 1.0, "wilson", 0.95)] * n)


# --- the spread with the missing decisions at their worst ------------------------------


@st.composite
def _rates(draw: st.DrawFn) -> list[decision.GroupRate]:
    """Groups with a case each: (cases, events, missing) on small counts, ties included."""
    out = []
    for i in range(draw(st.integers(min_value=2, max_value=8))):
        cases = draw(st.integers(min_value=1, max_value=6))
        missing = draw(st.integers(min_value=0, max_value=cases))
        events = draw(st.integers(min_value=0, max_value=cases - missing))
        out.append(decision.group_rate((f"g{i}",), cases, events, missing, 0.01, 2))
    return out


@settings(max_examples=400, deadline=None)
@given(_rates())
def test_diff_range_equals_brute_force(groups: list[decision.GroupRate]) -> None:
    pairs = list(itertools.permutations(groups, 2))
    worst = max(a.worst_hi - b.worst_lo for a, b in pairs)
    best = max(Fraction(0), max(a.worst_lo - b.worst_hi for a, b in pairs))
    assert decision.diff_range(groups) == (worst, best)


@settings(max_examples=400, deadline=None)
@given(_rates())
def test_ratio_range_equals_brute_force(groups: list[decision.GroupRate]) -> None:
    pairs = list(itertools.permutations(groups, 2))
    worsts = [a.worst_lo / b.worst_hi for a, b in pairs if b.worst_hi > 0]
    found = decision.ratio_range(groups)
    if not worsts:
        assert found is None
        return
    assert found is not None
    assert found[0] == min(Fraction(1), min(worsts))
    if any(g.worst_lo > 0 for g in groups):
        bests = [a.worst_hi / b.worst_lo for a, b in pairs if b.worst_lo > 0]
        assert found[1] == min(Fraction(1), min(bests))


@settings(max_examples=300, deadline=None)
@given(_rates())
def test_spread_bounds_are_the_extreme_ends(groups: list[decision.GroupRate]) -> None:
    los, his = decision.exact_ends(groups, exact.decimal(0.05) / len(groups))
    lo_values, hi_values = [b.value for b in los], [b.value for b in his]
    lo, hi = decision.spread_bounds(los, his, ratio=False)
    assert lo.value == max(0.0, max(lo_values) - min(hi_values))
    assert hi.value == max(hi_values) - min(lo_values)
    if max(hi_values) > 0:
        lo, hi = decision.spread_bounds(los, his, ratio=True)
        assert lo.value == min(lo_values) / max(hi_values)
        top = min(hi_values) / max(lo_values) if max(lo_values) > 0 else 1.0
        assert hi.value == min(1.0, top)


def test_exact_ends_of_an_empty_group_are_0_and_1() -> None:
    g = decision.group_rate(("a",), 0, 0, 0, 0.05, 1)
    assert g.interval == Interval(0.0, 1.0, "clopper-pearson", 0.95)
    los, his = decision.exact_ends([g], Fraction(1, 20))
    assert (los[0].exact(), his[0].exact()) == (Fraction(0), Fraction(1))


# --- small cells, the verdict table, alpha ---------------------------------------------


@given(st.integers(min_value=0, max_value=50), st.integers(min_value=0, max_value=50))
def test_small_means_under_min_cell_and_never_empty(decided: int, min_cell: int) -> None:
    assert decision.is_small(decided, min_cell) == (decided < min_cell or decided == 0)


@given(
    st.integers(min_value=0, max_value=30),
    st.integers(min_value=0, max_value=30),
    st.integers(min_value=0, max_value=10),
)
def test_a_group_is_small_by_its_decided_cases(cases: int, missing: int, min_cell: int) -> None:
    missing = min(missing, cases)
    g = decision.group_rate(("a",), cases, 0, missing, 0.05, min_cell)
    assert g.small == decision.is_small(cases - missing, min_cell)
    assert g.with_prediction == cases - missing


def test_verdict_table_order() -> None:
    every = {"broken": True, "held": True, "small": True, "undefined": True}
    assert decision.verdict_table(left_out=True, **every)[1] == "too_many_left_out"
    assert decision.verdict_table(**every) == (Verdict.FAIL, "threshold_exceeded")
    assert decision.verdict_table(**{**every, "broken": False})[1] == "small_cell"
    assert decision.verdict_table(broken=False, held=True, undefined=True)[1] == "ratio_undefined"
    assert decision.verdict_table(broken=False, held=True) == (Verdict.PASS, "within_threshold")
    assert decision.verdict_table(broken=False, held=False) == (
        Verdict.INSUFFICIENT_EVIDENCE,
        "interval_straddles",
    )


@pytest.mark.parametrize(
    ("verdict", "stands", "expected"),
    [
        (Verdict.PASS, True, Verdict.INSUFFICIENT_EVIDENCE),
        (Verdict.FAIL, True, Verdict.FAIL),
        (Verdict.FAIL, False, Verdict.INSUFFICIENT_EVIDENCE),
        (Verdict.INSUFFICIENT_EVIDENCE, False, Verdict.INSUFFICIENT_EVIDENCE),
    ],
)
def test_a_small_cell_never_passes(verdict: Verdict, stands: bool, expected: Verdict) -> None:
    assert decision.with_small_cells(verdict, fail_stands=stands) is expected


def test_below_line_is_exact() -> None:
    assert decision.below_line(Fraction(100, 300) / Fraction(125, 300), 0.8) is False
    assert decision.below_line(Fraction(79, 100), 0.8) is True
    assert decision.below_line(None, 0.8) is None


def test_alpha_the_policy_then_the_spec_then_the_default() -> None:
    from respai.spec import load_spec

    spec = load_spec(Path(decision.__file__).parent / "samples" / "loan_screen.yaml")
    alpha, source = decision.resolve_alpha(spec)
    assert source in {"spec", "default"}
    assert alpha == (spec.fairness.alpha if source == "spec" else 0.05)
    policy = Policy(path=Path("p.yaml"), sha256="ab", alpha=0.01)
    assert decision.resolve_alpha(spec, policy) == (0.01, policy.source)
    assert decision.resolve_alpha(spec, Policy(path=None, sha256=None))[0] == alpha
