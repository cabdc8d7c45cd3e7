"""Means and their intervals from exact integer sums: pure functions of the counts.

A group's values ``x`` (the error, the absolute error, the prediction or the target) come
as whole ``10^-decimals`` units, summed exactly (:class:`Moments`). From them:

- the mean (unweighted ``Σx / n``; weighted, Hajek's ``Σwx / Σw``);
- Student's t-interval ``mean ± t(1 - a/2, n - 1) s / sqrt(n)`` (unweighted, no bounds);
- the empirical-Bernstein interval of Maurer & Pontil (2009, Theorem 4), two-sided at
  ``a`` (each side at ``a / 2``): ``mean ± (sqrt(2 s² ln(4/a) / n) + 7 R ln(4/a) / (3 (n -
  1)))``, clipped to the declared range of width ``R``; distribution-free for values
  within the declared bounds (unweighted only);
- the weighted t-interval by linearization: ``v = n_eff / (n_eff - 1) × Σw²(x - m)² /
  (Σw)²`` with ``n_eff = (Σw)² / Σw²`` (Kish) and ``n_eff - 1`` degrees of freedom; with
  equal weights it is Student's interval exactly.

Cases without a prediction can be *completed* at an end of the declared range
(:meth:`Moments.completed`), so an interval can read them at their worst.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from scipy import stats as sps

__all__ = [
    "EMPIRICAL_BERNSTEIN",
    "STUDENT_T",
    "WEIGHTED_T",
    "Moments",
    "bernstein_interval",
    "interval",
    "mean",
    "method_name",
    "t_interval",
    "weighted_t_interval",
]

#: The interval names, as the record's ``interval.method`` states them.
STUDENT_T = "student-t"
EMPIRICAL_BERNSTEIN = "empirical-bernstein (Maurer-Pontil 2009, Thm 4), within declared bounds"
WEIGHTED_T = "weighted t by linearization (Hajek mean, Kish n_eff - 1 df)"


@dataclass(frozen=True, slots=True)
class Moments:
    """Exact sums of one group's values, in units of ``10^-decimals``.

    ``n`` cases; ``sw``, ``sw2`` the sums of the weights and of their squares (in weight
    units; without weights every weight is the whole number 1, so ``sw = sw2 = n``);
    ``sx``, ``sx2`` the sums of the values and of their squares; ``swx``, ``sw2x``,
    ``sw2x2`` those of ``w x``, ``w² x`` and ``w² x²``. ``scale`` is ``10^decimals``.
    """

    n: int
    sw: int
    sw2: int
    sx: int
    sx2: int
    swx: int
    sw2x: int
    sw2x2: int
    scale: int
    weighted: bool = False

    def completed(self, m: int, msw: int, msw2: int, value: Fraction) -> Moments:
        """These sums with ``m`` more cases (weights ``msw``, ``msw2``) at ``value``.

        ``value`` is in real units; it is put on the grid exactly (a bound is a decimal
        the spec wrote, so a whole number of units at the block's decimals).
        """
        if m == 0:
            return self
        scaled = value * self.scale
        if scaled.denominator != 1:
            raise ValueError(f"{value} is not on the grid of 1/{self.scale}")
        u = int(scaled)
        return Moments(
            n=self.n + m,
            sw=self.sw + msw,
            sw2=self.sw2 + msw2,
            sx=self.sx + m * u,
            sx2=self.sx2 + m * u * u,
            swx=self.swx + msw * u,
            sw2x=self.sw2x + msw2 * u,
            sw2x2=self.sw2x2 + msw2 * u * u,
            scale=self.scale,
            weighted=self.weighted,
        )

    @property
    def n_eff(self) -> float | None:
        """Kish's effective size ``(Σw)² / Σw²`` (``n`` without weights)."""
        if not self.weighted:
            return float(self.n)
        return None if self.sw2 == 0 else float(Fraction(self.sw * self.sw, self.sw2))

    def exact_mean(self) -> Fraction | None:
        """The mean in real units, exactly (``None`` without a case or weight)."""
        if self.weighted:
            return None if self.sw == 0 else Fraction(self.swx, self.sw * self.scale)
        return None if self.n == 0 else Fraction(self.sx, self.n * self.scale)

    def variance(self) -> float | None:
        """The unweighted sample variance ``s²`` (``n - 1`` divisor), real units."""
        if self.n < 2:
            return None
        num = Fraction(self.sx2) - Fraction(self.sx * self.sx, self.n)
        return float(num / (self.n - 1) / (self.scale * self.scale))

    def linearized_variance(self) -> float | None:
        """``Σw²(x - m)² / (Σw)²`` of the Hajek mean, real units (``None``: undefined)."""
        if self.sw == 0:
            return None
        m = Fraction(self.swx, self.sw)  # units
        num = Fraction(self.sw2x2) - 2 * m * self.sw2x + m * m * self.sw2
        return float(num / (self.sw * self.sw) / (self.scale * self.scale))


def mean(m: Moments) -> float | None:
    """The mean (Hajek's weighted mean with weights), ``None`` without a case."""
    found = m.exact_mean()
    return None if found is None else float(found)


def t_interval(m: Moments, alpha: float) -> tuple[float, float] | None:
    """Student's t-interval of the mean at level ``1 - alpha`` (``None`` below 2 cases)."""
    var = m.variance()
    centre = mean(m)
    if var is None or centre is None:
        return None
    half = float(sps.t.ppf(1 - alpha / 2, m.n - 1)) * math.sqrt(max(var, 0.0) / m.n)
    return centre - half, centre + half


def weighted_t_interval(m: Moments, alpha: float) -> tuple[float, float] | None:
    """The weighted t-interval by linearization (``None`` when ``n_eff <= 1``)."""
    var = m.linearized_variance()
    centre = mean(m)
    n_eff = m.n_eff
    if var is None or centre is None or n_eff is None or n_eff <= 1 + 1e-12:
        return None
    se = math.sqrt(max(var, 0.0) * n_eff / (n_eff - 1))
    half = float(sps.t.ppf(1 - alpha / 2, n_eff - 1)) * se
    return centre - half, centre + half


def bernstein_interval(
    m: Moments, alpha: float, low: float, high: float
) -> tuple[float, float] | None:
    """The two-sided empirical-Bernstein interval for values within ``[low, high]``.

    Maurer & Pontil (2009, Theorem 4) on each side at ``alpha / 2``, with the values
    rescaled to ``[0, 1]`` by the range ``R = high - low``; clipped to the range.
    Two or more cases; one case gives the whole range; none, ``None``.
    """
    centre = mean(m)
    if centre is None:
        return None
    if m.n < 2:
        return low, high
    var = m.variance() or 0.0
    log = math.log(4 / alpha)
    r = high - low
    half = math.sqrt(2 * max(var, 0.0) * log / m.n) + 7 * r * log / (3 * (m.n - 1))
    return max(low, centre - half), min(high, centre + half)


def method_name(*, bounded: bool, weighted: bool) -> str:
    """The interval :func:`interval` uses: weighted t, empirical-Bernstein or Student's t."""
    if weighted:
        return WEIGHTED_T
    return EMPIRICAL_BERNSTEIN if bounded else STUDENT_T


def interval(
    m: Moments, alpha: float, bounds: tuple[float, float] | None
) -> tuple[tuple[float, float] | None, str]:
    """The interval the block uses for ``m`` at ``1 - alpha``, and its method's name.

    Weighted sums: the weighted t-interval (the distribution-free bound has no
    justification with unequal weights here). Unweighted with declared bounds: the
    empirical-Bernstein interval; without: Student's t.
    """
    if m.weighted:
        return weighted_t_interval(m, alpha), WEIGHTED_T
    if bounds is not None:
        return bernstein_interval(m, alpha, *bounds), EMPIRICAL_BERNSTEIN
    return t_interval(m, alpha), STUDENT_T
