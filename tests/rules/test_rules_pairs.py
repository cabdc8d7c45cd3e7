"""The rules' questions over every pair of groups, answered without listing the pairs.

A rule without a reference compares every ordered pair of distinct groups. The rules
answer each question (is some gap above the limit, is every gap within it, the ratio
bounds, is some ratio below the limit, is every ratio at least it) from the groups
sorted by one end; here each answer is checked against the same question asked of the
explicit list of all ``G (G - 1)`` pairs, on random ends that include exact ties with
the limit, so the pairs near the limit (decided exactly) are exercised too.
"""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from respai import exact, rules
from respai.types import Interval

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
    assert rules._some_gap_above(los, his, lo_bound, limit, None) == rules._some_gap_above(
        los, his, lo_bound, limit, every
    )
    assert rules._every_gap_within(his, los, hi_bound, limit, None) == rules._every_gap_within(
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
    assert rules._ratio_bounds(ivs, None) == rules._ratio_bounds(ivs, every)
    assert rules._some_ratio_below(his, los, limit, None, ivs) == rules._some_ratio_below(
        his, los, limit, every, ivs
    )
    assert rules._every_ratio_at_least(los, his, limit, None, ivs) == rules._every_ratio_at_least(
        los, his, limit, every, ivs
    )


@given(st.lists(st.floats(min_value=0, max_value=1), min_size=2, max_size=12))
def test_best_other_is_the_largest_of_the_others(values: list[float]) -> None:
    assert rules._best_other(values) == [
        max(v for k, v in enumerate(values) if k != i) for i in range(len(values))
    ]


def test_pairs_with_a_reference_are_linear() -> None:
    pairs = rules._pairs(5, 2)
    assert pairs is not None
    assert sorted(pairs) == sorted((i, j) for i, j in _every_pair(5) if 2 in (i, j))
    assert rules._pairs(5, None) is None
