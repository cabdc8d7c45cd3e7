"""Threshold decisions in exact arithmetic: one place that says whether a value meets a limit.

A value respai compares with a threshold is either a function of integer counts (a rate, a
ratio or difference of rates, a worst-case bound with the missing decisions counted at
their worst) or an endpoint of an interval. Both are decided here, so that a value that
is exactly at its threshold meets it (``0.8 >= 0.8``) however the number would have been
rounded in binary floating point.

- **Values of counts** are :class:`fractions.Fraction` built from the integers
  (:func:`fraction`), and the threshold is the decimal the user wrote (:func:`decimal`:
  ``0.8`` is ``4/5``, not the binary float ``0.8000000000000000444...``). A YAML reader
  gives a float; its shortest ``repr`` is the decimal that was written (Python's
  ``repr`` of a float is the shortest string that reads back as the same float), so
  ``Fraction(repr(x))`` recovers it. :func:`meets` compares the two exactly.
- **Interval endpoints** are :class:`Bound` objects that know how to compare themselves
  with an exact threshold: :class:`ClopperPearson` through the binomial tail at the
  threshold (exact equivalence, see its docstring), :class:`Wilson` through the quadratic
  whose roots are its endpoints (exact in rationals), :class:`Exact` as a fraction.
  :class:`Difference` and :class:`Quotient` of two bounds reduce to one endpoint when the
  other is a rational number (0 or 1, say); a difference or quotient of two irrational
  endpoints is decided in floating point (:class:`Approx` too), which can only matter
  within about ``1e-15`` of the threshold.

This module is pure: it imports SciPy lazily (for the binomial tail) and nothing else.
"""

from __future__ import annotations

import math
import operator
from abc import ABC, abstractmethod
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction
from statistics import NormalDist
from typing import Literal

__all__ = [
    "COMPARISONS",
    "Approx",
    "Bound",
    "ClopperPearson",
    "Difference",
    "Exact",
    "Quotient",
    "Wilson",
    "bound_meets",
    "decimal",
    "fraction",
    "meets",
    "sign",
]

#: The comparisons a threshold may use; ``>=`` and ``<=`` include the threshold itself.
COMPARISONS = (">=", "<=", ">", "<")

#: Below this distance from the threshold a float is not trusted to decide (the floats
#: here are accurate to about 1e-15; the margin is generous).
_FLOAT_MARGIN = 1e-9
#: Largest number of cases for which a binomial tail is summed in exact rationals when
#: the floating-point tail is too close to its level to decide.
EXACT_TAIL_LIMIT = 5000

Side = Literal["lo", "hi"]


def decimal(x: float | int | str | Decimal | Fraction) -> Fraction:
    """The exact number a threshold or level stands for.

    A float is read through its shortest ``repr`` (the decimal the user wrote in YAML or
    Python: ``0.1`` is ``1/10``); an int, a :class:`~decimal.Decimal`, a
    :class:`~fractions.Fraction` or a decimal string is taken as it is.

    Raises
    ------
    ValueError
        For NaN, an infinity, a boolean or a string that is not a number.

    Examples
    --------
    >>> decimal(0.8), decimal(0.1) == Fraction(1, 10), decimal("0.02")
    (Fraction(4, 5), True, Fraction(1, 50))
    """
    if isinstance(x, bool):
        raise ValueError(f"a threshold must be a number, not {x!r}")
    if isinstance(x, Fraction):
        return x
    if isinstance(x, float):
        if not math.isfinite(x):
            raise ValueError(f"a threshold must be finite, got {x!r}")
        return Fraction(repr(x))
    if isinstance(x, int):
        return Fraction(x)
    if isinstance(x, Decimal):
        if not x.is_finite():
            raise ValueError(f"a threshold must be finite, got {x!r}")
        return Fraction(x)
    if isinstance(x, str):
        return Fraction(x.strip())
    raise ValueError(f"a threshold must be a number, not {x!r}")


def fraction(k: int, n: int) -> Fraction | None:
    """``k / n`` as an exact fraction of two counts; ``None`` when ``n == 0``.

    Examples
    --------
    >>> fraction(100, 300) / fraction(125, 300)
    Fraction(4, 5)
    >>> fraction(1, 0) is None
    True
    """
    k, n = operator.index(k), operator.index(n)
    if n < 0 or k < 0:
        raise ValueError(f"counts must be >= 0, got {k}/{n}")
    return None if n == 0 else Fraction(k, n)


def _check(comparison: str) -> None:
    if comparison not in COMPARISONS:
        raise ValueError(f"comparison must be one of {', '.join(COMPARISONS)}, got {comparison!r}")


def _holds(s: int, comparison: str) -> bool:
    """Whether ``sign(value - threshold) == s`` satisfies ``value <comparison> threshold``."""
    _check(comparison)
    if comparison == ">=":
        return s >= 0
    if comparison == "<=":
        return s <= 0
    if comparison == ">":
        return s > 0
    return s < 0


def sign(x: Fraction) -> int:
    """-1, 0 or 1."""
    return (x > 0) - (x < 0)


def meets(value: Fraction, comparison: str, threshold: Fraction) -> bool:
    """Whether ``value <comparison> threshold`` holds, exactly.

    Both sides are exact fractions (:func:`fraction`, :func:`decimal`); a value equal to
    the threshold meets ``>=`` and ``<=``.

    Examples
    --------
    >>> meets(fraction(100, 300) / fraction(125, 300), ">=", decimal(0.8))
    True
    >>> meets(fraction(40, 100) - fraction(30, 100), "<=", decimal(0.1))
    True
    """
    return _holds(sign(value - threshold), comparison)


class Bound(ABC):
    """A number (an interval endpoint, or a combination of endpoints) and its exact test."""

    @property
    @abstractmethod
    def value(self) -> float:
        """The bound as a float, for display."""

    @abstractmethod
    def sign(self, t: Fraction) -> int:
        """``sign(bound - t)``: -1, 0 or 1."""

    def exact(self) -> Fraction | None:
        """The bound as a fraction when it is rational, else ``None``."""
        return None


def bound_meets(bound: Bound, comparison: str, threshold: Fraction) -> bool:
    """Whether ``bound <comparison> threshold`` holds, decided as the bound's kind allows.

    Examples
    --------
    >>> bound_meets(ClopperPearson(8, 10, Fraction(1, 20), "lo"), ">=", Fraction(1, 2))
    False
    """
    return _holds(bound.sign(threshold), comparison)


def _float_sign(v: float, t: Fraction) -> int | None:
    """``sign(v - t)`` when the float is far enough from ``t`` to be trusted, else None."""
    d = v - float(t)
    if d > _FLOAT_MARGIN:
        return 1
    if d < -_FLOAT_MARGIN:
        return -1
    return None


@dataclass(frozen=True, slots=True)
class Exact(Bound):
    """A rational bound (0, 1, a rate of counts)."""

    q: Fraction

    @property
    def value(self) -> float:
        """The bound as a float, for display."""
        return float(self.q)

    def sign(self, t: Fraction) -> int:
        """``sign(bound - t)``: -1, 0 or 1."""
        return sign(self.q - t)

    def exact(self) -> Fraction | None:
        """The bound as a fraction when it is rational, else ``None``."""
        return self.q


@dataclass(frozen=True, slots=True)
class Approx(Bound):
    """A bound known only as a float (a DeLong endpoint, say): compared in binary exactly."""

    x: float

    @property
    def value(self) -> float:
        """The bound as a float, for display."""
        return self.x

    def sign(self, t: Fraction) -> int:
        """``sign(bound - t)``: -1, 0 or 1."""
        return sign(Fraction(self.x) - t)


def _upper_tail_exact(k: int, n: int, t: Fraction) -> Fraction:
    """``P(X >= k)`` for ``X ~ Binomial(n, t)``, ``0 < t < 1``, summed in exact rationals."""
    p, q = t.numerator, t.denominator
    r = q - p
    total = 0
    term = math.comb(n, k) * p**k * r ** (n - k)  # C(n, i) p^i r^(n-i) at i = k
    for i in range(k, n + 1):
        total += term
        if i < n:  # the next term; the division is exact (C(n, i+1) is an integer)
            term = term * (n - i) * p // ((i + 1) * r)
    return Fraction(total, q**n)


def _upper_tail(k: int, n: int, t: Fraction, level: Fraction) -> int:
    """``sign(P(X >= k | n, t) - level)``, from SciPy, or exact sums near a tie."""
    from scipy.stats import binom

    tail = float(binom.sf(k - 1, n, float(t)))
    lv = float(level)
    if abs(tail - lv) > _FLOAT_MARGIN * lv or n > EXACT_TAIL_LIMIT:
        return (tail > lv) - (tail < lv)
    return sign(_upper_tail_exact(k, n, t) - level)


@dataclass(frozen=True, slots=True)
class ClopperPearson(Bound):
    """One end of the two-sided Clopper-Pearson interval of ``k`` in ``n`` at ``1 - alpha``.

    The lower end ``lo(k)`` is the ``t`` with ``P(X >= k | n, t) = alpha/2`` (0 when
    ``k == 0``); the tail grows with ``t``, so ``lo(k) >= t`` exactly when
    ``P(X >= k | n, t) <= alpha/2``. The upper end ``hi(k)`` is the ``t`` with
    ``P(X <= k | n, t) = alpha/2`` (1 when ``k == n``), and ``hi(k) >= t`` exactly when
    ``P(X <= k | n, t) >= alpha/2``, i.e. ``P(X >= k + 1 | n, t) <= 1 - alpha/2``. The
    comparison is therefore made on the binomial tail at the threshold (SciPy's
    ``binom.sf``), not on the inverted float endpoint; when the tail is within ``1e-9``
    (relative) of its level, the tail is summed in exact rationals (up to
    :data:`EXACT_TAIL_LIMIT` cases). ``alpha`` is exact, e.g. ``decimal(0.05) / G``.
    """

    k: int
    n: int
    alpha: Fraction
    side: Side

    @property
    def value(self) -> float:
        """The bound as a float, for display."""
        from respai import stats

        iv = stats.clopper_pearson_interval(self.k, self.n, float(self.alpha))
        assert iv is not None
        return iv.lo if self.side == "lo" else iv.hi

    def exact(self) -> Fraction | None:
        """The bound as a fraction when it is rational, else ``None``."""
        if self.side == "lo" and self.k == 0:
            return Fraction(0)
        if self.side == "hi" and self.k == self.n:
            return Fraction(1)
        return None

    def sign(self, t: Fraction) -> int:
        """``sign(bound - t)``: -1, 0 or 1."""
        q = self.exact()
        if q is not None:
            return sign(q - t)
        # 0 < lo < 1 and 0 < hi < 1 here
        if t <= 0:
            return 1
        if t >= 1:
            return -1
        fast = _float_sign(self.value, t)
        if fast is not None:
            return fast
        half = self.alpha / 2
        if self.side == "lo":  # sign(lo - t) = sign(alpha/2 - P(X >= k | t))
            return -_upper_tail(self.k, self.n, t, half)
        # sign(hi - t) = sign(P(X <= k | t) - alpha/2) = sign(1 - alpha/2 - P(X >= k+1 | t))
        return -_upper_tail(self.k + 1, self.n, t, 1 - half)


def _z(confidence: float) -> float:
    """The normal quantile the Wilson interval of :mod:`respai.stats` uses."""
    return -NormalDist().inv_cdf((1.0 - confidence) / 2.0)


@dataclass(frozen=True, slots=True)
class Wilson(Bound):
    """One end of the Wilson score interval of ``k`` in ``n`` at ``confidence``.

    The Wilson interval is the set of ``t`` with ``f(t) = n (k/n - t)^2 - z^2 t (1 - t)
    <= 0``, so its ends are the roots of ``f``. With ``q = k/n``: ``lo > t`` exactly when
    ``t < q`` and ``f(t) > 0`` (and ``lo = t`` when ``f(t) = 0``, ``t <= q``); ``hi`` the
    mirror image. ``f(t)`` is computed in exact rationals, with ``z`` the float quantile
    :func:`respai.stats.wilson_interval` uses, so the decision is the exact one for that
    interval.
    """

    k: int
    n: int
    confidence: float
    side: Side

    @property
    def value(self) -> float:
        """The bound as a float, for display."""
        from respai import stats

        iv = stats.wilson_interval(self.k, self.n, self.confidence)
        assert iv is not None
        return iv.lo if self.side == "lo" else iv.hi

    def sign(self, t: Fraction) -> int:
        """``sign(bound - t)``: -1, 0 or 1."""
        q = Fraction(self.k, self.n)
        z2 = Fraction(_z(self.confidence)) ** 2
        f = self.n * (q - t) ** 2 - z2 * t * (1 - t)
        # lo <= q <= hi, with lo = q only at q = 0 and hi = q only at q = 1
        if self.side == "lo":
            if t >= q:
                return 0 if t == q == 0 else -1
            return sign(f)  # t < q: f > 0 when t is below the interval
        if t <= q:
            return 0 if t == q == 1 else 1
        return -sign(f)  # t > q: f > 0 when t is above the interval


@dataclass(frozen=True, slots=True)
class Difference(Bound):
    """``a - b`` of two bounds; exact when either is rational, else decided in float."""

    a: Bound
    b: Bound

    @property
    def value(self) -> float:
        """The bound as a float, for display."""
        return self.a.value - self.b.value

    def exact(self) -> Fraction | None:
        """The bound as a fraction when it is rational, else ``None``."""
        qa, qb = self.a.exact(), self.b.exact()
        return None if qa is None or qb is None else qa - qb

    def sign(self, t: Fraction) -> int:
        """``sign(bound - t)``: -1, 0 or 1."""
        qa, qb = self.a.exact(), self.b.exact()
        if qb is not None:
            return self.a.sign(t + qb)
        if qa is not None:
            return -self.b.sign(qa - t)
        return _float_sign(self.value, t) or sign(Fraction(self.value) - t)


@dataclass(frozen=True, slots=True)
class Quotient(Bound):
    """``a / b`` of two bounds with ``b > 0``; exact when either is rational (``t > 0``)."""

    a: Bound
    b: Bound

    @property
    def value(self) -> float:
        """The bound as a float, for display."""
        return self.a.value / self.b.value

    def exact(self) -> Fraction | None:
        """The bound as a fraction when it is rational, else ``None``."""
        qa, qb = self.a.exact(), self.b.exact()
        return None if qa is None or qb is None else qa / qb

    def sign(self, t: Fraction) -> int:
        """``sign(bound - t)``: -1, 0 or 1."""
        qa, qb = self.a.exact(), self.b.exact()
        if qb is not None and qb > 0:  # sign(a/b - t) = sign(a - t b)
            return self.a.sign(t * qb)
        if qa is not None and t > 0:  # sign(a - t b) = -sign(b - a/t)
            return -self.b.sign(qa / t)
        return _float_sign(self.value, t) or sign(Fraction(self.value) - t)
