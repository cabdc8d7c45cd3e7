"""Bounds from sorted ends equal the brute force over all pairs (:mod:`respai.decision.bounds`).

A rule without a reference compares every ordered pair of distinct groups. The bounds
module answers each question (the gap bounds, is some gap above the limit, is every gap
within it, the ratio bounds, is some ratio below the limit, is every ratio at least it)
from the groups sorted by one end; here each answer is checked against the same question
asked of the explicit list of all ``G (G - 1)`` pairs, on random ends that include exact
ties with the limit, so the pairs near the limit (decided exactly) are exercised too.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from respai import decision, exact
from respai.decision.bounds import _best_other
from respai.types import Interval

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
    assert _best_other(values) == [
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


def _q(b: exact.Bound) -> Fraction:
    found = b.exact()
    assert found is not None
    return found


@settings(max_examples=400, deadline=None)
@given(_groups(), st.integers(min_value=0, max_value=25))
def test_every_question_is_the_exact_answer_over_all_pairs(
    g: tuple[list[exact.Bound], list[exact.Bound], list[Interval]], k: int
) -> None:
    # the truth, in fractions, over every ordered pair of distinct groups: not the
    # module's own paths compared with each other
    los, his, ivs = g
    lo, hi = [_q(b) for b in los], [_q(b) for b in his]
    every = _every_pair(len(ivs))
    limit = Fraction(k, 20)
    lo_bound = max(ivs[i].lo - ivs[j].hi for i, j in every)
    hi_bound = max(ivs[i].hi - ivs[j].lo for i, j in every)
    assert decision.some_gap_above(los, his, lo_bound, limit, None) == any(
        lo[i] - hi[j] > limit for i, j in every
    )
    assert decision.every_gap_within(his, los, hi_bound, limit, None) == all(
        hi[i] - lo[j] <= limit for i, j in every
    )
    ratio = Fraction(max(k, 1), 25)
    assert decision.some_ratio_below(his, los, ratio, None, ivs) == any(
        lo[j] > 0 and hi[i] / lo[j] < ratio for i, j in every
    )
    assert decision.every_ratio_at_least(los, his, ratio, None, ivs) == all(
        lo[i] / hi[j] >= ratio for i, j in every
    )
