"""Tests of respai.smallcells against scipy, exact rational arithmetic and brute force."""

from __future__ import annotations

import dataclasses
import math
import subprocess
import sys
import time
from fractions import Fraction
from functools import cache

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy.stats import fisher_exact, hypergeom

from respai.smallcells import (
    _TIE_RTOL,
    GapFinding,
    assess_gap,
    exact_power,
    fisher_lower,
    sample_size_for_power,
)

FAST = settings(max_examples=200, deadline=None)
SLOW = settings(max_examples=80, deadline=None)

# The exact power of the seed example (p1 = 30/120, n1 = 120 against p2 = 36/100,
# n2 = 100, alpha = 0.05), confirmed by the exact-rational brute force below.
SEED_POWER = 0.49021173679877794
SEED_N_FOR_POWER = 255


# --- exact references -----------------------------------------------------------------


@cache
def _cdf_numerators(total: int, selected: int, n1: int) -> tuple[tuple[int, ...], int]:
    """Hypergeometric lower-tail numerators over the common denominator C(total, n1)."""
    running, out = 0, []
    for i in range(n1 + 1):
        running += math.comb(selected, i) * math.comb(total - selected, n1 - i)
        out.append(running)
    return tuple(out), math.comb(total, n1)


def exact_fisher_lower(k1: int, n1: int, k2: int, n2: int) -> Fraction:
    numerators, denominator = _cdf_numerators(n1 + n2, k1 + k2, n1)
    return Fraction(numerators[k1], denominator)


def binom_pmf(k: int, n: int, p: float) -> float:
    return math.comb(n, k) * p**k * (1.0 - p) ** (n - k)


def brute_power(p1: float, n1: int, p2: float, n2: int, alpha: float) -> float:
    """Double loop over every outcome; the test's decision in exact rational arithmetic.

    The rule is :func:`respai.smallcells._rejects`: ``p <= alpha`` with a relative slack
    of ``_TIE_RTOL`` for a p-value that equals alpha but is rounded above it. The slack
    is kept here, so an alpha a hair below an attainable p-value (hypothesis found
    0.49999999999999994 against p = 1/2) is decided the same way.
    """
    level = Fraction(alpha * (1.0 + _TIE_RTOL))
    f1 = [binom_pmf(x, n1, p1) for x in range(n1 + 1)]
    f2 = [binom_pmf(x, n2, p2) for x in range(n2 + 1)]
    total = 0.0
    for x1 in range(n1 + 1):
        for x2 in range(n2 + 1):
            if exact_fisher_lower(x1, n1, x2, n2) <= level:
                total += f1[x1] * f2[x2]
    return total


@st.composite
def two_cells(draw: st.DrawFn, max_n: int = 300) -> tuple[int, int, int, int]:
    """(k1, n1, k2, n2) biased towards empty, zero and full cells."""
    n1 = draw(st.one_of(st.integers(0, 12), st.integers(0, max_n)))
    n2 = draw(st.one_of(st.integers(0, 12), st.integers(0, max_n)))
    k1 = draw(st.one_of(st.sampled_from([0, n1]), st.integers(0, n1)))
    k2 = draw(st.one_of(st.sampled_from([0, n2]), st.integers(0, n2)))
    return k1, n1, k2, n2


rates = st.one_of(st.sampled_from([0.0, 1.0, 0.5, 0.05, 0.95]), st.floats(0.0, 1.0))
alphas = st.one_of(
    st.sampled_from([0.05, 0.01, 0.1, 0.2, 0.5]), st.floats(min_value=0.001, max_value=0.5)
)


# --- fisher_lower ---------------------------------------------------------------------


def test_fisher_lower_reproduces_the_seed() -> None:
    assert round(fisher_lower(30, 120, 36, 100), 4) == 0.0522
    assert round(fisher_lower(18, 70, 36, 100), 4) == 0.1051


@FAST
@given(cells=two_cells())
@example(cells=(0, 0, 0, 0))
@example(cells=(0, 10, 0, 10))
@example(cells=(10, 10, 10, 10))
@example(cells=(0, 10, 10, 10))
@example(cells=(10, 10, 0, 10))
@example(cells=(0, 0, 3, 10))
@example(cells=(4, 10, 0, 0))
@example(cells=(0, 300, 300, 300))
@example(cells=(30, 120, 36, 100))
def test_fisher_lower_matches_scipy_fisher_exact(cells: tuple[int, int, int, int]) -> None:
    k1, n1, k2, n2 = cells
    expected = fisher_exact([[k1, n1 - k1], [k2, n2 - k2]], alternative="less").pvalue
    got = fisher_lower(k1, n1, k2, n2)
    assert 0.0 <= got <= 1.0
    assert math.isclose(got, expected, rel_tol=1e-9, abs_tol=1e-300)


@FAST
@given(cells=two_cells(max_n=60))
def test_fisher_lower_matches_exact_rationals(cells: tuple[int, int, int, int]) -> None:
    k1, n1, k2, n2 = cells
    expected = float(exact_fisher_lower(k1, n1, k2, n2))
    assert math.isclose(fisher_lower(k1, n1, k2, n2), expected, rel_tol=1e-12, abs_tol=1e-300)


@pytest.mark.parametrize(
    "args", [(-1, 5, 0, 5), (6, 5, 0, 5), (0, 5, 6, 5), (0, -1, 0, 5), (0, 5, 0, -2)]
)
def test_fisher_lower_rejects_bad_counts(args: tuple[int, int, int, int]) -> None:
    with pytest.raises(ValueError):
        fisher_lower(*args)


def test_fisher_lower_rejects_non_integers() -> None:
    with pytest.raises(TypeError):
        fisher_lower(1.5, 5, 0, 5)  # type: ignore[arg-type]


# --- exact_power ----------------------------------------------------------------------


def test_exact_power_of_the_seed_example() -> None:
    power = exact_power(30 / 120, 120, 36 / 100, 100)
    assert 0.40 < power < 0.55  # the seed's simulation says "about 47%"
    assert power == pytest.approx(brute_power(30 / 120, 120, 36 / 100, 100, 0.05), abs=1e-12)
    assert power == pytest.approx(SEED_POWER, abs=1e-9)


@SLOW
@given(
    n1=st.integers(0, 40),
    n2=st.integers(0, 40),
    p1=rates,
    p2=rates,
    alpha=alphas,
)
@example(n1=3, n2=3, p1=0.2, p2=0.9, alpha=0.05)  # P = 1/20 exactly is attainable: a tie
@example(n1=40, n2=40, p1=0.0, p2=1.0, alpha=0.05)
@example(n1=1, n2=40, p1=0.5, p2=0.5, alpha=0.5)
@example(n1=1, n2=1, p1=0.0, p2=1.0, alpha=0.49999999999999994)  # alpha a hair below p = 1/2
def test_exact_power_matches_brute_force(
    n1: int, n2: int, p1: float, p2: float, alpha: float
) -> None:
    got = exact_power(p1, n1, p2, n2, alpha)
    assert 0.0 <= got <= 1.0
    assert got == pytest.approx(brute_power(p1, n1, p2, n2, alpha), abs=1e-12)


def test_exact_ties_count_as_rejections() -> None:
    # With n1 = n2 = 3 and three selections, x1 = 0 has p = 1/20 exactly.
    assert exact_fisher_lower(0, 3, 3, 3) == Fraction(1, 20)
    finding = assess_gap(0, 3, 3, 3)
    assert finding.significant
    # Only the outcome (0, 3) rejects at 0.05, so the power is its probability.
    assert exact_power(0.2, 3, 0.9, 3) == pytest.approx(0.8**3 * 0.9**3, rel=1e-12)


def test_exact_power_matches_monte_carlo() -> None:
    rng = np.random.default_rng(20240501)
    draws = 100_000
    x1 = rng.binomial(120, 0.25, size=draws)
    x2 = rng.binomial(100, 0.36, size=draws)
    p = hypergeom.cdf(x1, 220, x1 + x2, 120)
    simulated = float(np.mean(p <= 0.05))
    assert abs(simulated - exact_power(0.25, 120, 0.36, 100)) < 0.01


@SLOW
@given(
    n1=st.integers(1, 400),
    n2=st.integers(1, 400),
    p=rates,
    alpha=alphas,
)
def test_exact_power_under_the_null_is_at_most_alpha(
    n1: int, n2: int, p: float, alpha: float
) -> None:
    assert exact_power(p, n1, p, n2, alpha) <= alpha + 1e-12


def test_exact_power_edges() -> None:
    assert exact_power(0.5, 0, 0.9, 10) == 0.0
    assert exact_power(0.1, 10, 0.9, 0) == 0.0
    assert exact_power(0.0, 10, 1.0, 10) == 1.0
    assert exact_power(1.0, 10, 0.0, 10) == 0.0


def test_exact_power_grows_with_the_gap() -> None:
    values = [exact_power(p1, 200, 0.4, 200) for p1 in (0.4, 0.35, 0.3, 0.25, 0.2)]
    assert values == sorted(values)
    assert values[-1] > 0.95


@pytest.mark.parametrize(
    "args",
    [
        (-0.1, 10, 0.5, 10, 0.05),
        (0.1, 10, 1.5, 10, 0.05),
        (math.nan, 10, 0.5, 10, 0.05),
        (0.1, -1, 0.5, 10, 0.05),
        (0.1, 10, 0.5, 10, 0.0),
        (0.1, 10, 0.5, 10, 1.0),
    ],
)
def test_exact_power_rejects_bad_arguments(args: tuple[float, int, float, int, float]) -> None:
    with pytest.raises(ValueError):
        exact_power(*args)


def test_exact_power_is_fast() -> None:
    exact_power(0.25, 100, 0.36, 100)  # warm the imports
    start = time.perf_counter()
    exact_power(0.25, 2000, 0.27, 2000)
    exact_power(0.05, 1500, 0.07, 2000)
    assert time.perf_counter() - start < 1.0
    start = time.perf_counter()
    value = exact_power(0.25, 10_000, 0.27, 10_000)
    assert time.perf_counter() - start < 5.0
    assert 0.9 < value < 1.0


# --- sample_size_for_power ------------------------------------------------------------


def _power_at(n1: int, p1: float, p2: float, ratio: Fraction) -> float:
    return exact_power(p1, n1, p2, math.ceil(ratio * n1))


def test_sample_size_of_the_seed_example() -> None:
    start = time.perf_counter()
    n = sample_size_for_power(0.25, 0.36, ratio=100 / 120)
    assert time.perf_counter() - start < 2.0
    assert n == SEED_N_FOR_POWER
    ratio = Fraction(100, 120)
    assert _power_at(n, 0.25, 0.36, ratio) >= 0.80
    assert _power_at(n - 1, 0.25, 0.36, ratio) < 0.80
    # the ratio is read exactly: at n1 = 120 it gives n2 = 100, not 101
    assert math.ceil(ratio * 120) == 100


@pytest.mark.parametrize(
    ("p1", "p2", "ratio", "alpha", "power"),
    [
        (0.1, 0.6, 1.0, 0.05, 0.8),
        (0.2, 0.3, 2.5, 0.05, 0.8),
        (0.288, 0.36, 0.5, 0.05, 0.9),
        (0.01, 0.02, 1.0, 0.05, 0.8),
        (0.3, 0.5, 0.3, 0.01, 0.5),
        (0.0, 1.0, 1.0, 0.05, 0.99),
    ],
)
def test_sample_size_sits_on_a_crossing(
    p1: float, p2: float, ratio: float, alpha: float, power: float
) -> None:
    n = sample_size_for_power(p1, p2, ratio=ratio, alpha=alpha, power=power)
    assert n is not None
    cells = Fraction(ratio).limit_denominator(10**6)

    def at(n1: int) -> float:
        return exact_power(p1, n1, p2, math.ceil(cells * n1), alpha)

    assert at(n) >= power
    assert n == 1 or at(n - 1) < power


@pytest.mark.parametrize(("p1", "p2", "ratio"), [(0.1, 0.6, 1.0), (0.2, 0.7, 0.5), (0.3, 0.9, 3)])
def test_sample_size_matches_a_linear_scan_for_small_answers(
    p1: float, p2: float, ratio: float
) -> None:
    cells = Fraction(ratio)
    first = next(n for n in range(1, 500) if _power_at(n, p1, p2, cells) >= 0.8)
    assert sample_size_for_power(p1, p2, ratio=ratio) == first


def test_sample_size_none_without_a_gap_or_within_max_n() -> None:
    assert sample_size_for_power(0.36, 0.25) is None
    assert sample_size_for_power(0.3, 0.3) is None
    assert sample_size_for_power(0.25, 0.36, ratio=100 / 120, max_n=254) is None
    assert sample_size_for_power(0.25, 0.36, ratio=100 / 120, max_n=255) == 255


@pytest.mark.parametrize(
    "kwargs",
    [
        {"ratio": 0.0},
        {"ratio": -1.0},
        {"ratio": math.inf},
        {"alpha": 0.0},
        {"power": 1.0},
        {"max_n": 0},
    ],
)
def test_sample_size_rejects_bad_arguments(kwargs: dict[str, float]) -> None:
    with pytest.raises(ValueError):
        sample_size_for_power(0.2, 0.3, **kwargs)  # type: ignore[arg-type]


# --- assess_gap -----------------------------------------------------------------------

BANNED = ("no disparity", "not significant", "pass", "no evidence", "no significant")


def _check_wording(finding: GapFinding) -> None:
    text = finding.sentence.lower()
    for phrase in BANNED:
        assert phrase not in text, (phrase, finding.sentence)


def test_assess_gap_seed_black_women() -> None:
    f = assess_gap(30, 120, 36, 100)
    assert f.finding == "below_line_underpowered"
    assert f.impact_ratio == pytest.approx(0.25 / 0.36)
    assert round(f.p_value, 4) == 0.0522
    assert not f.significant
    assert f.power == pytest.approx(SEED_POWER, abs=1e-9)
    assert f.n_for_power == SEED_N_FOR_POWER
    assert f.reason is None
    assert "too small to confirm or rule out" in f.sentence
    assert "0.694" in f.sentence
    assert "p = 0.0522" in f.sentence
    assert "49% power" in f.sentence
    assert "255" in f.sentence
    _check_wording(f)


def test_assess_gap_seed_hispanic_women() -> None:
    f = assess_gap(18, 70, 36, 100)
    assert f.finding == "below_line_underpowered"
    assert round(f.p_value, 4) == 0.1051
    assert f.power is not None and f.power < 0.5
    assert f.n_for_power is not None and f.n_for_power > 70
    _check_wording(f)


def test_assess_gap_significant() -> None:
    f = assess_gap(40, 400, 36, 100)
    assert f.finding == "below_line_significant"
    assert f.significant and f.p_value <= 0.05
    assert "p < 0.0001" in f.sentence
    _check_wording(f)


def test_assess_gap_near_and_above_the_line() -> None:
    near = assess_gap(41, 100, 50, 100, margin=0.05)
    assert near.finding == "near_line"
    assert near.impact_ratio == pytest.approx(0.82)
    above = assess_gap(41, 100, 50, 100)
    assert above.finding == "above_line"
    at_line = assess_gap(40, 100, 50, 100)  # exactly 0.8 is not under the line
    assert at_line.impact_ratio == 0.8
    assert at_line.finding == "above_line"
    assert assess_gap(40, 100, 50, 100, margin=0.01).finding == "near_line"
    higher = assess_gap(9, 10, 5, 10)
    assert higher.finding == "above_line"
    assert higher.n_for_power is None
    assert "no gap to size" in higher.sentence
    for f in (near, above, at_line, higher):
        _check_wording(f)


def test_assess_gap_undefined_ratio() -> None:
    no_top = assess_gap(0, 10, 0, 10)
    assert no_top.finding == "ratio_undefined"
    assert no_top.impact_ratio is None
    assert no_top.reason is not None and "no selections" in no_top.reason
    empty = assess_gap(0, 0, 3, 10)
    assert empty.finding == "ratio_undefined"
    assert empty.power is None
    assert empty.reason is not None and "no cases" in empty.reason
    for f in (no_top, empty):
        assert f.n_for_power is None
        _check_wording(f)


def test_assess_gap_unreachable_power_is_said() -> None:
    f = assess_gap(30, 120, 36, 100, max_n=100)
    assert f.n_for_power is None
    assert "even 100 cases" in f.sentence
    _check_wording(f)


def test_gap_finding_is_frozen() -> None:
    f = assess_gap(30, 120, 36, 100)
    with pytest.raises(dataclasses.FrozenInstanceError):
        f.p_value = 0.0  # type: ignore[misc]


@pytest.mark.parametrize(
    "kwargs", [{"alpha": 0.0}, {"power_target": 1.0}, {"line": 0.0}, {"margin": -0.1}]
)
def test_assess_gap_rejects_bad_arguments(kwargs: dict[str, float]) -> None:
    with pytest.raises(ValueError):
        assess_gap(30, 120, 36, 100, **kwargs)  # type: ignore[arg-type]


@settings(max_examples=120, deadline=None)
@given(cells=two_cells(max_n=80), margin=st.sampled_from([0.0, 0.05]))
def test_assess_gap_is_consistent_and_never_reads_as_a_pass(
    cells: tuple[int, int, int, int], margin: float
) -> None:
    k1, n1, k2, n2 = cells
    f = assess_gap(k1, n1, k2, n2, margin=margin, max_n=2_000)
    _check_wording(f)
    assert f.significant == (f.p_value <= 0.05 * (1 + 1e-10))
    assert f.p_value == fisher_lower(k1, n1, k2, n2)
    if f.impact_ratio is None:
        assert f.finding == "ratio_undefined"
        return
    assert f.power == exact_power(k1 / n1, n1, k2 / n2, n2)
    if f.impact_ratio < 0.8:
        expected = "below_line_significant" if f.significant else "below_line_underpowered"
        assert f.finding == expected
    elif f.impact_ratio < 0.8 + margin:
        assert f.finding == "near_line"
    else:
        assert f.finding == "above_line"
    if f.finding == "below_line_underpowered":
        assert "too small to confirm or rule out" in f.sentence
    if f.n_for_power is not None:
        assert f"{f.n_for_power:,}" in f.sentence


# --- module hygiene -------------------------------------------------------------------


def test_import_does_not_load_numpy_or_scipy() -> None:
    code = "import sys, respai.smallcells; print('scipy' in sys.modules, 'numpy' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "False False"


def test_exact_power_with_a_subnormal_rate() -> None:
    # found by hypothesis: SciPy's binomial overflowed on p1 = 2.2e-308
    from respai.smallcells import exact_power

    tiny = exact_power(2.2250738585072014e-308, 4, 0.5, 10)
    assert tiny == exact_power(0.0, 4, 0.5, 10)
