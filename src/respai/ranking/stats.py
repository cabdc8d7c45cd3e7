"""The ranking block's estimates and intervals: pure functions of the exact sums.

The list is the unit (the top ``k`` slots of a list are shared, so its items are not
independent). Per group:

- the top-``k`` rate ``r = T / N_g`` (items, or weights, of the group in the top ``k`` over
  all of its items), a ratio estimator whose linearized (delta-method) cluster-robust
  variance is ``L_g / (L_g - 1) * sum_l (t_l - r n_l)^2 / N_g^2`` over the ``L_g`` lists
  the group appears in (statsmodels' cluster-robust variance of an intercept-only
  OLS/WLS fit, the same number); the interval is ``r -+ t_{L_g - 1} * se``, clipped to
  [0, 1];
- the exposure ratio ``R = (e_g / E) / (N_g / N)``: the group's share of the exposure
  over its share of the items. Linearized on the log scale over every list ``l``,
  ``z_l = e_l / e_g - E_l / E - n_l / N_g + N_l / N``, ``var(log R) = L / (L - 1) *
  sum z_l^2``; the interval is ``exp(log R -+ t_{L_g - 1} * se)``.

Both use Student's t with ``L_g - 1`` degrees of freedom (the group's lists, not all
lists: conservative when a group is absent from many lists). An interval is undefined
(``None``, with a reason) with fewer than two lists or a zero variance estimate.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from scipy import stats as sps

from respai.engine.ranking_sums import GroupSums, ListTotals
from respai.types import Interval

__all__ = [
    "EXPOSURE_INTERVAL",
    "RATE_INTERVAL",
    "Estimate",
    "exposure_ratio",
    "top_k_rate",
]

RATE_INTERVAL = "cluster-robust t (lists as clusters, L_g - 1 df), clipped to [0, 1]"
EXPOSURE_INTERVAL = "cluster-robust t on the log scale (lists as clusters, L_g - 1 df)"


@dataclass(frozen=True, slots=True)
class Estimate:
    """A group's value, its standard error, interval and degrees of freedom.

    ``value`` is ``None`` (with ``undefined``) when the group has no item; ``interval``
    ``None`` (with ``no_interval``) when it cannot be estimated.
    """

    value: float | None
    se: float | None
    interval: Interval | None
    df: int
    undefined: str | None = None
    no_interval: str | None = None


def _quantile(confidence: float, df: int) -> float:
    return float(sps.t.ppf(1 - (1 - confidence) / 2, df))


def top_k_rate(s: GroupSums, k: int, confidence: float) -> Estimate:
    """The group's top-``k`` rate with its cluster-robust t interval (exact sums in)."""
    lists = s.lists
    if s.n == 0:
        return Estimate(None, None, None, 0, "the group has no ranked item")
    r = Fraction(s.t[k], s.n)
    df = lists - 1
    if lists < 2:
        return Estimate(float(r), None, None, df, None, "the group appears in fewer than 2 lists")
    ss = s.t2[k] - 2 * r * s.tn[k] + r * r * s.n2  # sum over lists of (t_l - r n_l)^2
    var = Fraction(lists, lists - 1) * ss / (s.n * s.n)
    if var <= 0:
        return Estimate(
            float(r), 0.0, None, df, None, "every list gives the group the same rate: no spread"
        )
    se = math.sqrt(var)
    half = _quantile(confidence, df) * se
    iv = Interval(max(0.0, float(r) - half), min(1.0, float(r) + half), RATE_INTERVAL, confidence)
    return Estimate(float(r), se, iv, df)


def exposure_ratio(s: GroupSums, tot: ListTotals, confidence: float) -> Estimate:
    """The group's exposure share over its population share, with its log-scale interval."""
    if s.n == 0 or s.e == 0:
        return Estimate(None, None, None, 0, "the group has no ranked item")
    ratio = Fraction(s.e * tot.n, tot.e * s.n)
    df = s.lists - 1
    if s.lists < 2 or tot.lists < 2:
        return Estimate(
            float(ratio), None, None, df, None, "the group appears in fewer than 2 lists"
        )
    e, n, big_e, big_n = s.e, s.n, tot.e, tot.n
    ss = (
        Fraction(s.e2, e * e)
        + Fraction(tot.e2, big_e * big_e)
        + Fraction(s.n2, n * n)
        + Fraction(tot.n2, big_n * big_n)
        - 2 * Fraction(s.e_big, e * big_e)
        - 2 * Fraction(s.en, e * n)
        + 2 * Fraction(s.e_n_big, e * big_n)
        + 2 * Fraction(s.n_e_big, n * big_e)
        - 2 * Fraction(tot.en, big_e * big_n)
        - 2 * Fraction(s.n_n_big, n * big_n)
    )
    var = Fraction(tot.lists, tot.lists - 1) * ss
    if var <= 0:
        return Estimate(float(ratio), 0.0, None, df, None, "no spread between the lists")
    se = math.sqrt(var)
    half = _quantile(confidence, df) * se
    log_r = math.log(ratio)
    iv = Interval(math.exp(log_r - half), math.exp(log_r + half), EXPOSURE_INTERVAL, confidence)
    return Estimate(float(ratio), se, iv, df)
