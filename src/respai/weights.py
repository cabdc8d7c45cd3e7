"""Weighted group rates (``data.weight``): Hajek estimates with Korn-Graubard intervals.

With survey or sampling weights ``w`` the group rules are decided on weighted rates. For a
rate's population in one group (e.g. the cases labelled 1 for ``false_negative``), with
``W = sum(w)``, ``E = sum(w * event)`` over the cases with a decision and ``M = sum(w)``
over those without one:

- the **Hajek estimate** is ``E / (W - M)`` (undefined when no weight lies on a case with
  a decision);
- **Kish's effective size** is ``n_eff = W**2 / sum(w**2)`` (at most the number of cases
  by Cauchy-Schwarz, equal to it when every weight is the same);
- the **Korn-Graubard interval** (1998) is the Clopper-Pearson interval at ``n_eff``
  with ``x = p * n_eff`` events, in the beta-quantile form that admits a non-integer
  ``x``: ``lo = Beta(x, n_eff - x + 1).ppf(alpha/2)`` (0 when ``p = 0``) and
  ``hi = Beta(x + 1, n_eff - x).ppf(1 - alpha/2)`` (1 when ``p = 1``). Korn and
  Graubard's degrees-of-freedom factor ``(t_{n-1} / t_df)^2`` is 1 here: the weights
  carry no strata or clusters, so the design's degrees of freedom are ``n - 1``;
- cases without a decision are **counted at their worst**, as the unweighted rules count
  them: the lower end is the interval's at ``p = E / W`` (their weight as non-events), the
  upper at ``p = (E + M) / W`` (as events), ``n_eff`` over the whole population.

Every sum is an exact integer of ``10^-decimals`` units (weights) or ``10^-2*decimals``
units (squares) from :func:`respai.engine.weight_sums`; each number here is a pure
function of those integers (:func:`recompute` redoes them from a record's counts).

This module is pure: it reads counts and imports SciPy lazily.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from respai import exact
from respai.counts import Cell, Counts
from respai.decision import GroupRate, is_small
from respai.types import Interval

__all__ = [
    "CONDITIONS",
    "INTERVAL",
    "WeightedCounts",
    "WeightedGroupRate",
    "adverse_ends",
    "adverse_intervals",
    "exact_ends",
    "korn_graubard",
    "recompute",
    "units",
    "weighted_group_rate",
]

#: The interval's name, as the record states it.
INTERVAL = "korn-graubard"

#: What the weighted interval assumes, as the record and the output state it.
CONDITIONS = (
    "design-based under the stated weights (Hajek ratio estimate); Korn-Graubard: "
    "Clopper-Pearson at Kish's effective size n_eff = (sum w)^2 / sum w^2 with "
    "x = p * n_eff; assumes independently sampled units with weights 1 / (inclusion "
    "probability), no strata or cluster information (no degrees-of-freedom correction); "
    "may fall below its level when the weights are strongly tied to the outcome in a "
    "small group"
)


def units(x: int) -> int | str:
    """An exact sum as the record holds it: an ``int``, a decimal string beyond 2**53."""
    return x if abs(x) < 2**53 else str(x)


@dataclass(frozen=True, slots=True)
class WeightedCounts:
    """The weighted sums of the count cube, cell for cell.

    ``sums`` holds, in place of case counts, the sums of the weights in ``10^-decimals``
    units; ``squares`` the sums of their squares in ``10^-2*decimals`` units. Both have
    the shape of the unweighted :class:`~respai.counts.Counts` (every grouping, group and
    confusion cell, missing predictions included).
    """

    column: str
    decimals: int
    n: int
    sums: Counts
    squares: Counts

    @property
    def total(self) -> int:
        """The sum of every weight, in units."""
        return self.sums.total

    @property
    def total_squares(self) -> int:
        """The sum of every squared weight, in squared units."""
        return self.squares.total

    @property
    def n_eff(self) -> float | None:
        """Kish's effective size of the whole file (``None`` when every weight is 0)."""
        return _n_eff(self.total, self.total_squares)

    def fingerprint(self) -> dict[str, Any]:
        """``run_start.weights``: the weights' column, grid and exact sums."""
        return {
            "column": self.column,
            "decimals": self.decimals,
            "n": self.n,
            "sum": units(self.total),
            "sum_squares": units(self.total_squares),
            "n_eff": self.n_eff,
        }

    def counts_dict(self) -> dict[str, Any]:
        """``counts.weighted``: the sums per grouping, group and cell (exact integers)."""

        def cell(w: Cell, w2: Cell) -> dict[str, Any]:
            return {
                "sum_w": {k: units(v) for k, v in w.to_dict().items()},
                "sum_w2": {k: units(v) for k, v in w2.to_dict().items()},
            }

        out: dict[str, Any] = {
            "column": self.column,
            "decimals": self.decimals,
            "units": f"sum_w in 10^-{self.decimals}, sum_w2 in 10^-{2 * self.decimals}",
            "overall": cell(self.sums.overall, self.squares.overall),
            "groupings": {},
        }
        for key, g in self.sums.groupings.items():
            sq = self.squares.groupings[key]
            out["groupings"][g.name] = {
                "attributes": list(g.attributes),
                "groups": [{"key": list(k), **cell(c, sq.groups[k])} for k, c in g.groups.items()],
                "left_out": {
                    "sum_w": {r: units(v) for r, v in g.left_out.items()},
                    "sum_w2": {r: units(v) for r, v in sq.left_out.items()},
                },
            }
        return out


def _n_eff(w: int, w2: int) -> float | None:
    """``(sum w)^2 / sum w^2`` from unit sums (the units cancel); ``None`` when ``w = 0``."""
    if w <= 0 or w2 <= 0:
        return None
    return float(Fraction(w * w, w2))


def korn_graubard(p: Fraction, n_eff: float, alpha: float) -> Interval:
    """The Korn-Graubard interval of a weighted proportion ``p`` at effective size ``n_eff``.

    Clopper-Pearson in the beta-quantile form at ``x = p * n_eff``: the same numbers as
    ``statsmodels`` ``proportion_confint(x, n_eff, alpha, method="beta")``, which accepts a
    non-integer count.

    Examples
    --------
    >>> iv = korn_graubard(Fraction(1, 2), 10.0, 0.05)
    >>> round(iv.lo, 4), round(iv.hi, 4)
    (0.1871, 0.8129)
    """
    from scipy.stats import beta

    x = float(p) * n_eff
    lo = 0.0 if p <= 0 else float(beta.ppf(alpha / 2, x, n_eff - x + 1))
    hi = 1.0 if p >= 1 else float(beta.ppf(1 - alpha / 2, x + 1, n_eff - x))
    return Interval(lo, hi, INTERVAL, 1 - alpha)


@dataclass(frozen=True, slots=True)
class WeightedGroupRate(GroupRate):
    """A group's rate decided on weights; ``rate`` and ``interval`` are the weighted ones.

    ``cases``, ``events`` and ``missing`` stay the unweighted counts (shown beside the
    weighted numbers, with ``plain_rate`` and ``plain_interval``). ``sum_w``,
    ``event_w`` and ``missing_w`` are the rate population's weight, its events' and its
    cases' without a decision (units); ``sum_w2`` and ``decided_w2`` the squared weights
    of the population and of its decided cases.
    """

    sum_w: int
    event_w: int
    missing_w: int
    sum_w2: int
    decided_w2: int
    n_eff: float | None
    decided_n_eff: float | None
    alpha_share: float
    plain_rate: float | None
    plain_interval: Interval

    @property
    def missing_share(self) -> Fraction | None:
        """The larger of the unweighted and the weighted share without a decision."""
        plain = Fraction(self.missing, self.cases) if self.cases else None
        weighted = Fraction(self.missing_w, self.sum_w) if self.sum_w else None
        found = [s for s in (plain, weighted) if s is not None]
        return max(found) if found else None

    @property
    def worst_lo(self) -> Fraction:
        """The lowest the weighted rate can be: every missing decision a non-event."""
        return Fraction(self.event_w, self.sum_w) if self.sum_w else Fraction(0)

    @property
    def worst_hi(self) -> Fraction:
        """The highest the weighted rate can be: every missing decision an event."""
        return Fraction(self.event_w + self.missing_w, self.sum_w) if self.sum_w else Fraction(1)

    @property
    def undefined_reason(self) -> str | None:
        """Why the weighted rate is undefined, or ``None``."""
        if self.cases == self.missing:
            return "no case in the group has a prediction"
        if self.sum_w == self.missing_w:
            return "every case with a prediction in the group has weight 0"
        return None

    def weighted_dict(self) -> dict[str, Any]:
        """The group's weighted numbers, as the rule's details show them."""
        out: dict[str, Any] = {
            "rate": self.rate,
            "interval": Interval.json_or_none(self.interval),
            "n_eff": self.n_eff,
            "decided_n_eff": self.decided_n_eff,
            "sum_w": units(self.sum_w),
            "event_w": units(self.event_w),
            "missing_w": units(self.missing_w),
            "sum_w2": units(self.sum_w2),
            "decided_w2": units(self.decided_w2),
        }
        if self.rate is None:
            out["rate_undefined_reason"] = self.undefined_reason
        return out


def weighted_group_rate(
    key: tuple[str, ...],
    plain: GroupRate,
    w: tuple[int, int, int],
    w2: tuple[int, int],
    alpha_share: float,
    min_cell: int,
) -> WeightedGroupRate:
    """One group's :class:`WeightedGroupRate`.

    Parameters
    ----------
    key
        The group's declared values.
    plain
        The group's unweighted rate (counts, rate and interval shown beside).
    w
        ``(W, E, M)``: the population's weight, its events', its missing decisions' (units).
    w2
        ``(sum w^2 over the population, over its decided cases)`` (squared units).
    alpha_share
        The group's share of alpha (e.g. ``alpha / G``).
    min_cell
        A group is small when fewer than ``min_cell`` of its cases have a decision, or
        when their effective size is below ``min_cell``.
    """
    big_w, e, m = w
    sq, decided_sq = w2
    n_eff = _n_eff(big_w, sq)
    decided_n_eff = _n_eff(big_w - m, decided_sq)
    rate = float(Fraction(e, big_w - m)) if big_w - m > 0 else None
    if n_eff is None:
        interval = Interval(0.0, 1.0, INTERVAL, 1 - alpha_share)
    else:
        lo = korn_graubard(Fraction(e, big_w), n_eff, alpha_share).lo
        hi = korn_graubard(Fraction(e + m, big_w), n_eff, alpha_share).hi
        interval = Interval(lo, hi, INTERVAL, 1 - alpha_share)
    small = is_small(plain.with_prediction, min_cell) or (
        decided_n_eff is None or decided_n_eff < max(min_cell, 1)
    )
    return WeightedGroupRate(
        key=key,
        cases=plain.cases,
        events=plain.events,
        missing=plain.missing,
        rate=rate,
        interval=interval,
        small=small,
        sum_w=big_w,
        event_w=e,
        missing_w=m,
        sum_w2=sq,
        decided_w2=decided_sq,
        n_eff=n_eff,
        decided_n_eff=decided_n_eff,
        alpha_share=alpha_share,
        plain_rate=plain.rate,
        plain_interval=plain.interval,
    )


def _ends(g: WeightedGroupRate, alpha: float, adverse: bool) -> tuple[float, float]:
    if g.n_eff is None:
        return 0.0, 1.0
    lo_p = Fraction(g.event_w + (g.missing_w if adverse else 0), g.sum_w)
    hi_p = Fraction(g.event_w + (0 if adverse else g.missing_w), g.sum_w)
    return korn_graubard(lo_p, g.n_eff, alpha).lo, korn_graubard(hi_p, g.n_eff, alpha).hi


def exact_ends(
    groups: Sequence[WeightedGroupRate], alpha: float
) -> tuple[list[exact.Bound], list[exact.Bound]]:
    """Each group's interval ends as bounds (missing decisions at their worst).

    The Korn-Graubard ends are beta quantiles at non-integer parameters: they are
    compared with a threshold as the binary floats they are (:class:`respai.exact.Approx`),
    0 and 1 exactly.
    """
    los: list[exact.Bound] = []
    his: list[exact.Bound] = []
    for g in groups:
        lo, hi = _ends(g, alpha, adverse=False)
        los.append(exact.Exact(Fraction(0)) if lo == 0 else exact.Approx(lo))
        his.append(exact.Exact(Fraction(1)) if hi == 1 else exact.Approx(hi))
    return los, his


def adverse_ends(
    groups: Sequence[WeightedGroupRate], alpha: float
) -> tuple[list[exact.Bound], list[exact.Bound]]:
    """The ends a FAIL is proven from: missing decisions counted against the rule.

    As :func:`respai.decision.adverse_ends`: the lower end counts the missing weight as
    events, the upper as non-events.
    """
    los: list[exact.Bound] = []
    his: list[exact.Bound] = []
    for g in groups:
        lo, hi = _ends(g, alpha, adverse=True)
        los.append(exact.Exact(Fraction(0)) if lo == 0 else exact.Approx(lo))
        his.append(exact.Exact(Fraction(1)) if hi == 1 else exact.Approx(hi))
    return los, his


def adverse_intervals(groups: Sequence[WeightedGroupRate], alpha: float) -> list[Interval]:
    """The float ends of :func:`adverse_ends`, as ``Interval(lo, hi)`` per group."""
    out = []
    for g in groups:
        lo, hi = _ends(g, alpha, adverse=True)
        out.append(Interval(lo, hi, INTERVAL, 1 - alpha))
    return out


def recompute(
    counts: Mapping[str, Any], grouping: str, population: Mapping[str, Sequence[str]]
) -> list[dict[str, Any]]:
    """Every group's weighted rate and ``n_eff`` of one grouping, from a record's counts.

    A verifier's check: ``counts`` is the record's ``counts.weighted``; ``population``
    names the cells of the rate (``{"events": [...], "decided": [...], "missing": [...]}``
    as keys of ``sum_w``, e.g. ``{"events": ["fn"], "decided": ["tp", "fn"], "missing":
    ["missing_prediction_label_1"]}`` for ``false_negative``). Returns per group
    ``{"key", "rate", "n_eff", "decided_n_eff"}``.
    """
    out = []
    for entry in counts["groupings"][grouping]["groups"]:
        sw = {k: int(v) for k, v in entry["sum_w"].items()}
        sw2 = {k: int(v) for k, v in entry["sum_w2"].items()}
        e = sum(sw[c] for c in population["events"])
        d = sum(sw[c] for c in population["decided"])
        m = sum(sw[c] for c in population["missing"])
        d2 = sum(sw2[c] for c in population["decided"])
        m2 = sum(sw2[c] for c in population["missing"])
        out.append(
            {
                "key": list(entry["key"]),
                "rate": float(Fraction(e, d)) if d > 0 else None,
                "n_eff": _n_eff(d + m, d2 + m2),
                "decided_n_eff": _n_eff(d, d2),
            }
        )
    return out
