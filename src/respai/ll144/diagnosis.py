"""Diagnosis beyond the published tables: the median, cutoff sensitivity and the funnel.

The published tables say where a disparity is; these say more about why and where in the
process. All functions are pure functions of integer counts (and of distinct score values):

* :func:`median_score` is the median of the whole sample, unknown categories included;
* :func:`above` turns a score histogram into a tally at a threshold;
* :func:`cutoff_sensitivity` recomputes the impact ratios at the median, at each
  configured top share (e.g. the top 10% recruiters actually see) and over a grid of top
  shares from 5% to 95%, so a tool that looks balanced at the median but skewed at its
  operational threshold is visible;
* :func:`funnel` computes rates and ratios at each stage of a hiring funnel, among those
  who reached the stage and cumulatively from the start, and names the first stage where
  the worst ratio drops under 0.8 (the "bottom line" components of 29 CFR 1607.4(C)).
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

from respai.ll144.tables import TABLES, CategoryTable, Tally, build_tables, worst_ratio

__all__ = [
    "GRID",
    "CurvePoint",
    "Cutoff",
    "CutoffSensitivity",
    "Funnel",
    "FunnelStage",
    "Histogram",
    "above",
    "cutoff_sensitivity",
    "funnel",
    "median_score",
    "top_share_threshold",
]

Histogram = Mapping[tuple[str | None, str | None], Mapping[float, int]]
"""``(sex, race) -> {score: count}``: how many applicants of each cell had each score."""

GRID: tuple[Fraction, ...] = tuple(Fraction(i, 20) for i in range(1, 20))
"""The top shares of the sensitivity curve: 5%, 10%, ..., 95%."""

Worst = Mapping[str, tuple[str, float] | None]


def _overall(hist: Histogram) -> list[tuple[float, int]]:
    """All scores of the sample with their counts, in increasing order."""
    total: dict[float, int] = {}
    for cell in hist.values():
        for value, n in cell.items():
            total[value] = total.get(value, 0) + n
    return sorted(total.items())


def median_score(hist: Histogram) -> float | None:
    """The median score of the whole sample (every cell, unknown categories included).

    With an even number of scores it is the mean of the two middle ones. ``None`` when
    there is no score.

    Examples
    --------
    >>> median_score({("Male", None): {1.0: 1, 3.0: 1}, (None, None): {10.0: 2}})
    6.5
    >>> median_score({("Male", "Asian"): {2.0: 3}})
    2.0
    """
    values = _overall(hist)
    total = sum(n for _, n in values)
    if total == 0:
        return None
    lo_rank, hi_rank = (total - 1) // 2, total // 2  # 0-based positions of the middle
    lo = hi = None
    seen = 0
    for value, n in values:
        if lo is None and seen + n > lo_rank:
            lo = value
        if seen + n > hi_rank:
            hi = value
            break
        seen += n
    assert lo is not None and hi is not None
    return (lo + hi) / 2


class _Cells:
    """Each cell's scores sorted once, for fast counts above a threshold."""

    def __init__(self, hist: Histogram) -> None:
        self.keys = list(hist)
        self.values: list[list[float]] = []
        self.suffix: list[list[int]] = []
        self.n: list[int] = []
        for key in self.keys:
            items = sorted(hist[key].items())
            self.values.append([v for v, _ in items])
            counts = [c for _, c in items]
            suffix = [0] * (len(counts) + 1)
            for i in range(len(counts) - 1, -1, -1):
                suffix[i] = suffix[i + 1] + counts[i]
            self.suffix.append(suffix)
            self.n.append(suffix[0])

    def tally(
        self, threshold: float, *, inclusive: bool
    ) -> dict[tuple[str | None, str | None], tuple[int, int]]:
        out: dict[tuple[str | None, str | None], tuple[int, int]] = {}
        for i, key in enumerate(self.keys):
            find = bisect.bisect_left if inclusive else bisect.bisect_right
            pos = find(self.values[i], threshold)
            out[key] = (self.n[i], self.suffix[i][pos])
        return out


def above(hist: Histogram, threshold: float, *, inclusive: bool = False) -> Tally:
    """The tally of applicants scoring above ``threshold`` (or at or above it).

    Examples
    --------
    >>> above({("Male", None): {1.0: 2, 5.0: 3}}, 1.0)
    {('Male', None): (5, 3)}
    """
    return _Cells(hist).tally(threshold, inclusive=inclusive)


def top_share_threshold(hist: Histogram, share: Fraction) -> tuple[float, int] | None:
    """The score that admits the top ``share`` of the sample, and how many it admits.

    The threshold is the score of the applicant ranked ``ceil(share * N)`` from the top;
    everyone at or above it is admitted, so ties at the threshold can admit a little more
    than ``share``. ``None`` when there is no score.

    Examples
    --------
    >>> top_share_threshold({("Male", None): {float(s): 1 for s in range(10)}},
    ...                     Fraction(1, 10))
    (9.0, 1)
    """
    values = _overall(hist)
    total = sum(n for _, n in values)
    if total == 0:
        return None
    rank = max(1, math.ceil(share * total))
    seen = 0
    for value, n in reversed(values):
        seen += n
        if seen >= rank:
            return value, seen
    return values[0][0], total  # pragma: no cover - rank <= total always stops above


@dataclass(frozen=True, slots=True)
class Cutoff:
    """The impact ratios at one decision point of a scoring tool.

    Attributes
    ----------
    label
        ``"median"`` or ``"top 10%"``.
    top_share
        The requested top share (``None`` for the median).
    threshold
        The score that decides; ``rule`` says how.
    rule
        ``"above"`` (strictly above the median) or ``"at_or_above"`` (a top share).
    admitted, share_admitted
        How many applicants the cutoff admits, and their share of the sample.
    tables
        The three tables at this cutoff (no findings).
    worst
        Per table, the kept category with the lowest ratio and that ratio, or ``None``.
    """

    label: str
    top_share: float | None
    threshold: float
    rule: str
    admitted: int
    share_admitted: float
    tables: Mapping[str, CategoryTable]
    worst: Worst


@dataclass(frozen=True, slots=True)
class CurvePoint:
    """The worst ratio of each table at one top share of the grid."""

    top_share: float
    threshold: float
    share_admitted: float
    worst: Worst


@dataclass(frozen=True, slots=True)
class CutoffSensitivity:
    """Ratios at the median, at each configured cutoff, and the worst-ratio curve."""

    median: Cutoff
    cutoffs: tuple[Cutoff, ...]
    curve: tuple[CurvePoint, ...]


def _worst(tables: Mapping[str, CategoryTable]) -> dict[str, tuple[str, float] | None]:
    return {name: worst_ratio(tables[name]) for name in TABLES}


def _any_below(table: CategoryTable, line: float) -> bool:
    """Whether some category's impact ratio is under ``line``, compared exactly."""
    return any(r.ratio_below(line) for r in table.rows if r.impact_ratio is not None)


def _percent(share: Fraction) -> str:
    value = float(share) * 100
    return f"top {value:.0f}%" if value.is_integer() else f"top {value:g}%"


def cutoff_sensitivity(
    hist: Histogram,
    cutoffs: Sequence[float],
    *,
    min_share: float,
    exclusions: Mapping[str, frozenset[str]],
) -> CutoffSensitivity | None:
    """Impact ratios at the median, at each top share in ``cutoffs``, and over :data:`GRID`.

    ``exclusions`` are the applicant-level exclusions of the published tables, kept fixed
    so every cutoff compares the same categories. ``None`` when there is no score.
    """
    median = median_score(hist)
    if median is None:
        return None
    cells = _Cells(hist)
    total = sum(cells.n)

    def point(label: str, share: Fraction | None, threshold: float, inclusive: bool) -> Cutoff:
        tally = cells.tally(threshold, inclusive=inclusive)
        admitted = sum(k for _, k in tally.values())
        tables = build_tables(
            tally,
            min_share=min_share,
            findings=False,
            exclusions=exclusions,
            rate_word="admitted at this cutoff",
        )
        return Cutoff(
            label=label,
            top_share=None if share is None else float(share),
            threshold=threshold,
            rule="at_or_above" if inclusive else "above",
            admitted=admitted,
            share_admitted=admitted / total,
            tables=tables,
            worst=_worst(tables),
        )

    at_median = point("median", None, median, False)
    points = []
    for cutoff in cutoffs:
        share = Fraction(repr(float(cutoff)))
        found = top_share_threshold(hist, share)
        assert found is not None
        points.append(point(_percent(share), share, found[0], True))
    curve = []
    for share in GRID:
        found = top_share_threshold(hist, share)
        assert found is not None
        cut = point(_percent(share), share, found[0], True)
        curve.append(CurvePoint(float(share), cut.threshold, cut.share_admitted, cut.worst))
    return CutoffSensitivity(at_median, tuple(points), tuple(curve))


StageCell = tuple[str | None, str | None, tuple[int | None, ...], int]
"""``(sex, race, stage outcomes, n)``; an outcome is ``None`` where the stage was not
reached."""


@dataclass(frozen=True, slots=True)
class FunnelStage:
    """Rates and ratios at one stage of the funnel.

    ``conditional`` tables hold, per category, those who reached the stage and those who
    passed it; ``cumulative`` tables hold all applicants and those who passed every stage
    up to and including this one.
    """

    name: str
    reached: int
    passed: int
    conditional: Mapping[str, CategoryTable]
    cumulative: Mapping[str, CategoryTable]
    worst_conditional: Worst
    worst_cumulative: Worst


@dataclass(frozen=True, slots=True)
class Funnel:
    """Every stage, and per table the first stage whose worst ratio is under 0.8."""

    stages: tuple[FunnelStage, ...]
    first_below: Mapping[str, str | None]
    first_below_cumulative: Mapping[str, str | None]
    line: float


def funnel(
    cells: Sequence[StageCell],
    names: Sequence[str],
    *,
    min_share: float,
    exclusions: Mapping[str, frozenset[str]],
    line: float = 0.8,
) -> Funnel:
    """Decompose a funnel of 0/1 stages into per-stage rates and impact ratios.

    Parameters
    ----------
    cells
        ``(sex, race, outcomes, n)`` for every combination seen.
    names
        The stage columns, in order.
    min_share
        Used only for the wording of reasons; exclusions are fixed by ``exclusions``.
    exclusions
        The applicant-level exclusions of the published tables, per table.
    line
        The screening line for ``first_below``.

    Examples
    --------
    >>> cells = [("Male", "White", (1, 1), 50), ("Male", "White", (0, None), 50),
    ...          ("Female", "White", (1, 1), 20), ("Female", "White", (1, 0), 30),
    ...          ("Female", "White", (0, None), 50)]
    >>> f = funnel(cells, ["screen", "interview"], min_share=0.02, exclusions={})
    >>> f.first_below["sex"], round(f.stages[1].worst_conditional["sex"][1], 2)
    ('interview', 0.4)
    """
    stages: list[FunnelStage] = []
    first: dict[str, str | None] = dict.fromkeys(TABLES)
    first_cum: dict[str, str | None] = dict.fromkeys(TABLES)
    for j, name in enumerate(names):
        cond: dict[tuple[str | None, str | None], tuple[int, int]] = {}
        cum: dict[tuple[str | None, str | None], tuple[int, int]] = {}
        for sex, race, outcomes, n in cells:
            key = (sex, race)
            reached = outcomes[j] is not None
            passed = outcomes[j] == 1
            cn, ck = cond.get(key, (0, 0))
            cond[key] = (cn + (n if reached else 0), ck + (n if passed else 0))
            un, uk = cum.get(key, (0, 0))
            cum[key] = (un + n, uk + (n if passed else 0))
        conditional = build_tables(
            cond,
            min_share=min_share,
            findings=False,
            exclusions=exclusions,
            rate_word=f"passing {name}",
        )
        cumulative = build_tables(
            cum,
            min_share=min_share,
            findings=False,
            exclusions=exclusions,
            rate_word=f"passing {name}",
        )
        worst_cond, worst_cum = _worst(conditional), _worst(cumulative)
        for table in TABLES:  # decided exactly from the counts, as the findings are
            if first[table] is None and _any_below(conditional[table], line):
                first[table] = name
            if first_cum[table] is None and _any_below(cumulative[table], line):
                first_cum[table] = name
        stages.append(
            FunnelStage(
                name=name,
                reached=sum(v[0] for v in cond.values()),
                passed=sum(v[1] for v in cond.values()),
                conditional=conditional,
                cumulative=cumulative,
                worst_conditional=worst_cond,
                worst_cumulative=worst_cum,
            )
        )
    return Funnel(tuple(stages), first, first_cum, line)
