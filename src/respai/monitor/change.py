"""Anytime-valid change detection for a monitored rule: a CUSUM e-detector per group.

The confidence sequence (:mod:`respai.monitor.sequence`) decides on every case since the
stream's first batch, so a rate that changes late moves it slowly. Beside it, each rule
gets **e-detectors** (Shin, Ramdas and Rinaldo 2023, "E-detectors: a nonparametric
framework for sequential change detection", *New England Journal of Statistics in Data
Science*): one per group of a ``worst_group`` rule, one per ordered pair of groups of a
``max_group_gap`` rule. Each reads only the batch counts the stream records.

**The e-value of one batch.** The null hypothesis is the rule itself, batch by batch: the
group's rate is within its limit (``p <= c`` for ``worst_max``, ``p >= c`` for
``worst_min``), or for the pair ``(g, h)`` the gap ``p_g - p_h <= delta``. For each
alternative ``j`` of a fixed grid (the limit passed by ``EXCESS[j]``), the batch's e-value
is a likelihood ratio of the batch's counts:

- ``worst_max``: ``(q/c)^k ((1-q)/(1-c))^(n-k)`` with ``q = c + EXCESS[j]``. Its mean under
  any ``p <= c`` is ``(p q/c + (1-p)(1-q)/(1-c))^n <= 1`` (linear in ``p``, 1 at ``c``);
  ``worst_min`` mirrors it.
- ``max_group_gap``: ``L(q_g, q_h) / max{L(a, b) : a - b <= delta}``, the likelihood of
  the two groups' counts at an alternative over its largest value under the null on the
  same batch (a split likelihood ratio, Wasserman, Ramdas and Balakrishnan 2020,
  "Universal inference", *PNAS* 117(29)). The denominator is at least the likelihood at
  the true rates, so its mean is at most 1 under any null rates. The alternative is
  predictable: ``q_h`` is ``h``'s rate over the batches before, or over the batch before
  only (two alternatives each; Jeffreys-smoothed), and ``q_g = q_h + delta + EXCESS[j]``.

Cases without a prediction count against the rule (as a FAIL is proven in the group
rules): as events of a group whose high rate breaks it, as non-events otherwise.

**The detector.** For each alternative the CUSUM e-detector ``M_t = max(M_{t-1}, 1) E_t``
(``M_0 = 0``): the largest product of the e-values of the batches since some look. The
detector's statistic is the average of the grid's ``M_t``. Each ``M_t`` is at most the
Shiryaev-Roberts e-detector ``R_t = (R_{t-1} + 1) E_t``, for which ``R_t - t`` is a
supermartingale while the rule holds; so is the average over the grid and over the rule's
``K`` detectors. Raising the alarm when a detector reaches ``K * HORIZON / alpha`` gives,
while the rule holds at every batch,

- an average run length to a false alarm of at least ``HORIZON / alpha`` looks
  (``E[R_tau] <= E[tau]``, optional stopping), and
- a chance of any false alarm within the stream's first ``HORIZON`` looks of at most
  ``alpha`` (Ville's inequality for ``R_t + HORIZON - t``).

After a change that breaks the rule the e-values grow, and the detector restarts its
product at the change point by itself (the ``max(., 1)``), so evidence from before the
change does not dilute it.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

__all__ = [
    "CHANGE_METHOD",
    "EXCESS",
    "HORIZON",
    "ChangeState",
    "Detector",
    "batch_log_evalues",
    "detectors_of_rule",
    "gap_null_loglik",
    "guarantee_text",
    "threshold",
    "update",
]

#: The record's name for the change detector.
CHANGE_METHOD = "cusum-e-detector"
#: The alternatives mixed (equal weights): how far past the limit the rate is.
EXCESS = (0.05, 0.1, 0.15, 0.2, 0.3)
#: The number of looks within which a false alarm has chance at most alpha.
HORIZON = 100


@dataclass(frozen=True, slots=True)
class Detector:
    """One e-detector of a rule: a group against the limit, or a pair against the gap.

    ``side`` is ``"above"`` when a high rate of ``group`` breaks the rule (``worst_max``,
    or the gap of ``group`` over ``other``), ``"below"`` when a low rate does.
    """

    group: str
    other: str | None
    side: str
    limit: float

    @property
    def label(self) -> str:
        """``female`` or ``female over male``."""
        return self.group if self.other is None else f"{self.group} over {self.other}"


@dataclass(frozen=True, slots=True)
class ChangeState:
    """A detector after a look: per alternative ``log M_t`` (``None`` before any batch)."""

    logs: tuple[float | None, ...]

    @property
    def log_statistic(self) -> float | None:
        """``log`` of the grid's average ``M_t``; ``None`` before the first batch."""
        vals = [v for v in self.logs if v is not None]
        if not vals:
            return None
        top = max(vals)
        if top == math.inf:
            return math.inf
        if top == -math.inf:
            return -math.inf
        total = sum(math.exp(v - top) for v in vals)
        return top + math.log(total / len(vals))


def threshold(alpha: float, detectors: int, horizon: int = HORIZON) -> float:
    """The alarm threshold of one detector: ``detectors * horizon / alpha``."""
    if not 0.0 < alpha < 1.0 or detectors < 1 or horizon < 1:
        raise ValueError("need 0 < alpha < 1 and at least one detector and one look")
    return detectors * horizon / alpha


def guarantee_text(alpha: float, horizon: int = HORIZON) -> str:
    """The false-alarm guarantee of a rule's detectors, as the record states it."""
    arl = horizon / alpha
    return (
        f"while the rule holds at every batch: average run length to a false alarm at least "
        f"{arl:,.0f} looks, and chance of any false alarm within the first {horizon} looks "
        f"at most {alpha:g}"
    )


def detectors_of_rule(
    groups: Sequence[str], *, gap: float | None, worst_max: float | None, worst_min: float | None
) -> list[Detector]:
    """The rule's detectors, over ``groups`` in the order given.

    A gap rule has one per ordered pair (``g`` over ``h``), a worst-group rule one per
    group.
    """
    if gap is not None:
        return [Detector(g, h, "above", gap) for g in groups for h in groups if g != h]
    if worst_max is not None:
        return [Detector(g, None, "above", worst_max) for g in groups]
    assert worst_min is not None
    return [Detector(g, None, "below", worst_min) for g in groups]


def _loglik(k: int, n: int, p: float) -> float:
    """The binomial log-likelihood of ``k`` of ``n`` at ``p`` (no binomial coefficient)."""
    out = 0.0
    if k:
        out += -math.inf if p <= 0.0 else k * math.log(p)
    if n - k:
        out += -math.inf if p >= 1.0 else (n - k) * math.log1p(-p)
    return out


def gap_null_loglik(kg: int, ng: int, kh: int, nh: int, delta: float) -> float:
    """``max{log L(a; kg, ng) + log L(b; kh, nh) : a - b <= delta}`` over rates in [0, 1].

    Unconstrained at the groups' own rates when their gap is within ``delta``; otherwise on
    the line ``a = b + delta``, where the log-likelihood is concave in ``b``: its slope is
    found to vanish by Brent's method.
    """
    from scipy.optimize import brentq

    ag = kg / ng if ng else 0.0
    bh = kh / nh if nh else 1.0
    if ag - bh <= delta:
        return _loglik(kg, ng, ag) + _loglik(kh, nh, bh)
    if delta >= 1.0:  # unreachable: ag - bh <= 1
        return _loglik(kg, ng, ag) + _loglik(kh, nh, bh)
    top = 1.0 - delta

    def slope(b: float) -> float:
        a = b + delta
        out = 0.0
        if kg:
            out += kg / a
        if ng - kg:
            out -= (ng - kg) / (1.0 - a)
        if kh:
            out += kh / b
        if nh - kh:
            out -= (nh - kh) / (1.0 - b)
        return out

    eps = 1e-15
    lo, hi = eps, top - eps
    if slope(lo) <= 0.0:
        b = 0.0
    elif slope(hi) >= 0.0:
        b = top
    else:
        b = float(brentq(slope, lo, hi, xtol=1e-14, rtol=1e-14))
    return _loglik(kg, ng, b + delta) + _loglik(kh, nh, b)


def _jeffreys(k: int, n: int) -> float:
    return (k + 0.5) / (n + 1.0)


def batch_log_evalues(
    det: Detector,
    batch: Mapping[str, tuple[int, int, int]],
    before: Mapping[str, tuple[int, int, int]],
    last: Mapping[str, tuple[int, int, int]] | None = None,
) -> tuple[float | None, ...]:
    """``log E`` of one batch for each alternative (``None``: an alternative not used).

    ``batch``, ``before`` and ``last`` map each group to ``(cases, events, missing)``: this
    batch's counts, the stream's counts before it and the batch before it (the
    predictable parts of a gap alternative). A worst-group detector has one alternative
    per :data:`EXCESS`; a gap detector two, one with the other group's rate estimated
    from every batch before, one from the batch before only (it follows that group when
    its rate moves too). A group without a case in the batch gives ``log E = 0``.
    """
    out: list[float | None] = []
    c = det.limit
    if det.other is None:
        n, k, m = batch.get(det.group, (0, 0, 0))
        events = k + m if det.side == "above" else k
        for d in EXCESS:
            q = c + d if det.side == "above" else c - d
            if not 0.0 < q < 1.0:
                out.append(None)
                continue
            if n == 0:
                out.append(0.0)
                continue
            out.append(_loglik(events, n, q) - _loglik(events, n, c))
        return tuple(out)
    ng, kg, mg = batch.get(det.group, (0, 0, 0))
    nh, kh, _ = batch.get(det.other, (0, 0, 0))
    null = None
    for source in (before, last or {}):
        pn, pk, _ = source.get(det.other, (0, 0, 0))
        qh_hat = _jeffreys(pk, pn)
        for d in EXCESS:
            if c + d >= 1.0:
                out.append(None)
                continue
            if ng == 0 or nh == 0:
                out.append(0.0)
                continue
            qh = qh_hat if qh_hat + c + d < 1.0 else (1.0 - c - d) / 2.0
            if null is None:
                null = gap_null_loglik(kg + mg, ng, kh, nh, c)
            out.append(_loglik(kg + mg, ng, qh + c + d) + _loglik(kh, nh, qh) - null)
    return tuple(out)


def update(state: ChangeState | None, log_e: Sequence[float | None]) -> ChangeState:
    """The CUSUM step ``log M_t = max(log M_{t-1}, 0) + log E_t`` for each alternative."""
    prev = state.logs if state is not None else tuple(None for _ in log_e)
    logs: list[float | None] = []
    for before, e in zip(prev, log_e, strict=True):
        if e is None:
            logs.append(None)
            continue
        start = 0.0 if before is None else max(before, 0.0)
        logs.append(start + e)
    return ChangeState(tuple(logs))
