"""The confidence sequence: its ends against the martingale, and time-uniform coverage."""

from __future__ import annotations

import math
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import betaln
from scipy.stats import beta

from respai.monitor.sequence import confidence_sequence, log_martingale, widened_sequence


@st.composite
def counts(draw: st.DrawFn) -> tuple[int, int]:
    n = draw(st.integers(min_value=1, max_value=5000))
    return draw(st.integers(min_value=0, max_value=n)), n


def _exact_end(k: int, n: int, alpha: float, start: float) -> Decimal:
    """The end of ``C_n`` nearest ``start``, to 50 digits, from the exact mixture.

    With the Jeffreys mixture the Beta functions are exact rationals:
    ``B(1/2 + k, 1/2 + m) / B(1/2, 1/2) = (2k)! (2m)! / (4^n k! m! n!)`` (``m = n - k``;
    the two ``sqrt(pi)`` of each half-integer Gamma cancel against ``B(1/2, 1/2) = pi``),
    so ``log M_n(p)`` is written here without scipy and evaluated in 60-digit decimals.
    Newton's method from the float end converges (``log M`` is convex, one root on each
    side of ``k / n``); the root is certified by the sign change around it.
    """
    m = n - k
    ratio = Fraction(
        math.factorial(2 * k) * math.factorial(2 * m),
        4**n * math.factorial(k) * math.factorial(m) * math.factorial(n),
    )
    with localcontext() as ctx:
        ctx.prec = 60
        log_r = Decimal(ratio.numerator).ln() - Decimal(ratio.denominator).ln()
        level = (1 / Decimal(repr(alpha))).ln()

        def excess(q: Decimal) -> Decimal:
            return log_r - k * q.ln() - m * (1 - q).ln() - level

        p = Decimal(start)
        for _ in range(12):
            p -= excess(p) / (Decimal(m) / (1 - p) - Decimal(k) / p)
        tiny = p * Decimal("1e-45")
        assert excess(p - tiny) * excess(p + tiny) <= 0  # a root lies within 1e-45 of p
        return p


def _within_root_tolerance(end: float, exact: Decimal) -> bool:
    """Whether ``end`` is within brentq's ``xtol`` (1e-13) plus ``rtol`` of ``exact``."""
    return abs(Decimal(end) - exact) <= Decimal("1e-13") + Decimal(end) * Decimal("9e-16")


@given(counts(), st.sampled_from([0.01, 0.05, 0.1]))
@settings(max_examples=150, deadline=None)
def test_ends_are_where_the_martingale_crosses_one_over_alpha(
    kn: tuple[int, int], alpha: float
) -> None:
    k, n = kn
    iv = confidence_sequence(k, n, alpha)
    level = math.log(1 / alpha)

    # an independent writing of log M_n(p), straight from the Beta-Bernoulli mixture
    def log_m(p: float) -> float:
        return float(
            betaln(0.5 + k, 0.5 + n - k)
            - betaln(0.5, 0.5)
            - k * np.log(p)
            - (n - k) * np.log1p(-p)
        )

    inside = (iv.lo + iv.hi) / 2
    assert log_m(inside) < level
    for end, edge in ((iv.lo, 0.0), (iv.hi, 1.0)):
        if end == edge:
            # no crossing above 1e-15 (below 1 - 1e-15): the end is the edge itself
            assert log_m(1e-15 if edge == 0.0 else 1 - 1e-15) < level or k in (0, n)
            continue
        # The root finder's own tolerance is in p (brentq: xtol 1e-13 plus 4 ulp of p), so
        # the end is checked in p against the exact root. A check of log M at the end is
        # not the honest one: near p = 0 its slope is about k / p (1e8 at k = 1, n = 5000,
        # alpha = 0.01, where the end is about 8e-9), so a 1e-13 step in p moves log M by
        # 1e-5, which is why it once needed a tolerance of 1e-5.
        assert _within_root_tolerance(end, _exact_end(k, n, alpha, end))
    # just outside the interval, the martingale is past the threshold
    if iv.lo > 1e-9:
        assert log_m(iv.lo * (1 - 1e-6)) > level - 1e-9
    if iv.hi < 1 - 1e-9:
        assert log_m(iv.hi + (1 - iv.hi) * 1e-6) > level - 1e-9


@pytest.mark.parametrize(
    ("k", "n", "alpha"),
    [(1, 5000, 0.01), (1, 1, 0.05), (4999, 5000, 0.01), (2500, 5000, 0.05), (3, 10, 0.1)],
)
def test_the_ends_match_the_exact_roots_at_the_steep_corners(k: int, n: int, alpha: float) -> None:
    """The cases where ``log M`` is steepest at an end (a single event in many cases)."""
    iv = confidence_sequence(k, n, alpha)
    for end in (iv.lo, iv.hi):
        if 0.0 < end < 1.0:
            assert _within_root_tolerance(end, _exact_end(k, n, alpha, end))


def test_it_is_wider_than_a_fixed_sample_interval() -> None:
    """The price of looking as often as one likes: wider than Clopper-Pearson at each n."""
    for k, n in ((3, 10), (30, 100), (300, 1000)):
        cs = confidence_sequence(k, n, 0.05)
        lo, hi = beta.ppf(0.025, k, n - k + 1), beta.ppf(0.975, k + 1, n - k)
        assert cs.lo < lo and cs.hi > hi


def test_widened_holds_every_way_the_missing_cases_could_go() -> None:
    iv = widened_sequence(10, 5, 60, 0.05)
    for j in range(6):
        inner = confidence_sequence(10 + j, 60, 0.05)
        assert iv.lo <= inner.lo and inner.hi <= iv.hi


def _stream_coverage(p: float, looks: int, batch: int, reps: int, fixed: bool) -> float:
    """Share of simulated streams whose interval holds p at every one of ``looks`` looks."""
    rng = np.random.default_rng(144)
    events = rng.binomial(batch, p, size=(reps, looks)).cumsum(axis=1)
    n = batch * np.arange(1, looks + 1)
    if fixed:  # a fixed-sample Clopper-Pearson interval recomputed at every look
        lo = np.where(events > 0, beta.ppf(0.025, events, n - events + 1), 0.0)
        hi = np.where(events < n, beta.ppf(0.975, events + 1, n - events), 1.0)
        held = (lo <= p) & (p <= hi)
    else:  # p is in the sequence exactly when log M_n(p) < log(1/alpha)
        log_m = (
            betaln(0.5 + events, 0.5 + n - events)
            - betaln(0.5, 0.5)
            - events * math.log(p)
            - (n - events) * math.log1p(-p)
        )
        held = log_m < math.log(1 / 0.05)
    return float(held.all(axis=1).mean())


@pytest.mark.parametrize("p", [0.05, 0.3, 0.5])
def test_time_uniform_coverage_over_20_looks(p: float) -> None:
    assert _stream_coverage(p, looks=20, batch=50, reps=4000, fixed=False) >= 0.95


def test_a_fixed_sample_interval_at_every_look_does_not_reach_it() -> None:
    assert _stream_coverage(0.3, looks=20, batch=50, reps=4000, fixed=True) < 0.95


def test_membership_agrees_with_the_interval() -> None:
    """The vectorised membership the simulation uses is the interval's own test."""
    rng = np.random.default_rng(7)
    for _ in range(200):
        n = int(rng.integers(1, 2000))
        k = int(rng.integers(0, n + 1))
        p = float(rng.uniform(0.001, 0.999))
        iv = confidence_sequence(k, n, 0.05)
        inside = log_martingale(k, n, p) < math.log(20)
        if abs(p - iv.lo) > 1e-6 and abs(p - iv.hi) > 1e-6:
            assert inside == (iv.lo <= p <= iv.hi)


@pytest.mark.parametrize(
    ("n", "low", "high"), [(100, 1.54, 1.59), (1_000, 1.80, 1.83), (10_000, 2.00, 2.01)]
)
def test_the_width_ratio_the_methods_page_states(n: int, low: float, high: float) -> None:
    from respai.stats import clopper_pearson_interval

    for p in (0.05, 0.1, 0.3, 0.5):
        k = round(p * n)
        cs = confidence_sequence(k, n, 0.05)
        cp = clopper_pearson_interval(k, n, 0.05)
        assert cp is not None
        assert low - 0.005 <= (cs.hi - cs.lo) / (cp.hi - cp.lo) <= high + 0.005, (n, p)
