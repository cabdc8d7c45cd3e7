"""Exact threshold decisions (respai.exact) against Fraction re-derivations and SciPy."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from scipy.stats import binomtest
from statsmodels.stats.proportion import proportion_confint

from respai import exact
from respai.exact import (
    ClopperPearson,
    Difference,
    Exact,
    Quotient,
    Wilson,
    bound_meets,
    decimal,
    fraction,
    meets,
)

THRESHOLDS = st.sampled_from(["0.8", "0.1", "0.02", "0.7", "0.9", "0.5", "0.25", "0.05"])


def test_the_two_worked_cases_meet_their_thresholds() -> None:
    # 100/300 against 125/300 is exactly 0.8; in floats it is 0.7999999999999999
    assert (100 / 300) / (125 / 300) < 0.8
    assert meets(fraction(100, 300) / fraction(125, 300), ">=", decimal(0.8))  # type: ignore[operator]
    # 40/100 - 30/100 is exactly 0.10; in floats it is 0.10000000000000003
    assert 40 / 100 - 30 / 100 > 0.1
    assert meets(fraction(40, 100) - fraction(30, 100), "<=", decimal(0.1))  # type: ignore[operator]


def test_decimal_reads_the_written_number() -> None:
    assert decimal(0.1) == Fraction(1, 10) != Fraction(0.1)
    assert decimal(0.8) == Fraction(4, 5)
    assert decimal(1) == 1 and decimal("0.02") == Fraction(1, 50)
    assert decimal(Fraction(1, 3)) == Fraction(1, 3)
    for bad in (math.nan, math.inf, True):
        with pytest.raises(ValueError):
            decimal(bad)


def test_fraction_of_counts() -> None:
    assert fraction(0, 0) is None
    assert fraction(3, 4) == Fraction(3, 4)
    with pytest.raises(ValueError):
        fraction(-1, 4)


@pytest.mark.parametrize(
    ("comparison", "below", "at", "above"),
    [(">=", False, True, True), ("<=", True, True, False), (">", False, False, True)],
)
def test_meets_includes_the_threshold_for_non_strict_comparisons(
    comparison: str, below: bool, at: bool, above: bool
) -> None:
    t = decimal(0.8)
    assert meets(t - Fraction(1, 10**30), comparison, t) is below
    assert meets(t, comparison, t) is at
    assert meets(t + Fraction(1, 10**30), comparison, t) is above


@settings(max_examples=200, deadline=None)
@given(
    a=st.integers(0, 400),
    b=st.integers(1, 400),
    c=st.integers(0, 400),
    d=st.integers(1, 400),
    t=THRESHOLDS,
)
def test_exact_decisions_agree_with_a_fraction_rederivation(
    a: int, b: int, c: int, d: int, t: str
) -> None:
    a, c = a % (b + 1), c % (d + 1)  # counts within their totals (no assume: no filtering)
    p, q = Fraction(t).numerator, Fraction(t).denominator
    # min/max and |difference| of a/b and c/d, decided by cross-multiplying integers
    (x_num, x_den), (y_num, y_den) = sorted([(a, b), (c, d)], key=lambda f: f[0] * (b * d) // f[1])
    if Fraction(x_num, x_den) > Fraction(y_num, y_den):
        (x_num, x_den), (y_num, y_den) = (y_num, y_den), (x_num, x_den)
    if y_num > 0:
        ratio = Fraction(x_num, x_den) / Fraction(y_num, y_den)
        assert meets(ratio, ">=", decimal(float(t))) == (x_num * y_den * q >= p * x_den * y_num)
    diff = abs(Fraction(a, b) - Fraction(c, d))
    assert meets(diff, "<=", decimal(float(t))) == (abs(a * d - c * b) * q <= p * b * d)


@settings(max_examples=60, deadline=None)
@given(k=st.integers(0, 60), n=st.integers(1, 60), alpha=st.sampled_from([0.05, 0.01, 0.025]))
def test_clopper_pearson_bound_decisions_match_scipy(k: int, n: int, alpha: float) -> None:
    assume(k <= n)
    ref = binomtest(k, n).proportion_ci(confidence_level=1 - alpha, method="exact")
    lo, hi = ClopperPearson(k, n, decimal(alpha), "lo"), ClopperPearson(k, n, decimal(alpha), "hi")
    assert lo.value == pytest.approx(ref.low, abs=1e-12)
    assert hi.value == pytest.approx(ref.high, abs=1e-12)
    for t in (
        Fraction(1, 10),
        Fraction(1, 2),
        Fraction(4, 5),
        Fraction(ref.low),
        Fraction(ref.high),
    ):
        # away from the end, the float end decides the same way as the tail
        if abs(float(t) - ref.low) > 1e-7:
            assert bound_meets(lo, ">=", t) == (ref.low >= float(t))
        if abs(float(t) - ref.high) > 1e-7:
            assert bound_meets(hi, "<=", t) == (ref.high <= float(t))


def test_clopper_pearson_end_at_a_rational_threshold_is_decided_exactly() -> None:
    # lo(1 of 1, alpha=0.05) = 0.025 exactly: P(X >= 1 | n=1, 0.025) = 0.025 = alpha/2
    lo = ClopperPearson(1, 1, decimal(0.05), "lo")
    assert lo.sign(Fraction(1, 40)) == 0
    assert bound_meets(lo, ">=", Fraction(1, 40)) and bound_meets(lo, "<=", Fraction(1, 40))
    assert not bound_meets(lo, ">", Fraction(1, 40))
    # hi(0 of 1) = 0.975 exactly
    hi = ClopperPearson(0, 1, decimal(0.05), "hi")
    assert hi.sign(Fraction(39, 40)) == 0
    # lo(2 of 2, 0.5) = 0.5 exactly: t^2 = 0.25 = alpha/2
    assert ClopperPearson(2, 2, decimal(0.5), "lo").sign(Fraction(1, 2)) == 0
    # the trivial ends are exact
    assert ClopperPearson(0, 5, decimal(0.05), "lo").exact() == 0
    assert ClopperPearson(5, 5, decimal(0.05), "hi").exact() == 1


def test_clopper_pearson_tail_sum_is_exact() -> None:
    from scipy.stats import binom

    for k, n, t in ((3, 10, Fraction(1, 3)), (0, 7, Fraction(1, 2)), (50, 120, Fraction(2, 5))):
        assert float(exact._upper_tail_exact(k, n, t)) == pytest.approx(
            binom.sf(k - 1, n, float(t)), rel=1e-12
        )


@settings(max_examples=80, deadline=None)
@given(
    k=st.integers(0, 80),
    n=st.integers(1, 80),
    num=st.integers(0, 100),
    conf=st.sampled_from([0.95, 0.975, 0.99]),
)
def test_wilson_bound_decisions_match_statsmodels(k: int, n: int, num: int, conf: float) -> None:
    assume(k <= n)
    t = Fraction(num, 100)
    lo_ref, hi_ref = proportion_confint(k, n, alpha=1 - conf, method="wilson")
    lo, hi = Wilson(k, n, conf, "lo"), Wilson(k, n, conf, "hi")
    if abs(lo_ref - float(t)) > 1e-9:
        assert bound_meets(lo, ">=", t) == (lo_ref >= float(t)), (k, n, t)
    if abs(hi_ref - float(t)) > 1e-9:
        assert bound_meets(hi, "<=", t) == (hi_ref <= float(t)), (k, n, t)


def test_wilson_ends_at_zero_and_one_are_exact() -> None:
    assert Wilson(0, 10, 0.95, "lo").sign(Fraction(0)) == 0
    assert Wilson(10, 10, 0.95, "hi").sign(Fraction(1)) == 0


def test_difference_and_quotient_reduce_to_one_end_when_the_other_is_rational() -> None:
    lo = ClopperPearson(1, 1, decimal(0.05), "lo")  # exactly 0.025
    # 1 - lo = 0.975 exactly, and 0.05 / ... : decided through the tail
    assert Difference(Exact(Fraction(1)), lo).sign(Fraction(39, 40)) == 0
    assert Difference(lo, Exact(Fraction(0))).sign(Fraction(1, 40)) == 0
    assert Quotient(lo, Exact(Fraction(1, 2))).sign(Fraction(1, 20)) == 0
    assert Quotient(Exact(Fraction(1, 80)), lo).sign(Fraction(1, 2)) == 0
    # two irrational ends: the float value decides
    a = ClopperPearson(3, 10, decimal(0.05), "hi")
    b = ClopperPearson(3, 10, decimal(0.05), "lo")
    assert Difference(a, b).sign(Fraction(1, 10)) == 1
    assert Quotient(b, a).sign(Fraction(9, 10)) == -1
