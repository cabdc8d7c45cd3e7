"""The ranking block's estimates and intervals: pure functions of the exact sums.

The list is the unit (the top ``k`` slots of a list are shared, so its items are not
independent). Per group:

- the top-``k`` rate ``r = T / N_g`` (items, or weights, of the group in the top ``k`` over
  all of its items), a ratio estimator whose linearized (delta-method) cluster-robust
  variance is ``L_g / (L_g - 1) * sum_l (t_l - r n_l)^2 / N_g^2`` over the ``L_g`` lists
  the group appears in (statsmodels' cluster-robust variance of an intercept-only
  OLS/WLS fit, the same number);
- the exposure ratio ``R = (e_g / E) / (N_g / N)``: the group's share of the exposure
  over its share of the items. Linearized on the log scale over every list ``l``,
  ``z_l = e_l / e_g - E_l / E - n_l / N_g + N_l / N``, ``var(log R) = L / (L - 1) *
  sum z_l^2``; the interval is ``exp(log R -+ t * se)`` with ``t`` Student's quantile
  with ``L_g - 1`` df at *half* the interval's alpha: widened, since the plain interval
  measured below its level with small groups.

The top-``k`` rate's interval is Korn and Graubard's (1998): Clopper-Pearson at the
effective size ``r (1 - r) / var`` (at most the group's items; the items when ``r`` is 0
or 1), scaled by ``(z / t_{L_g - 1})^2`` for the degrees of freedom. Both use the
group's lists, not all lists, for the df (conservative when a group is absent from many
lists). An interval is undefined (``None``, with a reason) with fewer than two lists or a
zero variance estimate with a rate strictly between 0 and 1.
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

RATE_INTERVAL = (
    "Korn-Graubard: Clopper-Pearson at the cluster-robust effective size (lists as "
    "clusters), df-adjusted with L_g - 1 df"
)
EXPOSURE_INTERVAL = (
    "cluster-robust delta method on the log scale (lists as clusters), Student t with "
    "L_g - 1 df at half the alpha (widened)"
)


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


def top_k_rate(s: GroupSums, k: int, confidence: float, items: int | None = None) -> Estimate:
    """The group's top-``k`` rate with its Korn-Graubard interval (exact sums in).

    ``items`` is the group's number of items (``s.n`` unless weighted): the effective
    size never exceeds it, and is it when the rate is 0 or 1.
    """
    lists = s.lists
    if s.n == 0:
        return Estimate(None, None, None, 0, "the group has no ranked item")
    r = Fraction(s.t[k], s.n)
    df = lists - 1
    if lists < 2:
        return Estimate(float(r), None, None, df, None, "the group appears in fewer than 2 lists")
    ss = s.t2[k] - 2 * r * s.tn[k] + r * r * s.n2  # sum over lists of (t_l - r n_l)^2
    var = Fraction(lists, lists - 1) * ss / (s.n * s.n)
    items = s.n if items is None else items
    if var <= 0 and 0 < r < 1:
        return Estimate(
            float(r), 0.0, None, df, None, "every list gives the group the same rate: no spread"
        )
    # Korn-Graubard: Clopper-Pearson at the effective size r(1 - r) / var, shrunk by
    # (z / t_df)^2 for the df; at r = 0 or 1 the effective size is the group's items
    n_eff = float(r * (1 - r) / var) if 0 < r < 1 else float(items)
    n_eff = min(n_eff, float(items))
    z = float(sps.norm.ppf(1 - (1 - confidence) / 2))
    t = _quantile(confidence, df)
    n_star = n_eff * (z / t) ** 2
    x_star = float(r) * n_star
    a = 1 - confidence
    lo = 0.0 if x_star <= 0 else float(sps.beta.ppf(a / 2, x_star, n_star - x_star + 1))
    hi = 1.0 if x_star >= n_star else float(sps.beta.ppf(1 - a / 2, x_star + 1, n_star - x_star))
    se = math.sqrt(var)
    return Estimate(float(r), se, Interval(lo, hi, RATE_INTERVAL, confidence), df)


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
    # widened: the t quantile at half the interval's alpha (the plain delta-method interval
    # measured 0.91-0.95 at 95% with small groups; docs/methods/ranking.md)
    half = _quantile(1 - (1 - confidence) / 2, df) * se
    log_r = math.log(ratio)
    iv = Interval(math.exp(log_r - half), math.exp(log_r + half), EXPOSURE_INTERVAL, confidence)
    return Estimate(float(ratio), se, iv, df)
