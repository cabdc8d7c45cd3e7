"""Is a selection-rate gap real? Exact tests, exact power and sample sizes for small cells.

An impact ratio is a point estimate from finite counts. This module says how much the
counts can carry: a one-sided Fisher exact test of the category against the top category
(:func:`fisher_lower`), the exact power of that test at given true rates
(:func:`exact_power`), the cell size that test would need (:func:`sample_size_for_power`)
and a combined finding for one category (:func:`assess_gap`) that never reads a high
p-value from a small cell as a clean result.

Every function is a pure function of integer counts (and rates or levels for the design
questions); nothing here takes a dataframe or does I/O. NumPy and SciPy are imported
lazily inside the functions, so importing this module stays cheap.

Decision rule. The test rejects when ``p <= alpha``; the comparison allows a relative
``1e-10`` for rounding, so an exact tie (say ``p = 1/20`` at ``alpha = 0.05``) counts
as a rejection, as it would in exact arithmetic.
"""

from __future__ import annotations

import functools
import math
import operator
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    import numpy as np
    from numpy.typing import NDArray

__all__ = [
    "FindingCode",
    "GapFinding",
    "assess_gap",
    "design_sample_size",
    "exact_power",
    "fisher_lower",
    "sample_size_for_power",
]

FindingCode = Literal[
    "below_line_significant",
    "below_line_underpowered",
    "near_line",
    "above_line",
    "ratio_undefined",
]

_TIE_RTOL = 1e-10
"""Relative slack on ``p <= alpha`` so that exact ties survive floating-point rounding."""

_TINY_RATE = 1e-300
_NEGLIGIBLE_PMF = 1e-20
"""Group-1 outcomes less likely than this are skipped by :func:`exact_power`."""

_RATIO_DENOMINATOR = 1_000_000
"""A cell-size ratio is read as the nearest fraction with at most this denominator."""


# ----------------------------------------------------------------------------- checks


def _check_counts(k: int, n: int, name: str) -> tuple[int, int]:
    """Return ``(k, n)`` as plain ints after checking ``0 <= k <= n``."""
    k = operator.index(k)
    n = operator.index(n)
    if n < 0:
        raise ValueError(f"the number of cases in {name} must be >= 0, got {n}")
    if not 0 <= k <= n:
        raise ValueError(f"the selections in {name} must lie in [0, {n}], got {k}")
    return k, n


def _check_open_unit(value: float, name: str) -> float:
    """Return ``value`` as a float after checking it lies strictly inside ``(0, 1)``."""
    value = float(value)
    if not 0.0 < value < 1.0:  # also rejects NaN
        raise ValueError(f"{name} must be strictly between 0 and 1, got {name}={value!r}")
    return value


def _check_probability(value: float, name: str) -> float:
    """Return ``value`` as a float after checking it lies in ``[0, 1]``."""
    value = float(value)
    if not 0.0 <= value <= 1.0:  # also rejects NaN
        raise ValueError(f"{name} must lie in [0, 1], got {name}={value!r}")
    return value


def _rejects(p_value: float, alpha: float) -> bool:
    """The decision rule ``p <= alpha``, with slack for rounding at exact ties."""
    return p_value <= alpha * (1.0 + _TIE_RTOL)


# ------------------------------------------------------------------------ Fisher test


def fisher_lower(k1: int, n1: int, k2: int, n2: int) -> float:
    """One-sided Fisher exact p-value that group 1 is selected at a lower rate than group 2.

    The probability that group 1 gets ``k1`` or fewer selections out of ``n1`` if both
    groups share one selection rate, given the margins: ``P(X <= k1)`` for
    ``X ~ Hypergeometric(N = n1 + n2, K = k1 + k2, n = n1)``. This equals
    ``scipy.stats.fisher_exact([[k1, n1 - k1], [k2, n2 - k2]], alternative="less")``.

    Parameters
    ----------
    k1, n1
        Selections and cases in the category under test, ``0 <= k1 <= n1``.
    k2, n2
        Selections and cases in the comparison (top) category, ``0 <= k2 <= n2``.

    Returns
    -------
    float
        The p-value in ``[0, 1]``; ``1.0`` when a margin leaves nothing to test (an
        empty group, or no selections or no rejections at all).

    Raises
    ------
    ValueError
        If a count is negative or selections exceed cases.

    Examples
    --------
    >>> round(fisher_lower(30, 120, 36, 100), 4)  # 25.0% against 36.0%
    0.0522
    >>> round(fisher_lower(18, 70, 36, 100), 4)
    0.1051
    >>> fisher_lower(0, 0, 5, 10)
    1.0
    """
    k1, n1 = _check_counts(k1, n1, "group 1")
    k2, n2 = _check_counts(k2, n2, "group 2")
    total, selected = n1 + n2, k1 + k2
    if k1 >= min(n1, selected):  # the top of the support: the whole distribution
        return 1.0
    from scipy.stats import hypergeom

    p = float(hypergeom.cdf(k1, total, selected, n1))
    return min(1.0, max(0.0, p))


# ---------------------------------------------------------------------- exact power


def _first_rejected(
    x1: NDArray[np.int64],
    lo: NDArray[np.int64],
    hi: NDArray[np.int64],
    n1: int,
    n2: int,
    alpha: float,
) -> NDArray[np.int64]:
    """For each ``x1``, the smallest ``x2`` in ``[lo, hi]`` at which the test rejects.

    ``hi = n2 + 1`` stands for "no ``x2`` rejects". The caller guarantees the answer lies
    in ``[lo, hi]``; the search is a bisection run on all ``x1`` at once, valid because
    the p-value of ``(x1, x2)`` falls as ``x2`` grows.
    """
    import numpy as np
    from scipy.stats import hypergeom

    lo = lo.copy()
    hi = hi.copy()
    threshold = alpha * (1.0 + _TIE_RTOL)  # the rule of _rejects, vectorised
    while True:
        active = np.flatnonzero(lo < hi)
        if active.size == 0:
            return lo
        mid = (lo[active] + hi[active]) // 2  # mid < hi <= n2 + 1, so mid is an outcome
        x = x1[active]
        reject = hypergeom.cdf(x, n1 + n2, x + mid, n1) <= threshold
        hi[active] = np.where(reject, mid, hi[active])
        lo[active] = np.where(reject, lo[active], mid + 1)


def _rejection_boundary(
    x1: NDArray[np.int64], n1: int, n2: int, alpha: float
) -> NDArray[np.int64]:
    """The smallest rejected ``x2`` for each ``x1`` of a contiguous increasing range.

    The boundary is non-decreasing in ``x1`` (if ``(x1 + 1, x2)`` is rejected, so is
    ``(x1, x2)``), so it is found coarse to fine: the two ends by a full bisection, then
    midpoints level by level, each bracketed by its already-known neighbours. That costs
    about two or three p-values per ``x1`` instead of ``log2(n2)``.
    """
    import numpy as np

    size = x1.size
    boundary = np.empty(size, dtype=np.int64)
    ends = np.array([0, size - 1])
    boundary[ends] = _first_rejected(
        x1[ends], np.zeros(2, dtype=np.int64), np.full(2, n2 + 1, dtype=np.int64), n1, n2, alpha
    )
    stride = 1
    while stride < size - 1:
        stride *= 2
    while stride > 1:
        half = stride // 2
        new = np.arange(half, size - 1, stride)  # neighbours at +-half are already known
        if new.size:
            left = boundary[new - half]
            right = boundary[np.minimum(new + half, size - 1)]
            boundary[new] = _first_rejected(x1[new], left, right, n1, n2, alpha)
        stride = half
    return boundary


def exact_power(p1: float, n1: int, p2: float, n2: int, alpha: float = 0.05) -> float:
    """Exact power of the one-sided Fisher test of :func:`fisher_lower` at level ``alpha``.

    The probability, when group 1's true selection rate is ``p1`` and group 2's is ``p2``,
    that independent binomial counts ``x1 ~ Bin(n1, p1)``, ``x2 ~ Bin(n2, p2)`` give
    ``fisher_lower(x1, n1, x2, n2) <= alpha``. It is a sum over all outcomes, not a
    simulation.

    The rejection region is a staircase: for each total ``t = x1 + x2`` the p-value rises
    with ``x1`` (so the region is ``x1 <= c(t)``), and equivalently for each ``x1`` it
    falls with ``x2`` (so the region is ``x2 >= m(x1)``). The function finds ``m(x1)``
    from the hypergeometric cdf and sums ``Bin(x1; n1, p1) * P(X2 >= m(x1))``, with the
    upper tail from the binomial survival function. Values of ``x1`` with probability
    below ``1e-20`` are skipped, which moves the result by less than ``(n1 + 1) * 1e-20``.
    The search costs two or three hypergeometric cdf evaluations per kept ``x1`` (about
    twenty standard deviations of ``Bin(n1, p1)``): milliseconds for cells of a few
    thousand, about 0.1 s at 10,000 each and about a second at 50,000 each.

    Parameters
    ----------
    p1, n1
        True selection rate and cell size of the category under test.
    p2, n2
        True selection rate and cell size of the comparison (top) category.
    alpha
        One-sided significance level, strictly between 0 and 1.

    Returns
    -------
    float
        The power in ``[0, 1]``. With ``p1 >= p2`` it is the probability of a false
        alarm, at most ``alpha`` when ``p1 == p2`` (the Fisher test is conservative).

    Raises
    ------
    ValueError
        If a rate lies outside ``[0, 1]``, a cell size is negative or ``alpha`` lies
        outside ``(0, 1)``.

    Examples
    --------
    >>> round(exact_power(0.25, 120, 0.36, 100), 4)
    0.4902
    >>> exact_power(0.5, 0, 0.9, 10)
    0.0
    """
    import numpy as np
    from scipy.stats import binom

    p1 = _check_probability(p1, "p1")
    p2 = _check_probability(p2, "p2")
    n1 = operator.index(n1)
    n2 = operator.index(n2)
    if n1 < 0 or n2 < 0:
        raise ValueError(f"cell sizes must be >= 0, got n1={n1}, n2={n2}")
    alpha = _check_open_unit(alpha, "alpha")
    if n1 == 0 or n2 == 0:  # p-value 1 for every outcome
        return 0.0
    # SciPy's binomial overflows on subnormal rates; such a rate is 0 for any cell size
    # that fits in memory (the change in power is below 1e-290).
    p1, p2 = (0.0 if p < _TINY_RATE else p for p in (p1, p2))
    pmf1 = binom.pmf(np.arange(n1 + 1), n1, p1)
    kept = np.flatnonzero(pmf1 > _NEGLIGIBLE_PMF)  # contiguous: the binomial is unimodal
    x1 = np.arange(kept[0], kept[-1] + 1, dtype=np.int64)
    boundary = _rejection_boundary(x1, n1, n2, alpha)
    upper_tail = binom.sf(boundary - 1, n2, p2)  # P(X2 >= m(x1)); 0 when m = n2 + 1
    power = float(np.dot(pmf1[x1], upper_tail))
    return min(1.0, max(0.0, power))


# ---------------------------------------------------------------------- sample size


def _second_cell(n1: int, ratio: Fraction) -> int:
    """``ceil(ratio * n1)``, computed exactly."""
    return max(1, math.ceil(ratio * n1))


def _probit(p: float) -> float:
    """The standard normal quantile of ``p``, with ``p`` clipped away from 0 and 1."""
    from statistics import NormalDist

    return NormalDist().inv_cdf(min(max(p, 1e-12), 1.0 - 1e-12))


def _secant(a: tuple[int, float], b: tuple[int, float]) -> float | None:
    """Root in ``n`` of the line through ``(sqrt(n), gap)`` at ``a`` and ``b``, if any."""
    (n_a, gap_a), (n_b, gap_b) = a, b
    if gap_a == gap_b:
        return None
    root_a, root_b = math.sqrt(n_a), math.sqrt(n_b)
    root = root_b - gap_b * (root_b - root_a) / (gap_b - gap_a)
    return root * root if root > 0.0 else None


def sample_size_for_power(
    p1: float,
    p2: float,
    *,
    ratio: float = 1.0,
    alpha: float = 0.05,
    power: float = 0.80,
    max_n: int = 200_000,
) -> int | None:
    """Cell size of the category at which the one-sided Fisher test reaches ``power``.

    Returns an ``n1`` with ``exact_power(p1, n1, p2, n2, alpha) >= power`` and
    ``exact_power(p1, n1 - 1, p2, n2', alpha) < power``, where ``n2 = ceil(ratio * n1)``
    (and ``n2'`` likewise for ``n1 - 1``): the size at which the target is first met,
    as far as the search below can tell.

    Exact power is not monotone in the cell size: it saw-tooths, because the test's
    attainable levels jump as ``n`` grows (by a fraction of a percentage point at a few
    hundred cases). So "the smallest ``n1``" is taken as the upper end of a crossing: the
    search doubles ``n1`` until the target is met, then narrows that bracket, always
    keeping a failing lower end and a passing upper end, until the ends are neighbours.
    It steers by the secant of ``probit(power)`` against ``sqrt(n1)``, near linear, so it
    costs about a dozen power evaluations, mostly at small sizes: a few hundredths of a
    second for the worked example, seconds for answers in the tens of thousands. It does
    not check that larger sizes stay above the target (just above the answer a saw-tooth
    dip can fall back below it), nor exclude an earlier isolated peak below the last
    failing size it tried.

    Parameters
    ----------
    p1, p2
        Design selection rates of the category and of the top category.
    ratio
        Cell size of the top category per case in the category, ``n2 / n1`` (for a
        finding, the observed ratio). It is read as the nearest fraction with
        denominator at most 1,000,000, so ``100 / 120`` gives ``n2 = 100`` at
        ``n1 = 120`` despite rounding.
    alpha
        One-sided significance level, strictly between 0 and 1.
    power
        Target power, strictly between 0 and 1.
    max_n
        Largest ``n1`` to consider.

    Returns
    -------
    int or None
        The cell size ``n1``; ``None`` when ``p1 >= p2`` (no gap to detect) or the target
        is not met by ``n1 = max_n``.

    Raises
    ------
    ValueError
        If a rate lies outside ``[0, 1]``, ``ratio`` is not positive and finite, ``alpha``
        or ``power`` lies outside ``(0, 1)`` or ``max_n < 1``.

    Examples
    --------
    >>> sample_size_for_power(0.25, 0.36, ratio=100 / 120)
    255
    >>> sample_size_for_power(0.36, 0.25) is None
    True
    """
    p1 = _check_probability(p1, "p1")
    p2 = _check_probability(p2, "p2")
    alpha = _check_open_unit(alpha, "alpha")
    target = _check_open_unit(power, "power")
    ratio = float(ratio)
    if not (math.isfinite(ratio) and ratio > 0.0):
        raise ValueError(f"ratio must be positive and finite, got ratio={ratio!r}")
    max_n = operator.index(max_n)
    if max_n < 1:
        raise ValueError(f"max_n must be >= 1, got max_n={max_n}")
    if p1 >= p2:
        return None
    cells = Fraction(ratio).limit_denominator(_RATIO_DENOMINATOR)

    def power_at(n1: int) -> float:
        return exact_power(p1, n1, p2, _second_cell(n1, cells), alpha)

    # Bracket by doubling: lo fails the target (or is 0), hi meets it.
    lo, hi = 0, 1
    power_lo, power_hi = 0.0, power_at(1)
    while power_hi < target:
        if hi == max_n:
            return None
        lo, power_lo = hi, power_hi
        hi = min(2 * hi, max_n)
        power_hi = power_at(hi)
    # Narrow the bracket to neighbours, keeping its invariant. Power is close to a normal
    # cdf of a linear function of sqrt(n), so the secant through the last two probes of
    # probit(power) - probit(target) against sqrt(n) guesses the crossing well. Each guess
    # is pushed away from the side the last probes fell on, by 1, 2, 4, ... for a run of
    # probes on one side, so the bracket closes from both ends; a guess outside the
    # bracket falls back to bisection.
    z_target = _probit(target)
    before = (lo, _probit(power_lo) - z_target)
    last = (hi, _probit(power_hi) - z_target)
    run, side = 0, 0  # the run of consecutive probes on one side; +1 met, -1 missed
    while hi - lo > 1:
        guess = _secant(before, last)
        if guess is None or not lo < guess < hi:
            probe = (lo + hi) // 2
        else:
            nudge = side * (1 << (run - 1)) if run else 0
            probe = min(max(round(guess) - nudge, lo + 1), hi - 1)
        power_probe = power_at(probe)
        met = power_probe >= target
        if met:
            hi = probe
        else:
            lo = probe
        run = run + 1 if side == (1 if met else -1) else 1
        side = 1 if met else -1
        before, last = last, (probe, _probit(power_probe) - z_target)
    return hi


@functools.lru_cache(maxsize=256)
def design_sample_size(
    top_rate: float,
    *,
    line: float = 0.8,
    alpha: float = 0.05,
    power: float = 0.80,
    max_n: int = 200_000,
) -> int | None:
    """Applicants per category for the one-sided Fisher test to detect a ratio of ``line``.

    The design question of an audit, asked before the data: with the same number of
    applicants in a category and in the top category, how many does the test at level
    ``alpha`` need to reach ``power`` when the category's true rate is ``line * top_rate``
    (an impact ratio of exactly ``line``)? It is :func:`sample_size_for_power` at
    ``p1 = line * top_rate``, ``p2 = top_rate`` and ``ratio = 1``. For an audit's family of
    ``m`` comparisons, pass ``alpha / m``: the level of Holm's first step, at which a
    single gap among true nulls is tested. Results are cached (one per top rate and level).

    Returns
    -------
    int or None
        The applicants per category; ``None`` when ``top_rate`` is 0 (no ratio), ``line``
        is 1 or more (no gap), or the target is not met by ``max_n``.

    Raises
    ------
    ValueError
        As :func:`sample_size_for_power`, or when ``line`` is not positive.

    Examples
    --------
    >>> design_sample_size(0.36, alpha=0.05 / 26)
    1202
    """
    top_rate = _check_probability(top_rate, "top_rate")
    if not (math.isfinite(line) and line > 0.0):
        raise ValueError(f"line must be positive and finite, got line={line!r}")
    if top_rate == 0.0 or line >= 1.0:
        return None
    return sample_size_for_power(
        line * top_rate, top_rate, ratio=1.0, alpha=alpha, power=power, max_n=max_n
    )


# ---------------------------------------------------------------------- the finding


@dataclass(frozen=True, slots=True)
class GapFinding:
    """What the counts say about one category's gap to the top category.

    Attributes
    ----------
    k1, n1
        Selections and cases in the category.
    k2, n2
        Selections and cases in the top (comparison) category.
    impact_ratio
        ``(k1 / n1) / (k2 / n2)``; ``None`` when undefined (see ``reason``).
    reason
        Why ``impact_ratio`` is undefined, else ``None``.
    p_value
        One-sided Fisher exact p-value (:func:`fisher_lower`).
    power
        Exact power of that test at the observed rates and cell sizes
        (:func:`exact_power`); ``None`` when a rate is undefined.
    n_for_power
        Category cell size at which the test reaches ``power_target`` at the observed
        rates and cell-size ratio (:func:`sample_size_for_power`); ``None`` when there is
        no gap to detect, a rate is undefined or the target is not met by ``max_n``.
    significant
        ``p_value <= alpha``, or ``p_adjusted <= alpha`` when the p-value was adjusted.
    alpha, line, power_target
        The level, the impact-ratio line and the target power used.
    finding
        A machine code: ``"below_line_significant"``, ``"below_line_underpowered"``,
        ``"near_line"``, ``"above_line"`` or ``"ratio_undefined"``.
    sentence
        The finding in words, with the p-value, power and needed cell size.
    p_adjusted
        The p-value after the caller's adjustment for multiple comparisons (it decides
        ``significant``), else ``None``.
    adjustment
        The adjustment in words (e.g. ``"Holm-adjusted over the audit's 226
        comparisons"``), else ``None``.
    decision_level
        The level at which the caller's family-wise method tested this finding (for Holm,
        ``alpha / (m - r + 1)`` with ``r`` its rank among the family's p-values), else
        ``None``.
    power_at_decision_level
        Exact power of the test at ``decision_level``, at the observed rates and cell
        sizes: the power that means "the chance this finding would have been called
        significant" (``power`` is that of the unadjusted test, which never decides when
        there is a family); ``None`` without a ``decision_level`` or a defined ratio.
    design_level
        The family level the design figure is for (``alpha / m``), else ``None``.
    design_n
        Applicants per category (the same number in the category and in the top
        category) at which the test at ``design_level`` reaches ``power_target`` against an
        impact ratio of exactly ``line`` at the top category's observed rate
        (:func:`design_sample_size`); ``None`` without a ``design_level``, when the top
        category has no selections, or when the target is not met by ``max_n``.
    """

    k1: int
    n1: int
    k2: int
    n2: int
    impact_ratio: float | None
    reason: str | None
    p_value: float
    power: float | None
    n_for_power: int | None
    significant: bool
    alpha: float
    line: float
    power_target: float
    finding: FindingCode
    sentence: str
    p_adjusted: float | None = None
    adjustment: str | None = None
    decision_level: float | None = None
    power_at_decision_level: float | None = None
    design_level: float | None = None
    design_n: int | None = None


def _fmt_p(p: float) -> str:
    """A p-value for a sentence: four decimals, or a bound when it would print as 0."""
    return "p < 0.0001" if p < 0.00005 else f"p = {p:.4f}"


def _fmt_ratio(ratio: float, line: float) -> str:
    """The ratio with three decimals, or more when three would print it as the line."""
    for digits in range(3, 8):
        text = f"{ratio:.{digits}f}"
        if (ratio < line) == (float(text) < line):
            return text
    return repr(ratio)


def _fmt_needed(
    n_for_power: int | None, has_gap: bool, ratio: Fraction, target: float, max_n: int
) -> str:
    """The needed-sample clause of a sentence."""
    if not has_gap:
        return "the category's rate is not below the top category's, so there is no gap to size"
    if n_for_power is None:
        return (
            f"even {max_n:,} cases in the category would not give the test "
            f"{target:.0%} power against a gap this size"
        )
    other = _second_cell(n_for_power, ratio)
    return (
        f"about {n_for_power:,} cases in the category (with {other:,} in the top "
        f"category) would give it {target:.0%} power"
    )


def _fmt_design(design_n: int | None, level: float, target: float, line: float, max_n: int) -> str:
    """The design clause of a sentence: applicants per category at the family level."""
    if design_n is None:
        return (
            f"even {max_n:,} applicants per category would not give {target:.0%} power "
            f"against an impact ratio of {line:g} at the family level {level:.2g}"
        )
    return (
        f"to detect an impact ratio of {line:g} at the top category's rate with "
        f"{target:.0%} power at the family level {level:.2g}, an audit needs about "
        f"{design_n:,} applicants per category"
    )


def _describe(
    *,
    ratio: float,
    p_value: float,
    significant: bool,
    power: float,
    needed: str,
    alpha: float,
    line: float,
    margin: float,
    p_adjusted: float | None = None,
    adjustment: str | None = None,
    decision_level: float | None = None,
    power_at_decision_level: float | None = None,
) -> tuple[FindingCode, str]:
    """The finding code and sentence for a defined impact ratio."""
    shown = _fmt_ratio(ratio, line)
    test = f"one-sided Fisher exact {_fmt_p(p_value)}"
    power_text = f"{power:.0%} power at the observed rates and cell sizes"
    if p_adjusted is not None:
        test += f", {adjustment} to {_fmt_p(p_adjusted)}"
        power_text += f" at level {alpha:g} before the adjustment (unadjusted power)"
    if decision_level is not None and power_at_decision_level is not None:
        power_text += (
            f", and {power_at_decision_level:.0%} at level {decision_level:.2g}, the level "
            "the adjustment tested it at"
        )
    if ratio < line and significant:
        return "below_line_significant", (
            f"Impact ratio {shown} is under the {line:g} line and the gap is statistically "
            f"significant ({test} <= {alpha:g}). The test had {power_text}; {needed}. "
            "Investigate the cause."
        )
    if ratio < line:
        return "below_line_underpowered", (
            f"Impact ratio {shown} is under the {line:g} line, and the sample is too small "
            f"to confirm or rule out the gap: the {test} does not reach {alpha:g}, and the "
            f"test has only {power_text}; {needed}. Do not read the p-value as a clean "
            "result: investigate the cause now and pool a longer window for the next audit."
        )
    if ratio < line + margin:
        return "near_line", (
            f"Impact ratio {shown} is within {margin:g} above the {line:g} line, too close "
            f"to call clear of it ({test}; {power_text}; {needed}). Watch this category "
            "and pool a longer window for the next audit."
        )
    return "above_line", (
        f"Impact ratio {shown} is at or above the {line:g} line ({test}; {power_text}; {needed})."
    )


def assess_gap(
    k1: int,
    n1: int,
    k2: int,
    n2: int,
    *,
    alpha: float = 0.05,
    power_target: float = 0.80,
    line: float = 0.8,
    margin: float = 0.0,
    max_n: int = 200_000,
    p_adjusted: float | None = None,
    adjustment: str | None = None,
    decision_level: float | None = None,
    design_level: float | None = None,
) -> GapFinding:
    """Assess one category's selection rate against the top category's.

    Combines the impact ratio with the one-sided Fisher exact test, its exact power at the
    observed rates and the cell size it would need, and states a finding:

    * ``"below_line_significant"``: the ratio is under ``line`` and ``p <= alpha``.
    * ``"below_line_underpowered"``: the ratio is under ``line`` but ``p > alpha``. The
      sample is too small to confirm or rule out the gap; this is never a clean result.
      (Power at the observed rates tracks the p-value, so it is low whenever ``p`` is
      above ``alpha``; the needed cell size says how far the sample falls short.)
    * ``"near_line"``: the ratio is at or above ``line`` but below ``line + margin``.
    * ``"above_line"``: the ratio is at or above ``line + margin``.
    * ``"ratio_undefined"``: the category has no cases or the top category no
      selections, so there is no ratio to compare.

    Parameters
    ----------
    k1, n1
        Selections and cases in the category.
    k2, n2
        Selections and cases in the top category.
    alpha
        One-sided significance level, strictly between 0 and 1.
    power_target
        Power the needed cell size is computed for, strictly between 0 and 1.
    line
        Impact-ratio line (four-fifths by default).
    margin
        Width of the band above ``line`` reported as ``"near_line"``; ``>= 0``.
    max_n
        Largest category cell size the sample-size search considers.
    p_adjusted
        The test's p-value after an adjustment for multiple comparisons made by the
        caller (which knows the family). When given, it and not the raw p-value decides
        ``significant``, and the sentence quotes both; power and the needed cell size
        stay those of the unadjusted test at ``alpha``.
    adjustment
        The adjustment in words, for the sentence ("one-sided Fisher exact p = 0.0132,
        <adjustment> to p = 0.6310"); required with ``p_adjusted``.
    decision_level
        The level at which the caller's family-wise method tests this finding (Holm's
        ``alpha / (m - r + 1)``). When given, the finding also carries the exact power at
        that level: the chance, at the observed rates, that this comparison's own step
        rejects (an upper bound on the chance that Holm calls it significant). Power at
        ``alpha`` alone is post-hoc power of a test that does not decide (Hoenig and
        Heisey 2001); it stays, labelled unadjusted.
    design_level
        The family level (``alpha / m``) for the design figure: applicants per category
        for ``power_target`` against an impact ratio of ``line`` at the top category's
        observed rate (:func:`design_sample_size`).

    Returns
    -------
    GapFinding
        The numbers and the finding.

    Raises
    ------
    ValueError
        If a count is negative, selections exceed cases, ``alpha`` or ``power_target``
        lies outside ``(0, 1)``, ``line`` is not positive, ``margin`` is negative, or
        ``p_adjusted`` lies outside ``[p_value, 1]`` or comes without ``adjustment``.

    Examples
    --------
    >>> f = assess_gap(30, 120, 36, 100)
    >>> f.finding, round(f.impact_ratio, 3), round(f.p_value, 4), f.n_for_power
    ('below_line_underpowered', 0.694, 0.0522, 255)
    >>> assess_gap(40, 400, 36, 100).finding
    'below_line_significant'
    """
    k1, n1 = _check_counts(k1, n1, "the category")
    k2, n2 = _check_counts(k2, n2, "the top category")
    alpha = _check_open_unit(alpha, "alpha")
    power_target = _check_open_unit(power_target, "power_target")
    line = float(line)
    margin = float(margin)
    if not (math.isfinite(line) and line > 0.0):
        raise ValueError(f"line must be positive and finite, got line={line!r}")
    if not (math.isfinite(margin) and margin >= 0.0):
        raise ValueError(f"margin must be >= 0 and finite, got margin={margin!r}")

    for name, level in (("decision_level", decision_level), ("design_level", design_level)):
        if level is not None:
            _check_open_unit(level, name)
    p_value = fisher_lower(k1, n1, k2, n2)
    power_at_level: float | None = None
    design_n: int | None = None
    if p_adjusted is not None:
        p_adjusted = _check_probability(p_adjusted, "p_adjusted")
        if p_adjusted < p_value * (1.0 - _TIE_RTOL) or not adjustment:
            raise ValueError(
                f"p_adjusted={p_adjusted!r} must be at least the raw p-value {p_value!r} "
                "and come with the adjustment's name"
            )
    significant = _rejects(p_value if p_adjusted is None else p_adjusted, alpha)
    finding: FindingCode
    if n1 == 0 or k2 == 0:
        ratio: float | None = None
        reason: str | None = (
            "the category has no cases, so it has no selection rate"
            if n1 == 0
            else f"the top category has no selections (0 of {n2}), so no ratio can be formed"
        )
        power = None if n1 == 0 or n2 == 0 else exact_power(k1 / n1, n1, 0.0, n2, alpha)
        if power is not None and decision_level is not None:
            power_at_level = exact_power(k1 / n1, n1, 0.0, n2, decision_level)
        n_for_power = None
        finding = "ratio_undefined"
        sentence = (
            f"The impact ratio is undefined: {reason}. There is nothing to compare with "
            "the line; report the counts and collect more data."
        )
    else:
        ratio = (k1 * n2) / (n1 * k2)  # exact integers, one rounding
        reason = None
        rate1, rate2 = k1 / n1, k2 / n2
        power = exact_power(rate1, n1, rate2, n2, alpha)
        if decision_level is not None:
            power_at_level = exact_power(rate1, n1, rate2, n2, decision_level)
        n_for_power = sample_size_for_power(
            rate1, rate2, ratio=n2 / n1, alpha=alpha, power=power_target, max_n=max_n
        )
        needed = _fmt_needed(n_for_power, rate1 < rate2, Fraction(n2, n1), power_target, max_n)
        if design_level is not None:
            design_n = design_sample_size(
                rate2, line=line, alpha=design_level, power=power_target, max_n=max_n
            )
            needed += "; " + _fmt_design(design_n, design_level, power_target, line, max_n)
        finding, sentence = _describe(
            ratio=ratio,
            p_value=p_value,
            significant=significant,
            power=power,
            needed=needed,
            alpha=alpha,
            line=line,
            margin=margin,
            p_adjusted=p_adjusted,
            adjustment=adjustment,
            decision_level=decision_level,
            power_at_decision_level=power_at_level,
        )
    return GapFinding(
        k1=k1,
        n1=n1,
        k2=k2,
        n2=n2,
        impact_ratio=ratio,
        reason=reason,
        p_value=p_value,
        power=power,
        n_for_power=n_for_power,
        significant=significant,
        alpha=alpha,
        line=line,
        power_target=power_target,
        finding=finding,
        sentence=sentence,
        p_adjusted=p_adjusted,
        adjustment=adjustment,
        decision_level=decision_level,
        power_at_decision_level=power_at_level,
        design_level=design_level,
        design_n=design_n,
    )
