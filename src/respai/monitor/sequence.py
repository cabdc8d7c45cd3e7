"""Anytime-valid confidence sequences for a rate: the beta-binomial mixture martingale.

For cases observed one after another with events ``X_i ~ Bernoulli(p)``, after ``n`` cases
with ``k`` events the mixture martingale (Robbins 1970) with a Beta(a, b) mixing density is

    M_n(p) = B(a + k, b + n - k) / B(a, b) / (p^k (1 - p)^(n - k)),

a non-negative martingale with ``M_0 = 1`` under the true ``p``. By Ville's inequality,
``P(M_n(p) >= 1/alpha for some n) <= alpha``, so the sets

    C_n = {p : M_n(p) < 1/alpha}

hold the true rate **at every n at once** with probability at least ``1 - alpha``: looking
after every batch, however many batches, never inflates the error (Howard, Ramdas,
McAuliffe and Sekhon 2021, "Time-uniform, nonparametric, nonasymptotic confidence
sequences", *Annals of Statistics* 49(2), section 3). Each ``C_n`` is an interval, because
``log M_n(p)`` is convex in ``p``; its ends are found by root finding. respai mixes with
the Jeffreys density, ``a = b = 1/2``.
"""

from __future__ import annotations

import math

from respai.types import Interval

__all__ = ["CS_METHOD", "confidence_sequence", "log_martingale", "widened_sequence"]

#: The record's name for the interval (mixing density Beta(1/2, 1/2)).
CS_METHOD = "beta-binomial-mixture-cs"
_A = 0.5
_B = 0.5


def log_martingale(k: int, n: int, p: float, a: float = _A, b: float = _B) -> float:
    """``log M_n(p)`` after ``k`` events in ``n`` cases (``+inf`` where ``p`` is impossible)."""
    from respai.special import ufunc

    betaln = ufunc("betaln")

    if not 0 <= k <= n:
        raise ValueError(f"need 0 <= k <= n, got k={k}, n={n}")
    log_lik = 0.0
    if k:
        if p <= 0.0:
            return math.inf
        log_lik += k * math.log(p)
    if n - k:
        if p >= 1.0:
            return math.inf
        log_lik += (n - k) * math.log1p(-p)
    return float(betaln(a + k, b + n - k) - betaln(a, b)) - log_lik


def confidence_sequence(k: int, n: int, alpha: float) -> Interval:
    """The confidence sequence's interval after ``k`` events in ``n`` cases.

    Parameters
    ----------
    k, n
        Events and cases observed so far (cumulative).
    alpha
        The error allowed over the whole sequence of looks, ``0 < alpha < 1``.

    Returns
    -------
    Interval
        ``[lo, hi]`` with method :data:`CS_METHOD` and confidence ``1 - alpha``
        (time-uniform); ``[0, 1]`` before any case.
    """
    from scipy.optimize import brentq

    if not 0.0 < alpha < 1.0:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")
    if n == 0:
        return Interval(0.0, 1.0, CS_METHOD, 1.0 - alpha)
    level = math.log(1.0 / alpha)
    p_hat = k / n

    def excess(p: float) -> float:
        return log_martingale(k, n, p) - level

    # the minimum of log M is at p_hat, where M < 1/alpha for n >= 1 (the mixture's mass)
    eps = 1e-15
    lo = 0.0 if k == 0 or excess(eps) < 0 else brentq(excess, eps, p_hat, xtol=1e-13)
    hi = 1.0 if k == n or excess(1 - eps) < 0 else brentq(excess, p_hat, 1 - eps, xtol=1e-13)
    return Interval(float(lo), float(hi), CS_METHOD, 1.0 - alpha)


def widened_sequence(k: int, missing: int, n: int, alpha: float) -> Interval:
    """The sequence's interval for a group whose ``n`` cases include ``missing`` undecided.

    As the group rules do, the worst case on each side: the lower end counts the missing
    cases as non-events (``k`` of ``n``), the upper end as events (``k + missing`` of
    ``n``). Both ends are monotone in ``k``, so the interval holds every way the missing
    cases could have gone.
    """
    if missing < 0 or k + missing > n:
        raise ValueError(f"need 0 <= missing and k + missing <= n, got {k}, {missing}, {n}")
    low = confidence_sequence(k, n, alpha)
    if missing == 0:
        return low
    high = confidence_sequence(k + missing, n, alpha)
    return Interval(low.lo, high.hi, CS_METHOD, 1.0 - alpha)
