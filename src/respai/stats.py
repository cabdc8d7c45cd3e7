"""Interval estimates and bounds for proportions, from integer counts only.

Every function here is pure and deterministic: it takes counts (and a level), never a
dataframe, and does no I/O. Undefined quantities (a rate over zero cases) are returned as
``None`` rather than NaN; bad arguments (negative counts, more successes than cases, a
level outside ``(0, 1)``) raise :class:`ValueError`.

SciPy is imported lazily inside the functions that need the beta quantiles, so importing
this module stays cheap; normal quantiles come from :class:`statistics.NormalDist`.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Sequence
from statistics import NormalDist

from respai.types import Interval

__all__ = [
    "AUC_BOUND_COUNT",
    "AUC_INTERVAL_METHOD",
    "AUC_INTERVAL_REFERENCE",
    "AUC_SCORE_METHOD",
    "AUC_SCORE_REFERENCE",
    "auc_bound_interval",
    "auc_bound_joins",
    "auc_delong",
    "auc_from_rank_sums",
    "auc_interval",
    "auc_logit_interval",
    "auc_score_interval",
    "auc_score_variance",
    "bonferroni_alpha",
    "clopper_pearson_interval",
    "expected_calibration_error",
    "gap_bounds",
    "probability_bin",
    "rate",
    "widened_interval",
    "widened_intervals",
    "wilson_interval",
    "wilson_intervals",
]

_CLOPPER_PEARSON = "clopper-pearson"
_WILSON = "wilson"


def _check_counts(k: int, n: int) -> tuple[int, int]:
    """Return ``(k, n)`` as plain ints after checking ``0 <= k <= n``."""
    k = operator.index(k)
    n = operator.index(n)
    if n < 0:
        raise ValueError(f"the number of cases must be >= 0, got n={n}")
    if k < 0:
        raise ValueError(f"the number of successes must be >= 0, got k={k}")
    if k > n:
        raise ValueError(f"the number of successes k={k} exceeds the number of cases n={n}")
    return k, n


def _check_level(value: float, name: str) -> float:
    """Return ``value`` as a float after checking it lies strictly inside ``(0, 1)``."""
    value = float(value)
    if not 0.0 < value < 1.0:  # also rejects NaN
        raise ValueError(f"{name} must be strictly between 0 and 1, got {name}={value!r}")
    return value


def _cp_lower(k: int, n: int, alpha: float) -> float:
    """Exact lower bound at two-sided level ``1 - alpha``; ``0 <= k <= n``, ``n >= 1``."""
    if k == 0:
        return 0.0
    from respai.special import ufunc

    betaincinv = ufunc("betaincinv")

    return float(betaincinv(k, n - k + 1, alpha / 2.0))


def _cp_upper(k: int, n: int, alpha: float) -> float:
    """Exact upper bound at two-sided level ``1 - alpha``; ``0 <= k <= n``, ``n >= 1``."""
    if k == n:
        return 1.0
    from respai.special import ufunc

    betainccinv = ufunc("betainccinv")

    # The complemented inverse gives the upper quantile without the loss of precision of
    # betaincinv(a, b, 1 - alpha / 2) for small alpha.
    return float(betainccinv(k + 1, n - k, alpha / 2.0))


def rate(k: int, n: int) -> float | None:
    """Return the proportion ``k / n``, or ``None`` when there are no cases.

    Parameters
    ----------
    k
        Number of successes (events), ``0 <= k <= n``.
    n
        Number of cases, ``n >= 0``.

    Returns
    -------
    float or None
        ``k / n``; ``None`` when ``n == 0`` (the rate is undefined, not zero).

    Raises
    ------
    ValueError
        If ``k < 0``, ``n < 0`` or ``k > n``.

    Examples
    --------
    >>> rate(3, 4)
    0.75
    >>> rate(0, 0) is None
    True
    """
    k, n = _check_counts(k, n)
    if n == 0:
        return None
    return k / n


def wilson_interval(k: int, n: int, confidence: float = 0.95) -> Interval | None:
    """Return the Wilson score interval for ``k`` successes out of ``n`` cases.

    The same numbers as ``statsmodels.stats.proportion.proportion_confint(k, n,
    alpha=1 - confidence, method="wilson")``, clipped to ``[0, 1]``; the bound is exactly
    0 when ``k == 0`` and exactly 1 when ``k == n``.

    Parameters
    ----------
    k
        Number of successes, ``0 <= k <= n``.
    n
        Number of cases, ``n >= 0``.
    confidence
        Two-sided coverage level, strictly between 0 and 1.

    Returns
    -------
    Interval or None
        ``Interval(lo, hi, "wilson", confidence)``; ``None`` when ``n == 0``.

    Raises
    ------
    ValueError
        If ``k < 0``, ``n < 0``, ``k > n`` or ``confidence`` is not in ``(0, 1)``.

    Examples
    --------
    >>> iv = wilson_interval(5, 10)
    >>> round(iv.lo, 4), round(iv.hi, 4), iv.method
    (0.2366, 0.7634, 'wilson')
    >>> wilson_interval(0, 0) is None
    True
    """
    k, n = _check_counts(k, n)
    confidence = _check_level(confidence, "confidence")
    if n == 0:
        return None
    alpha = 1.0 - confidence
    crit = -NormalDist().inv_cdf(alpha / 2.0)  # the lower tail is accurate for tiny alpha
    crit2 = crit * crit
    q = k / n
    denom = 1.0 + crit2 / n
    center = (q + crit2 / (2.0 * n)) / denom
    dist = crit * math.sqrt(q * (1.0 - q) / n + crit2 / (4.0 * n * n)) / denom
    lo = 0.0 if k == 0 else min(max(center - dist, 0.0), 1.0)
    hi = 1.0 if k == n else min(max(center + dist, 0.0), 1.0)
    return Interval(lo, hi, _WILSON, confidence)


def wilson_intervals(
    k: Sequence[int], n: Sequence[int], confidence: float = 0.95
) -> list[Interval | None]:
    """:func:`wilson_interval` of many groups at one level, in numpy.

    The same arithmetic in the same order, each step one IEEE operation on float64, so
    every end is the float :func:`wilson_interval` gives (``None`` where ``n`` is 0); the
    counts are checked as there.

    Examples
    --------
    >>> wilson_intervals([5, 0, 3], [10, 0, 3]) == [
    ...     wilson_interval(5, 10), None, wilson_interval(3, 3)]
    True
    """
    import numpy as np

    ks, ns = list(k), list(n)
    if len(ks) != len(ns):
        raise ValueError("k and n must have one entry per group")
    for a, b in zip(ks, ns, strict=True):
        if a < 0 or b < 0 or a > b:
            _check_counts(a, b)  # raises the one group's message
    confidence = _check_level(confidence, "confidence")
    alpha = 1.0 - confidence
    crit = -NormalDist().inv_cdf(alpha / 2.0)
    crit2 = crit * crit
    kk = np.asarray(ks, dtype=np.int64)
    nn = np.asarray(ns, dtype=np.int64)
    some = nn > 0
    kf = kk[some].astype(np.float64)
    nf = nn[some].astype(np.float64)  # exact below 2**53, as Python's int / int
    q = kf / nf
    denom = 1.0 + crit2 / nf
    center = (q + crit2 / (2.0 * nf)) / denom
    dist = crit * np.sqrt(q * (1.0 - q) / nf + crit2 / (4.0 * nf * nf)) / denom
    lo = np.where(kk[some] == 0, 0.0, np.minimum(np.maximum(center - dist, 0.0), 1.0))
    hi = np.where(kk[some] == nn[some], 1.0, np.minimum(np.maximum(center + dist, 0.0), 1.0))
    found = iter(zip(lo.tolist(), hi.tolist(), strict=True))
    return [Interval(*next(found), _WILSON, confidence) if b else None for b in some.tolist()]


def clopper_pearson_interval(k: int, n: int, alpha: float) -> Interval | None:
    """Return the two-sided exact (Clopper-Pearson) interval at level ``1 - alpha``.

    ``lo`` is the ``alpha / 2`` quantile of ``Beta(k, n - k + 1)`` (0 when ``k == 0``) and
    ``hi`` the ``1 - alpha / 2`` quantile of ``Beta(k + 1, n - k)`` (1 when ``k == n``),
    the same numbers as ``statsmodels`` ``proportion_confint(..., method="beta")``.

    Parameters
    ----------
    k
        Number of successes, ``0 <= k <= n``.
    n
        Number of cases, ``n >= 0``.
    alpha
        Two-sided error rate, strictly between 0 and 1.

    Returns
    -------
    Interval or None
        ``Interval(lo, hi, "clopper-pearson", 1 - alpha)``; ``None`` when ``n == 0``.

    Raises
    ------
    ValueError
        If ``k < 0``, ``n < 0``, ``k > n`` or ``alpha`` is not in ``(0, 1)``.

    Examples
    --------
    >>> iv = clopper_pearson_interval(5, 10, 0.05)
    >>> round(iv.lo, 4), round(iv.hi, 4), iv.confidence
    (0.1871, 0.8129, 0.95)
    >>> clopper_pearson_interval(0, 0, 0.05) is None
    True
    """
    k, n = _check_counts(k, n)
    alpha = _check_level(alpha, "alpha")
    if n == 0:
        return None
    return Interval(_cp_lower(k, n, alpha), _cp_upper(k, n, alpha), _CLOPPER_PEARSON, 1.0 - alpha)


def widened_interval(k: int, missing: int, n: int, alpha: float) -> Interval:
    """Return an exact interval for a group whose ``n`` cases include unscored ones.

    ``missing`` of the ``n`` cases have no prediction, so whether they are events is
    unknown. The interval takes the worst case on each side: the lower bound counts them
    as non-events and the upper bound as events, i.e. ``lo`` is the Clopper-Pearson lower
    bound of ``(k, n)`` and ``hi`` the Clopper-Pearson upper bound of ``(k + missing, n)``.
    It therefore contains the Clopper-Pearson interval of ``(k + j, n)`` for every
    ``j = 0 .. missing``. With ``missing == 0`` it is the Clopper-Pearson interval.

    Parameters
    ----------
    k
        Number of observed events, ``k >= 0``.
    missing
        Number of cases without a prediction, ``missing >= 0`` and ``k + missing <= n``.
    n
        Number of cases in the group, missing ones included.
    alpha
        Two-sided error rate, strictly between 0 and 1.

    Returns
    -------
    Interval
        ``Interval(lo, hi, "clopper-pearson", 1 - alpha)``; ``[0, 1]`` when ``n == 0``
        (a group without cases says nothing).

    Raises
    ------
    ValueError
        If a count is negative, ``k + missing > n`` or ``alpha`` is not in ``(0, 1)``.

    Examples
    --------
    >>> iv = widened_interval(5, 2, 10, 0.05)
    >>> cp = clopper_pearson_interval(7, 10, 0.05)
    >>> iv.lo == clopper_pearson_interval(5, 10, 0.05).lo, iv.hi == cp.hi
    (True, True)
    >>> widened_interval(0, 0, 0, 0.05)
    Interval(lo=0.0, hi=1.0, method='clopper-pearson', confidence=0.95)
    """
    missing = operator.index(missing)
    if missing < 0:
        raise ValueError(f"the number of missing cases must be >= 0, got missing={missing}")
    k, n = _check_counts(k, n)
    if k + missing > n:
        raise ValueError(
            f"observed events k={k} plus missing cases missing={missing} exceed the number "
            f"of cases n={n}"
        )
    alpha = _check_level(alpha, "alpha")
    if n == 0:
        return Interval(0.0, 1.0, _CLOPPER_PEARSON, 1.0 - alpha)
    return Interval(
        _cp_lower(k, n, alpha), _cp_upper(k + missing, n, alpha), _CLOPPER_PEARSON, 1.0 - alpha
    )


def widened_intervals(
    k: Sequence[int], missing: Sequence[int], n: Sequence[int], alpha: float
) -> list[Interval]:
    """:func:`widened_interval` of many groups at one ``alpha``, with array calls.

    Each end is one call of the same scipy function on arrays (``betaincinv`` for the
    lower ends, ``betainccinv`` for the upper), which gives the same floats as the calls
    one group at a time; the counts are checked as there.

    Examples
    --------
    >>> many = widened_intervals([5, 0], [2, 0], [10, 0], 0.05)
    >>> many == [widened_interval(5, 2, 10, 0.05), widened_interval(0, 0, 0, 0.05)]
    True
    """
    import numpy as np

    from respai.special import ufunc

    betainccinv = ufunc("betainccinv")
    betaincinv = ufunc("betaincinv")

    alpha = _check_level(alpha, "alpha")
    ks, ms, ns = list(k), list(missing), list(n)
    if not len(ks) == len(ms) == len(ns):
        raise ValueError("k, missing and n must have one entry per group")
    for a, b, c in zip(ks, ms, ns, strict=True):
        if operator.index(b) < 0 or a < 0 or c < 0 or a + b > c:
            widened_interval(a, b, c, alpha)  # raises the one group's message
    kk = np.asarray(ks, dtype=np.int64)
    top = kk + np.asarray(ms, dtype=np.int64)
    nn = np.asarray(ns, dtype=np.int64)
    lo = np.zeros(len(ks))
    hi = np.ones(len(ks))
    some = (kk > 0) & (nn > 0)
    lo[some] = betaincinv(kk[some], nn[some] - kk[some] + 1, alpha / 2.0)
    below = (top < nn) & (nn > 0)
    hi[below] = betainccinv(top[below] + 1, nn[below] - top[below], alpha / 2.0)
    level = 1.0 - alpha
    return [
        Interval(a, b, _CLOPPER_PEARSON, level)
        for a, b in zip(lo.tolist(), hi.tolist(), strict=True)
    ]


def bonferroni_alpha(alpha: float, groups: int) -> float:
    """Return the per-interval error rate ``alpha / groups`` for simultaneous coverage.

    Parameters
    ----------
    alpha
        Family-wise error rate, strictly between 0 and 1.
    groups
        Number of intervals that must hold together, ``groups >= 1``.

    Returns
    -------
    float
        ``alpha / groups``.

    Raises
    ------
    ValueError
        If ``groups < 1`` or ``alpha`` is not in ``(0, 1)``.

    Examples
    --------
    >>> bonferroni_alpha(0.05, 5)
    0.01
    """
    alpha = _check_level(alpha, "alpha")
    groups = operator.index(groups)
    if groups < 1:
        raise ValueError(f"the number of groups must be >= 1, got groups={groups}")
    return alpha / groups


def gap_bounds(a: Interval, b: Interval) -> tuple[float, float]:
    """Return bounds on ``rate_a - rate_b`` implied by two simultaneous intervals.

    If both intervals hold, ``a.lo - b.hi <= rate_a - rate_b <= a.hi - b.lo``.

    Parameters
    ----------
    a, b
        Intervals for the two rates, jointly valid (e.g. Bonferroni-adjusted).

    Returns
    -------
    tuple of float
        ``(a.lo - b.hi, a.hi - b.lo)``.

    Examples
    --------
    >>> gap_bounds(Interval(0.5, 0.75, "wilson", 0.95), Interval(0.25, 0.5, "wilson", 0.95))
    (0.0, 0.5)
    """
    return a.lo - b.hi, a.hi - b.lo


def probability_bin(p: float, bins: int) -> int:
    """Return the index of the equal-width bin that holds probability ``p``.

    Bin ``i`` is ``[i / bins, (i + 1) / bins)`` and the last bin is closed, so ``p = 1``
    falls in bin ``bins - 1``: the index is ``min(floor(p * bins), bins - 1)``, with the
    product computed in floating point.

    Parameters
    ----------
    p
        A probability in ``[0, 1]``.
    bins
        Number of bins, ``bins >= 1``.

    Returns
    -------
    int
        The bin index, ``0 <= index < bins``.

    Raises
    ------
    ValueError
        If ``p`` is not in ``[0, 1]`` (or is NaN) or ``bins < 1``.

    Examples
    --------
    >>> probability_bin(0.1, 10), probability_bin(0.95, 10), probability_bin(1.0, 10)
    (1, 9, 9)
    """
    bins = operator.index(bins)
    if bins < 1:
        raise ValueError(f"the number of bins must be >= 1, got bins={bins}")
    p = float(p)
    if not 0.0 <= p <= 1.0:  # also rejects NaN
        raise ValueError(f"a probability must be in [0, 1], got p={p!r}")
    return min(math.floor(p * bins), bins - 1)


def expected_calibration_error(bins: Sequence[tuple[int, int, float]]) -> float | None:
    """Return the expected calibration error from per-bin totals.

    ``ECE = sum_b (n_b / N) * |sum_prob_b / n_b - positives_b / n_b|`` over the bins with
    ``n_b > 0``, where ``N`` is the total count; it is computed as
    ``sum_b |sum_prob_b - positives_b| / N``, which is the same quantity.

    Parameters
    ----------
    bins
        One ``(n_b, positives_b, sum_of_probabilities_b)`` triple per probability bin
        (see :func:`probability_bin` for the bin convention); empty bins may be included.

    Returns
    -------
    float or None
        The ECE in ``[0, 1]``; ``None`` when there are no cases at all.

    Raises
    ------
    ValueError
        If a bin has ``n_b < 0``, ``positives_b`` outside ``[0, n_b]``, or a
        probability sum that is not finite.

    Examples
    --------
    >>> expected_calibration_error([(2, 1, 0.5), (2, 2, 1.5)])
    0.25
    >>> expected_calibration_error([(0, 0, 0.0)]) is None
    True
    """
    total = 0
    deviations: list[float] = []
    for n_b, positives_b, sum_prob_b in bins:
        positives_b, n_b = _check_counts(positives_b, n_b)
        sum_prob_b = float(sum_prob_b)
        if not math.isfinite(sum_prob_b):
            raise ValueError(f"a bin's probability sum must be finite, got {sum_prob_b!r}")
        if n_b == 0:
            continue
        total += n_b
        deviations.append(abs(sum_prob_b - positives_b))
    if total == 0:
        return None
    return math.fsum(deviations) / total


def auc_delong(
    histogram: Sequence[tuple[float, int, int]], confidence: float = 0.95
) -> tuple[float, Interval | None, float | None] | None:
    """AUC by rank with ties counted half, and its DeLong interval, from a score histogram.

    Parameters
    ----------
    histogram
        ``(score, positives, negatives)`` for each distinct score value, in any order.
    confidence
        Level of the two-sided interval.

    Returns
    -------
    tuple or None
        ``(auc, interval, standard_error)``; ``None`` when there are no positives or no
        negatives (AUC undefined). The interval and standard error are ``None`` when there
        are fewer than two positives or two negatives (the DeLong variance needs both).

    Notes
    -----
    AUC is the Mann-Whitney statistic ``P(S+ > S-) + P(S+ = S-) / 2``. DeLong et al.
    (1988) estimate its variance from the placement values: a positive at score ``s``
    has ``V10 = (negatives below s + negatives at s / 2) / n``, a negative at ``s`` has
    ``V01 = (positives above s + positives at s / 2) / m``; ``var = S10 / m + S01 / n``
    with ``S10``, ``S01`` their sample variances. Every case with the same score has the
    same placement, so the histogram is enough. The interval is ``auc ± z·se``, clipped
    to [0, 1].

    Examples
    --------
    >>> auc, iv, se = auc_delong([(0.1, 0, 2), (0.4, 1, 1), (0.8, 2, 0)])
    >>> round(auc, 4)
    0.9444
    """
    _check_level(confidence, "confidence")
    cells = sorted((float(s), operator.index(p), operator.index(q)) for s, p, q in histogram)
    m = sum(c[1] for c in cells)
    n = sum(c[2] for c in cells)
    if m == 0 or n == 0:
        return None
    below = 0  # negatives with a lower score
    v10: list[tuple[float, int]] = []
    for _, pos, neg in cells:
        if pos:
            v10.append(((below + neg / 2.0) / n, pos))
        below += neg
    auc = math.fsum(v * w for v, w in v10) / m
    if m < 2 or n < 2:
        return auc, None, None
    above = m  # positives with a higher-or-equal score, updated as we go
    v01: list[tuple[float, int]] = []
    for _, pos, neg in cells:
        above -= pos
        if neg:
            v01.append(((above + pos / 2.0) / m, neg))
    s10 = math.fsum(w * (v - auc) ** 2 for v, w in v10) / (m - 1)
    s01 = math.fsum(w * (v - auc) ** 2 for v, w in v01) / (n - 1)
    se = math.sqrt(s10 / m + s01 / n)
    z = -NormalDist().inv_cdf((1.0 - confidence) / 2.0)
    interval = Interval(max(0.0, auc - z * se), min(1.0, auc + z * se), "delong", confidence)
    return auc, interval, se


def auc_from_rank_sums(
    positives: int,
    negatives: int,
    twice_u: int,
    positive_squares: int,
    negative_squares: int,
    confidence: float = 0.95,
) -> tuple[float, Interval | None, float | None] | None:
    """AUC by rank with ties counted half, and its DeLong interval, from exact rank sums.

    Parameters
    ----------
    positives, negatives
        ``m`` cases labelled 1 and ``n`` labelled 0, with a score.
    twice_u
        ``sum(x)`` over positives, ``x = 2 * (negatives lower) + (negatives equal)``:
        twice the Mann-Whitney U.
    positive_squares, negative_squares
        ``sum(x**2)`` over positives and ``sum(v**2)`` over negatives, where
        ``v = 2 * (positives higher) + (positives equal)``.
    confidence
        Level of the two-sided interval.

    Returns
    -------
    tuple or None
        As :func:`auc_delong`: ``(auc, interval, standard_error)``, ``None`` without both
        labels, interval and error ``None`` with fewer than two of either label.

    Notes
    -----
    The DeLong placements are ``V10 = x / (2n)`` and ``V01 = v / (2m)``, with mean
    ``auc = twice_u / (2mn)``. Their sample variances follow exactly from the sums:
    ``S10 = (m * sum(x**2) - twice_u**2) / (4 n**2 m (m - 1))`` and
    ``S01 = (n * sum(v**2) - twice_u**2) / (4 m**2 n (n - 1))``; the numerators are exact
    integers, so the result does not depend on the order of the cases, the engine or the
    thread count. ``se = sqrt(S10 / m + S01 / n)`` and the interval is ``auc ± z·se``
    clipped to [0, 1]. This equals :func:`auc_delong` on the same cases.

    Examples
    --------
    >>> auc, iv, se = auc_from_rank_sums(3, 3, 17, 97, 97)
    >>> round(auc, 4)
    0.9444
    """
    _check_level(confidence, "confidence")
    m, n = operator.index(positives), operator.index(negatives)
    u2 = operator.index(twice_u)
    if m == 0 or n == 0:
        return None
    auc = u2 / (2 * m * n)
    if m < 2 or n < 2:
        return auc, None, None
    s10 = (m * operator.index(positive_squares) - u2 * u2) / (4 * n * n * m * (m - 1))
    s01 = (n * operator.index(negative_squares) - u2 * u2) / (4 * m * m * n * (n - 1))
    se = math.sqrt(max(0.0, s10 / m + s01 / n))
    z = -NormalDist().inv_cdf((1.0 - confidence) / 2.0)
    interval = Interval(max(0.0, auc - z * se), min(1.0, auc + z * se), "delong", confidence)
    return auc, interval, se


#: The ``Interval.method`` of :func:`auc_score_interval`.
AUC_SCORE_METHOD = "newcombe-score"
#: Where :func:`auc_score_interval` is defined, for the record and the methods page.
AUC_SCORE_REFERENCE = (
    "Newcombe, R. G. (2006). Confidence intervals for an effect size measure based on the "
    "Mann-Whitney statistic. Part 2: Asymptotic methods and evaluation. Statistics in "
    "Medicine 25(4), 559-573; method 5 (Hanley-McNeil variance as a function of the AUC, "
    "m* = n* = (m + n)/2 - 1, endpoints solved as a score interval)"
)


def auc_score_variance(theta: float, positives: int, negatives: int) -> float:
    """Newcombe's (2006) Hanley-McNeil variance of the rank AUC at a true AUC ``theta``.

    ``V(theta) = theta (1 - theta) / (m n) * (1 + N* (1 - theta) / (2 - theta)
    + N* theta / (1 + theta))`` with ``N* = (m + n) / 2 - 1``: Hanley and McNeil's (1982)
    variance, whose ``Q1 = theta / (2 - theta)`` and ``Q2 = 2 theta**2 / (1 + theta)``
    come from exponential score distributions, with ``m - 1`` and ``n - 1`` both
    replaced by ``N*`` (method 5 of Newcombe 2006). It is 0 at ``theta = 0`` and ``1``.

    Parameters
    ----------
    theta
        A value of the AUC in ``[0, 1]``.
    positives, negatives
        ``m`` cases labelled 1 and ``n`` labelled 0, both ``>= 1``.

    Returns
    -------
    float
        The variance, ``>= 0``.

    Raises
    ------
    ValueError
        If ``theta`` is not in ``[0, 1]`` or a count is below 1.

    Examples
    --------
    >>> round(auc_score_variance(0.5, 10, 10), 6)  # 0.25 / 100 * (1 + 3 + 3)
    0.0175
    """
    theta = float(theta)
    if not 0.0 <= theta <= 1.0:  # also rejects NaN
        raise ValueError(f"an AUC must be in [0, 1], got theta={theta!r}")
    m, n = operator.index(positives), operator.index(negatives)
    if m < 1 or n < 1:
        raise ValueError(f"the variance needs m >= 1 and n >= 1, got m={m}, n={n}")
    return _hanley_mcneil(theta, (m + n) / 2.0 - 1.0, m * n)


def _hanley_mcneil(theta: float, star: float, mn: int) -> float:
    """:func:`auc_score_variance` of checked arguments, with ``N*`` and ``m n`` given."""
    shape = 1.0 + star * (1.0 - theta) / (2.0 - theta) + star * theta / (1.0 + theta)
    return theta * (1.0 - theta) * shape / mn


def _score_bound(estimate: float, z: float, m: int, n: int, *, upper: bool) -> float:
    """The end of ``{theta: |estimate - theta| <= z sqrt(V(theta))}`` on one side.

    ``f(theta) = z sqrt(V(theta)) - |theta - estimate|`` is concave on each side of the
    estimate (``sqrt(V)`` is concave), ``>= 0`` at the estimate and ``< 0`` at the far
    end of [0, 1] unless the estimate is there, so the set is one interval and bisection
    finds its end to the last bit.
    """
    far = 1.0 if upper else 0.0
    if estimate == far:
        return far

    auc_score_variance(estimate, m, n)  # checks the arguments once, not per step
    m, n = operator.index(m), operator.index(n)  # Python ints: m n cannot overflow
    star, mn = (m + n) / 2.0 - 1.0, m * n

    def inside(theta: float) -> bool:
        return z * math.sqrt(_hanley_mcneil(theta, star, mn)) >= abs(theta - estimate)

    near = estimate  # inside; ``far`` is outside
    while True:
        mid = (near + far) / 2.0
        if mid in (near, far):
            return near
        if inside(mid):
            near = mid
        else:
            far = mid


def auc_score_interval(
    positives: int, negatives: int, twice_u: int, confidence: float = 0.95
) -> Interval | None:
    """Newcombe's score interval (2006, method 5) for the rank AUC, from its counts.

    The interval holds every ``theta`` with ``(auc - theta)**2 <= z**2 V(theta)``, where
    ``auc = twice_u / (2 m n)`` and ``V`` is :func:`auc_score_variance`: a score
    interval, in the way Wilson's is for a proportion. Because the variance is taken at
    ``theta`` rather than at the estimate, the interval is never a single point: a
    perfectly separated sample (AUC 1) or one whose scores all tie (AUC 0.5) gets a
    proper interval, and it stays inside [0, 1] without clipping.

    Parameters
    ----------
    positives, negatives
        ``m`` cases labelled 1 and ``n`` labelled 0, with a score.
    twice_u
        Twice the Mann-Whitney U, ties counted half: ``0 <= twice_u <= 2 m n``.
    confidence
        Level of the two-sided interval.

    Returns
    -------
    Interval or None
        ``Interval(lo, hi, "newcombe-score", confidence)``; ``None`` when there are no
        positives or no negatives (the AUC is undefined).

    Raises
    ------
    ValueError
        If a count is negative, ``twice_u`` is outside ``[0, 2 m n]`` or ``confidence``
        is not in ``(0, 1)``.

    Notes
    -----
    The variance is a model's (Hanley and McNeil's exponential score shape). In a
    fixed-seed simulation with 10 or more cases of each label, the 95% interval covered
    94.7-100% for equal-spread binormal scores and for scores tied into five levels.
    It covered as little as 81% when the smaller label's scores spread wider than the
    other label's (10 + 500 cases, spread ratio 3) and 84% for bimodal positives
    (30 + 300, AUC 0.6). The battery therefore reads :func:`auc_interval`, which widens
    this interval where needed (``tests/stats/test_auc_coverage.py``; the methods page
    gives the table).

    Examples
    --------
    >>> iv = auc_score_interval(2, 2, 8)  # AUC 1 from two cases of each label
    >>> round(iv.lo, 4), iv.hi, iv.method
    (0.3856, 1.0, 'newcombe-score')
    >>> auc_score_interval(0, 5, 0) is None
    True
    """
    confidence = _check_level(confidence, "confidence")
    m, n = operator.index(positives), operator.index(negatives)
    u2 = operator.index(twice_u)
    if m < 0 or n < 0:
        raise ValueError(f"the label counts must be >= 0, got m={m}, n={n}")
    if m == 0 or n == 0:
        return None
    if not 0 <= u2 <= 2 * m * n:
        raise ValueError(f"twice_u={u2} is outside [0, 2 m n] = [0, {2 * m * n}]")
    estimate = u2 / (2 * m * n)
    z = -NormalDist().inv_cdf((1.0 - confidence) / 2.0)
    lo = _score_bound(estimate, z, m, n, upper=False)
    hi = _score_bound(estimate, z, m, n, upper=True)
    return Interval(lo, hi, AUC_SCORE_METHOD, confidence)


#: The ``Interval.method`` of :func:`auc_interval`, the interval the battery reads.
AUC_INTERVAL_METHOD = "widest-of-newcombe-delong-logit-bound"
#: Where the parts of :func:`auc_interval` are defined, for the record and the methods page.
AUC_INTERVAL_REFERENCE = (
    "The widest of: Newcombe, R. G. (2006), Statistics in Medicine 25(4), 559-573, method 5 "
    "(score interval with the Hanley-McNeil variance); DeLong, DeLong & Clarke-Pearson "
    "(1988), Biometrics 44(3), 837-845, variance on the logit scale (Qin & Hotilovac 2008, "
    "Statistical Methods in Medical Research 17(2), 207-221) with a Welch-Satterthwaite t "
    "quantile; and, when min(m, n) * min(AUC, 1 - AUC) < 5, the score interval with "
    "Birnbaum & Klose's (1957, Annals of Mathematical Statistics 28(4), 933-945) largest "
    "variance theta (1 - theta) / min(m, n)"
)
#: The bound of :func:`auc_bound_interval` joins :func:`auc_interval` when
#: ``min(m, n) * min(auc, 1 - auc)`` is below this count (the rule of thumb ``n p >= 5``
#: for a normal approximation, with the smaller label's cases as ``n``).
AUC_BOUND_COUNT = 5


def _delong_parts(
    m: int, n: int, u2: int, positive_squares: int, negative_squares: int
) -> tuple[float, float]:
    """``(S10 / m, S01 / n)``: the two terms of DeLong's variance, from exact integers."""
    s10 = (m * operator.index(positive_squares) - u2 * u2) / (4 * n * n * m * (m - 1))
    s01 = (n * operator.index(negative_squares) - u2 * u2) / (4 * m * m * n * (n - 1))
    return max(0.0, s10 / m), max(0.0, s01 / n)


def _check_auc_counts(positives: int, negatives: int, twice_u: int) -> tuple[int, int, int]:
    m, n = operator.index(positives), operator.index(negatives)
    u2 = operator.index(twice_u)
    if m < 0 or n < 0:
        raise ValueError(f"the label counts must be >= 0, got m={m}, n={n}")
    if not 0 <= u2 <= 2 * m * n:
        raise ValueError(f"twice_u={u2} is outside [0, 2 m n] = [0, {2 * m * n}]")
    return m, n, u2


def auc_logit_interval(
    positives: int,
    negatives: int,
    twice_u: int,
    positive_squares: int,
    negative_squares: int,
    confidence: float = 0.95,
) -> Interval | None:
    """DeLong's variance on the logit scale, with a Welch-Satterthwaite t quantile.

    With ``auc = twice_u / (2 m n)`` and DeLong's terms ``a = S10 / m``, ``b = S01 / n``
    (as in :func:`auc_from_rank_sums`), the interval is
    ``expit(logit(auc) ± t · sqrt(a + b) / (auc (1 - auc)))``, where ``t`` is the
    ``(1 + confidence) / 2`` quantile of Student's t with Welch-Satterthwaite degrees of
    freedom ``(a + b)**2 / (a**2 / (m - 1) + b**2 / (n - 1))`` (at least 1). The logit
    keeps the interval inside (0, 1) and lets it lean away from the nearer end; the t
    quantile pays for estimating the variance from few cases of the smaller label.

    Parameters
    ----------
    positives, negatives, twice_u, positive_squares, negative_squares
        The rank sums of :class:`respai.counts.RankSums`.
    confidence
        Level of the two-sided interval.

    Returns
    -------
    Interval or None
        ``Interval(lo, hi, "delong-logit-t", confidence)``; ``None`` when it is undefined:
        fewer than two cases of either label, an AUC of exactly 0 or 1, or a DeLong
        variance of 0 (every score tied).

    Examples
    --------
    >>> iv = auc_logit_interval(3, 3, 17, 97, 97)
    >>> round(iv.lo, 4), round(iv.hi, 4)
    (0.2101, 0.9991)
    >>> auc_logit_interval(2, 2, 8, 32, 32) is None  # AUC 1
    True
    """
    confidence = _check_level(confidence, "confidence")
    m, n, u2 = _check_auc_counts(positives, negatives, twice_u)
    if m < 2 or n < 2 or u2 in (0, 2 * m * n):
        return None
    a, b = _delong_parts(m, n, u2, positive_squares, negative_squares)
    if a + b <= 0.0:
        return None
    from respai.special import ufunc

    stdtrit = ufunc("stdtrit")  # Student's t quantile (scipy.stats.t.ppf's core)

    df = max(1.0, (a + b) ** 2 / (a * a / (m - 1) + b * b / (n - 1)))
    q = float(stdtrit(df, (1.0 + confidence) / 2.0))
    auc = u2 / (2 * m * n)
    centre = math.log(auc / (1.0 - auc))
    half = q * math.sqrt(a + b) / (auc * (1.0 - auc))
    lo = 1.0 / (1.0 + math.exp(-(centre - half)))
    hi = 1.0 / (1.0 + math.exp(-(centre + half)))
    return Interval(lo, hi, "delong-logit-t", confidence)


def auc_bound_interval(
    positives: int, negatives: int, twice_u: int, confidence: float = 0.95
) -> Interval | None:
    """The score interval under the largest variance any score distribution allows.

    Birnbaum and Klose (1957) showed that the variance of the rank AUC is at most
    ``theta (1 - theta) / min(m, n)`` whatever the two score distributions. Solving
    ``(auc - theta)**2 <= z**2 theta (1 - theta) / k`` with ``k = min(m, n)`` gives
    Wilson's interval for ``auc`` as if it were a proportion of ``k`` cases.

    Parameters
    ----------
    positives, negatives, twice_u
        ``m``, ``n`` and twice the Mann-Whitney U, as in :func:`auc_score_interval`.
    confidence
        Level of the two-sided interval.

    Returns
    -------
    Interval or None
        ``Interval(lo, hi, "birnbaum-klose-score", confidence)``; ``None`` without both
        labels.

    Examples
    --------
    >>> iv = auc_bound_interval(10, 500, 9000)  # AUC 0.9 from 10 + 500 cases
    >>> round(iv.lo, 4), round(iv.hi, 4)
    (0.5958, 0.9821)
    """
    confidence = _check_level(confidence, "confidence")
    m, n, u2 = _check_auc_counts(positives, negatives, twice_u)
    if m == 0 or n == 0:
        return None
    k = min(m, n)
    p = u2 / (2 * m * n)
    z = -NormalDist().inv_cdf((1.0 - confidence) / 2.0)
    c = z * z / k
    centre = (p + c / 2.0) / (1.0 + c)
    half = z / (1.0 + c) * math.sqrt(p * (1.0 - p) / k + z * z / (4.0 * k * k))
    return Interval(
        max(0.0, centre - half), min(1.0, centre + half), "birnbaum-klose-score", confidence
    )


def auc_interval(
    positives: int,
    negatives: int,
    twice_u: int,
    positive_squares: int,
    negative_squares: int,
    confidence: float = 0.95,
) -> Interval | None:
    """The AUC interval the battery reads: the widest of three, from the rank sums.

    Its ends are the lowest lower end and the highest upper end of

    - :func:`auc_score_interval` (Newcombe's score interval, method 5): it holds at small
      sizes and at AUCs near 1, where DeLong's variance collapses;
    - :func:`auc_logit_interval` (DeLong on the logit scale with a t quantile), when
      defined: its variance is estimated from the cases, so it does not assume the two
      labels' scores spread alike, as Newcombe's does;
    - :func:`auc_bound_interval` (the largest variance any scores allow), only when
      ``min(m, n) * min(auc, 1 - auc) < AUC_BOUND_COUNT`` (5): the smaller label then
      holds only a handful of cases expected on the wrong side of the other label, and
      when its scores spread wider than the other's, a sample that misses its few low
      scores looks both better and surer than the population; the first two parts
      undercover there (down to 88%), and only a variance no score shape can exceed
      covers.

    Parameters
    ----------
    positives, negatives, twice_u, positive_squares, negative_squares
        The rank sums of :class:`respai.counts.RankSums`.
    confidence
        Level of the two-sided interval.

    Returns
    -------
    Interval or None
        ``Interval(lo, hi, AUC_INTERVAL_METHOD, confidence)``; ``None`` without both labels.

    Notes
    -----
    Coverage is a simulated property, not a guarantee: at 95% and with 10 or more cases of
    each label it covered at least 93% in every cell of a fixed-seed grid (binormal
    scores with the positives spread 1/3, 1 or 3 times as wide as the negatives, bimodal
    and heavily tied scores; 10 + 10 to 1,000 + 1,000 cases, 10 + 500 among them; true
    AUC 0.6 to 0.99), 2,000 samples a cell; ``tests/stats/test_auc_interval.py`` and the
    methods page give the table and its conditions.

    Examples
    --------
    >>> iv = auc_interval(10, 10, 200, 10 * 20**2, 10 * 20**2)  # AUC 1 from 10 + 10
    >>> round(iv.lo, 4), iv.hi
    (0.7225, 1.0)
    """
    score = auc_score_interval(positives, negatives, twice_u, confidence)
    if score is None:
        return None
    lo, hi = score.lo, score.hi
    parts = [
        auc_logit_interval(
            positives, negatives, twice_u, positive_squares, negative_squares, confidence
        )
    ]
    if auc_bound_joins(positives, negatives, twice_u):
        parts.append(auc_bound_interval(positives, negatives, twice_u, confidence))
    for part in parts:
        if part is not None:
            lo, hi = min(lo, part.lo), max(hi, part.hi)
    return Interval(lo, hi, AUC_INTERVAL_METHOD, confidence)


def auc_bound_joins(positives: int, negatives: int, twice_u: int) -> bool:
    """Whether :func:`auc_interval` takes in :func:`auc_bound_interval`.

    True when ``min(m, n) * min(auc, 1 - auc) < AUC_BOUND_COUNT``, compared exactly in
    integers: ``min(m, n) * min(twice_u, 2 m n - twice_u) < AUC_BOUND_COUNT * 2 m n``.

    Examples
    --------
    >>> auc_bound_joins(100, 100, 2 * 100 * 100 * 96 // 100)  # AUC 0.96: 100 * 0.04 = 4
    True
    >>> auc_bound_joins(100, 100, 2 * 100 * 100 * 95 // 100)  # AUC 0.95: 100 * 0.05 = 5
    False
    """
    m, n, u2 = _check_auc_counts(positives, negatives, twice_u)
    both = 2 * m * n
    return min(m, n) * min(u2, both - u2) < AUC_BOUND_COUNT * both
