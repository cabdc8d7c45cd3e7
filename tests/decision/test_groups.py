"""One group's rate (:mod:`respai.decision.groups`): small cells, the worst case, alpha.

The spread with the missing decisions at their worst equals the brute force over every
pair of groups; the small-cell rule is ``n < max(min_cell, 1)``; the run's alpha is the
policy's, else the spec's, else the default.
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from respai import decision, exact
from respai.spec.parsed import Policy
from respai.types import Interval


def _counts(
    draw: st.DrawFn, groups: tuple[int, int], cases: tuple[int, int]
) -> list[tuple[str, int, int, int]]:
    """``(name, cases, events, missing)`` of each drawn group, events and missing within."""
    out = []
    for i in range(draw(st.integers(*groups))):
        n = draw(st.integers(*cases))
        missing = draw(st.integers(min_value=0, max_value=n))
        events = draw(st.integers(min_value=0, max_value=n - missing))
        out.append((f"g{i}", n, events, missing))
    return out


@st.composite
def _rates(draw: st.DrawFn) -> list[decision.GroupRate]:
    """Groups with a case each: (cases, events, missing) on small counts, ties included."""
    return [
        decision.group_rate((name,), n, events, missing, 0.01, 2)
        for name, n, events, missing in _counts(draw, (2, 8), (1, 6))
    ]


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


def test_alpha_the_policy_then_the_spec_then_the_default() -> None:
    from respai.spec import load_spec

    spec = load_spec(Path(decision.__file__).parents[1] / "samples" / "loan_screen.yaml")
    alpha, source = decision.resolve_alpha(spec)
    assert source in {"spec", "default"}
    assert alpha == (spec.fairness.alpha if source == "spec" else 0.05)
    policy = Policy(path=Path("p.yaml"), sha256="ab", alpha=0.01)
    assert decision.resolve_alpha(spec, policy) == (0.01, policy.source)
    assert decision.resolve_alpha(spec, Policy(path=None, sha256=None))[0] == alpha


@st.composite
def _many(draw: st.DrawFn) -> list[decision.GroupRate]:
    """Groups at one alpha share, empty groups (rate ``None``, interval [0, 1]) included."""
    counted = [(("x", name), *c) for name, *c in _counts(draw, (0, 12), (0, 40))]
    return decision.group_rates(counted, draw(st.sampled_from([0.05, 0.001, 1e-7])), 5)


@settings(max_examples=200, deadline=None)
@given(_many())
def test_group_rates_kept_as_columns_read_back_exactly(groups: list[decision.GroupRate]) -> None:
    kept = decision.GroupRates(groups)
    assert list(kept) == groups and len(kept) == len(groups)
    assert kept == groups and kept == tuple(groups) and tuple(groups) == kept
    for i in range(-len(groups), len(groups)):
        assert kept[i] == groups[i]
        assert type(kept[i].cases) is int and type(kept[i].interval.lo) is float
    assert kept[1:3] == groups[1:3]
    if groups:
        assert kept != groups[:-1]
        with pytest.raises(IndexError):
            kept[len(groups)]


def test_kept_rates_are_columns_from_the_threshold_only() -> None:
    few = decision.group_rates([((f"g{i}",), 4, 1, 0) for i in range(3)], 0.01, 2)
    assert isinstance(decision.kept_rates(few), tuple)
    size = decision.groups.KEPT_AS_COLUMNS_MIN
    many = decision.group_rates([((f"g{i}",), 4, i % 4, 0) for i in range(size)], 0.01, 2)
    kept = decision.kept_rates(many)
    assert isinstance(kept, decision.GroupRates) and kept == many
    # intervals of two methods (or levels) are not one column: kept as they are
    mixed = [*many[:-1], decision.group_rate(("z",), 4, 1, 0, 0.02, 2)]
    assert isinstance(decision.kept_rates(mixed), tuple)
    with pytest.raises(ValueError, match="one interval method"):
        decision.GroupRates(mixed)
