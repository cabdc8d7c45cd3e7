"""Tests of respai.stats against statsmodels, scipy and brute force."""

from __future__ import annotations

import math
import subprocess
import sys
from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy.stats import binomtest
from statsmodels.stats.proportion import proportion_confint

from respai.stats import (
    bonferroni_alpha,
    clopper_pearson_interval,
    expected_calibration_error,
    gap_bounds,
    probability_bin,
    rate,
    widened_interval,
    wilson_interval,
)
from respai.types import Interval

TOL = 1e-9
FAST = settings(max_examples=200, deadline=None)

alphas = st.one_of(
    st.sampled_from([0.05, 0.01, 0.1, 0.05 / 20, 1e-4]),
    st.floats(min_value=1e-6, max_value=0.5, allow_nan=False),
)


@st.composite
def counts(draw: st.DrawFn, max_n: int = 10**6) -> tuple[int, int]:
    """(k, n) with n >= 1, biased towards the edges k = 0, k = n and small n."""
    n = draw(st.one_of(st.integers(1, 20), st.integers(1, max_n)))
    k = draw(st.one_of(st.sampled_from([0, n, 1 if n > 1 else 0]), st.integers(0, n)))
    return k, n


# --- Wilson -------------------------------------------------------------------------------


@FAST
@given(kn=counts(), alpha=alphas)
@example(kn=(0, 1), alpha=0.05)
@example(kn=(1, 1), alpha=0.05)
@example(kn=(0, 10**6), alpha=0.05)
@example(kn=(10**6, 10**6), alpha=1e-6)
def test_wilson_matches_statsmodels(kn: tuple[int, int], alpha: float) -> None:
    k, n = kn
    confidence = 1 - alpha
    iv = wilson_interval(k, n, confidence=confidence)
    assert iv is not None
    lo, hi = proportion_confint(k, n, alpha=1 - confidence, method="wilson")
    assert iv.lo == pytest.approx(lo, abs=TOL)
    assert iv.hi == pytest.approx(hi, abs=TOL)
    assert 0.0 <= iv.lo <= k / n <= iv.hi <= 1.0
    assert iv.method == "wilson"
    assert iv.confidence == confidence


def test_wilson_default_and_empty() -> None:
    iv = wilson_interval(5, 10)
    assert iv is not None
    assert iv.confidence == 0.95
    lo, hi = proportion_confint(5, 10, alpha=0.05, method="wilson")
    assert (iv.lo, iv.hi) == pytest.approx((lo, hi), abs=TOL)
    assert wilson_interval(0, 0) is None
    edge0 = wilson_interval(0, 7)
    edge1 = wilson_interval(7, 7)
    assert edge0 is not None and edge0.lo == 0.0
    assert edge1 is not None and edge1.hi == 1.0


# --- Clopper-Pearson ----------------------------------------------------------------------


@FAST
@given(kn=counts(), alpha=alphas)
@example(kn=(0, 1), alpha=0.05)
@example(kn=(1, 1), alpha=0.05)
@example(kn=(0, 10**6), alpha=1e-6)
@example(kn=(10**6, 10**6), alpha=0.05)
@example(kn=(1, 10**6), alpha=1e-6)
def test_clopper_pearson_matches_statsmodels(kn: tuple[int, int], alpha: float) -> None:
    k, n = kn
    iv = clopper_pearson_interval(k, n, alpha)
    assert iv is not None
    lo, hi = proportion_confint(k, n, alpha=alpha, method="beta")
    assert iv.lo == pytest.approx(lo, abs=TOL)
    assert iv.hi == pytest.approx(hi, abs=TOL)
    assert iv.method == "clopper-pearson"
    assert iv.confidence == 1 - alpha


@settings(max_examples=100, deadline=None)
@given(kn=counts(max_n=10**5), alpha=alphas)
@example(kn=(0, 1), alpha=0.05)
@example(kn=(1, 1), alpha=0.05)
@example(kn=(3, 10**6), alpha=0.01)
def test_clopper_pearson_matches_scipy_binomtest(kn: tuple[int, int], alpha: float) -> None:
    k, n = kn
    iv = clopper_pearson_interval(k, n, alpha)
    assert iv is not None
    ci = binomtest(k, n).proportion_ci(confidence_level=1 - alpha, method="exact")
    assert iv.lo == pytest.approx(ci.low, abs=TOL)
    assert iv.hi == pytest.approx(ci.high, abs=TOL)


@FAST
@given(kn=counts(), a1=alphas, a2=alphas)
def test_clopper_pearson_contains_estimate_and_is_nested(
    kn: tuple[int, int], a1: float, a2: float
) -> None:
    k, n = kn
    small, large = sorted((a1, a2))
    wide = clopper_pearson_interval(k, n, small)
    narrow = clopper_pearson_interval(k, n, large)
    assert wide is not None and narrow is not None
    for iv in (wide, narrow):
        assert 0.0 <= iv.lo <= k / n <= iv.hi <= 1.0
    # A smaller alpha (higher confidence) never gives a narrower interval.
    assert wide.lo <= narrow.lo + 1e-12
    assert narrow.hi <= wide.hi + 1e-12


def test_clopper_pearson_edges() -> None:
    assert clopper_pearson_interval(0, 0, 0.05) is None
    iv0 = clopper_pearson_interval(0, 5, 0.05)
    iv1 = clopper_pearson_interval(5, 5, 0.05)
    assert iv0 is not None and iv0.lo == 0.0 and 0.0 < iv0.hi < 1.0
    assert iv1 is not None and iv1.hi == 1.0 and 0.0 < iv1.lo < 1.0
    # Textbook value: 0 of 5 at 95 % gives an upper bound of 1 - 0.025 ** (1 / 5).
    assert iv0.hi == pytest.approx(1 - 0.025 ** (1 / 5), abs=1e-12)


# --- widened interval ---------------------------------------------------------------------


@st.composite
def widened_counts(draw: st.DrawFn, max_n: int = 2000) -> tuple[int, int, int]:
    """(k, missing, n) with k + missing <= n."""
    n = draw(st.one_of(st.integers(0, 20), st.integers(0, max_n)))
    missing = draw(st.integers(0, min(n, 40)))
    k = draw(st.one_of(st.just(0), st.just(n - missing), st.integers(0, n - missing)))
    return k, missing, n


@FAST
@given(kn=counts(), alpha=alphas)
def test_widened_without_missing_is_clopper_pearson(kn: tuple[int, int], alpha: float) -> None:
    k, n = kn
    assert widened_interval(k, 0, n, alpha) == clopper_pearson_interval(k, n, alpha)


@FAST
@given(kmn=widened_counts(), alpha=alphas)
def test_widened_contains_every_completion(kmn: tuple[int, int, int], alpha: float) -> None:
    k, missing, n = kmn
    iv = widened_interval(k, missing, n, alpha)
    assert iv.method == "clopper-pearson"
    assert iv.confidence == 1 - alpha
    assert 0.0 <= iv.lo <= iv.hi <= 1.0
    if n == 0:
        assert (iv.lo, iv.hi) == (0.0, 1.0)
        return
    for j in range(missing + 1):
        cp = clopper_pearson_interval(k + j, n, alpha)
        assert cp is not None
        assert iv.lo <= cp.lo and cp.hi <= iv.hi
    # The bounds are attained by the two extreme completions.
    first = clopper_pearson_interval(k, n, alpha)
    last = clopper_pearson_interval(k + missing, n, alpha)
    assert first is not None and last is not None
    assert (iv.lo, iv.hi) == (first.lo, last.hi)


@FAST
@given(kmn=widened_counts(), alpha=alphas)
def test_widened_more_missing_never_narrows(kmn: tuple[int, int, int], alpha: float) -> None:
    k, missing, n = kmn
    if k + missing + 1 > n:
        return
    iv = widened_interval(k, missing, n, alpha)
    wider = widened_interval(k, missing + 1, n, alpha)
    assert wider.lo <= iv.lo and iv.hi <= wider.hi


def test_widened_empty_group() -> None:
    assert widened_interval(0, 0, 0, 0.05) == Interval(0.0, 1.0, "clopper-pearson", 0.95)


# --- gaps ---------------------------------------------------------------------------------


def test_gap_bounds() -> None:
    a = Interval(0.5, 0.75, "wilson", 0.95)
    b = Interval(0.25, 0.5, "wilson", 0.95)
    assert gap_bounds(a, b) == (0.0, 0.5)
    assert gap_bounds(b, a) == (-0.5, 0.0)


def test_bonferroni_alpha() -> None:
    assert bonferroni_alpha(0.05, 1) == 0.05
    assert bonferroni_alpha(0.05, 5) == pytest.approx(0.01)


# --- calibration --------------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    size=st.integers(0, 500),
    n_bins=st.integers(1, 20),
    skew=st.sampled_from([1.0, 0.2, 5.0]),
)
def test_ece_matches_direct_numpy(seed: int, size: int, n_bins: int, skew: float) -> None:
    rng = np.random.default_rng(seed)
    p = rng.random(size) ** skew
    p[: size // 10] = rng.choice([0.0, 1.0, 0.5], size=size // 10)  # edges and a midpoint
    y = (rng.random(size) < rng.random(size)).astype(int)

    idx = np.digitize(p, np.arange(1, n_bins) / n_bins)  # [i/B, (i+1)/B), last closed
    assert idx.min(initial=0) >= 0 and idx.max(initial=0) <= n_bins - 1
    bins = [
        (int((idx == b).sum()), int(y[idx == b].sum()), float(p[idx == b].sum()))
        for b in range(n_bins)
    ]
    ece = expected_calibration_error(bins)
    if size == 0:
        assert ece is None
        return

    direct = 0.0
    for b in range(n_bins):
        mask = idx == b
        if mask.any():
            direct += mask.mean() * abs(p[mask].mean() - y[mask].mean())
    assert ece is not None
    assert ece == pytest.approx(direct, abs=1e-12)
    assert 0.0 <= ece <= 1.0


@settings(max_examples=200, deadline=None)
@given(
    p=st.floats(min_value=0.0, max_value=1.0, allow_nan=False),
    n_bins=st.integers(1, 50),
)
def test_probability_bin_matches_digitize_away_from_edges(p: float, n_bins: int) -> None:
    b = probability_bin(p, n_bins)
    assert 0 <= b < n_bins
    # floor(p * B) and a comparison with the rounded edge i / B may disagree only for p
    # within rounding error of an interior edge.
    near_edge = any(abs(p * n_bins - i) < 1e-9 for i in range(1, n_bins))
    if not near_edge:
        assert b == int(np.digitize(p, np.arange(1, n_bins) / n_bins))


def test_probability_bin_convention() -> None:
    assert probability_bin(1.0, 10) == 9
    assert probability_bin(0.1, 10) == 1
    assert probability_bin(0.0, 10) == 0
    assert probability_bin(0.0999, 10) == 0
    assert probability_bin(0.5, 1) == 0


def test_ece_edges() -> None:
    assert expected_calibration_error([]) is None
    assert expected_calibration_error([(0, 0, 0.0), (0, 0, 0.0)]) is None
    assert expected_calibration_error([(4, 2, 2.0)]) == 0.0
    assert expected_calibration_error([(2, 1, 0.5), (0, 0, 0.0), (2, 2, 1.5)]) == 0.25


def test_rate() -> None:
    assert rate(3, 4) == 0.75
    assert rate(0, 5) == 0.0
    assert rate(0, 0) is None


# --- invalid input ------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call",
    [
        lambda: wilson_interval(-1, 5),
        lambda: wilson_interval(1, -5),
        lambda: wilson_interval(6, 5),
        lambda: wilson_interval(1, 5, confidence=0.0),
        lambda: wilson_interval(1, 5, confidence=1.0),
        lambda: wilson_interval(1, 5, confidence=95),
        lambda: wilson_interval(1, 5, confidence=math.nan),
        lambda: wilson_interval(0, 0, confidence=1.5),
        lambda: clopper_pearson_interval(-1, 5, 0.05),
        lambda: clopper_pearson_interval(6, 5, 0.05),
        lambda: clopper_pearson_interval(1, -1, 0.05),
        lambda: clopper_pearson_interval(1, 5, 0.0),
        lambda: clopper_pearson_interval(1, 5, 1.0),
        lambda: clopper_pearson_interval(1, 5, -0.05),
        lambda: widened_interval(1, -1, 5, 0.05),
        lambda: widened_interval(-1, 1, 5, 0.05),
        lambda: widened_interval(3, 3, 5, 0.05),
        lambda: widened_interval(0, 0, -1, 0.05),
        lambda: widened_interval(1, 1, 5, 1.0),
        lambda: widened_interval(0, 0, 0, 0.0),
        lambda: bonferroni_alpha(0.05, 0),
        lambda: bonferroni_alpha(0.05, -2),
        lambda: bonferroni_alpha(0.0, 3),
        lambda: probability_bin(-0.1, 10),
        lambda: probability_bin(1.1, 10),
        lambda: probability_bin(math.nan, 10),
        lambda: probability_bin(0.5, 0),
        lambda: expected_calibration_error([(-1, 0, 0.0)]),
        lambda: expected_calibration_error([(2, 3, 1.0)]),
        lambda: expected_calibration_error([(2, -1, 1.0)]),
        lambda: expected_calibration_error([(2, 1, math.nan)]),
        lambda: rate(-1, 2),
        lambda: rate(3, 2),
        lambda: rate(0, -1),
    ],
)
def test_invalid_inputs_raise_value_error(call: Callable[[], object]) -> None:
    with pytest.raises(ValueError):
        call()


def test_non_integer_counts_are_rejected() -> None:
    with pytest.raises(TypeError):
        rate(1.5, 3)  # type: ignore[arg-type]


def test_import_does_not_load_scipy() -> None:
    code = "import sys, respai.stats; print('scipy' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "False"
