"""Intervals of many groups by array calls are the one-group floats, bit for bit.

:func:`respai.stats.widened_intervals` calls scipy's ``betaincinv``/``betainccinv`` once
on arrays; :func:`respai.stats.widened_interval` once per group. On a grid of counts and
alphas (small and large ``n``, ``k`` at 0 and ``n``, missing cases, alpha shares down to
``0.05 / 10**6``) and on generated counts, every end must be the same float, and the
checks must raise the same messages. :func:`respai.decision.group_rates` must equal
:func:`respai.decision.group_rate` group by group. Likewise
:func:`respai.stats.wilson_intervals` (numpy arithmetic, one IEEE operation per step)
against :func:`respai.stats.wilson_interval` (Python floats).
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from respai import decision, stats

ALPHAS = [0.05, 0.05 / 7, 0.025 / 3, 0.05 / 100_000, 0.05 / 10**6, 0.2]


def _grid() -> list[tuple[int, int, int]]:
    return [
        (k, m, n)
        for n in [*range(40), 99, 100, 1000, 12_345, 10**6]
        for k in sorted({0, 1, 2, n // 3, n // 2, n - 2, n - 1, n} & set(range(n + 1)))
        for m in sorted({0, 1, n - k} & set(range(n - k + 1)))
    ]


@pytest.mark.parametrize("alpha", ALPHAS)
def test_grid_is_bit_identical(alpha: float) -> None:
    grid = _grid()
    many = stats.widened_intervals(
        [g[0] for g in grid], [g[1] for g in grid], [g[2] for g in grid], alpha
    )
    for (k, m, n), iv in zip(grid, many, strict=True):
        one = stats.widened_interval(k, m, n, alpha)
        assert (iv.lo, iv.hi, iv.method, iv.confidence) == (
            one.lo,
            one.hi,
            one.method,
            one.confidence,
        ), (k, m, n)


@settings(max_examples=200, deadline=None)
@given(
    counts=st.lists(
        st.tuples(st.integers(0, 5000), st.integers(0, 50), st.integers(0, 5000)), max_size=30
    ),
    alpha=st.floats(1e-9, 0.5),
)
def test_generated_counts_are_bit_identical(
    counts: list[tuple[int, int, int]], alpha: float
) -> None:
    # (decided, missing, events): cases = decided + missing, events <= decided
    groups = [((f"g{i}",), d + m, min(e, d), m) for i, (d, m, e) in enumerate(counts)]
    assert decision.group_rates(groups, alpha, 5) == [
        decision.group_rate(key, cases, events, missing, alpha, 5)
        for key, cases, events, missing in groups
    ]


def test_the_checks_are_the_one_groups() -> None:
    with pytest.raises(ValueError, match="exceed the number of cases"):
        stats.widened_intervals([1, 5], [0, 2], [3, 6], 0.05)
    with pytest.raises(ValueError, match="missing cases must be >= 0"):
        stats.widened_intervals([1], [-1], [3], 0.05)
    with pytest.raises(ValueError, match="alpha must be strictly between"):
        stats.widened_intervals([1], [0], [3], 1.0)
    assert stats.widened_intervals([], [], [], 0.05) == []


@pytest.mark.parametrize("confidence", [0.95, 0.99, 1 - 0.05 / 7, 0.5])
def test_wilson_grid_is_bit_identical(confidence: float) -> None:
    pairs = [(k, n) for k, _, n in _grid()]
    many = stats.wilson_intervals([k for k, _ in pairs], [n for _, n in pairs], confidence)
    assert many == [stats.wilson_interval(k, n, confidence) for k, n in pairs]


@settings(max_examples=200, deadline=None)
@given(
    pairs=st.lists(st.tuples(st.integers(0, 10**7), st.integers(0, 10**7)), max_size=30),
    confidence=st.floats(0.5, 1 - 1e-9),
)
def test_wilson_generated_counts_are_bit_identical(
    pairs: list[tuple[int, int]], confidence: float
) -> None:
    pairs = [(min(a, b), max(a, b)) for a, b in pairs]
    many = stats.wilson_intervals([k for k, _ in pairs], [n for _, n in pairs], confidence)
    assert many == [stats.wilson_interval(k, n, confidence) for k, n in pairs]


def test_wilson_checks_are_the_one_groups() -> None:
    with pytest.raises(ValueError, match="exceeds the number of cases"):
        stats.wilson_intervals([1, 5], [3, 4])
    with pytest.raises(ValueError, match="confidence must be strictly between"):
        stats.wilson_intervals([1], [3], 1.0)
