"""The metric registry: every rate respai reports, defined once.

A rate is a numerator and a denominator taken from one group's confusion counts
(:class:`~respai.counts.Cell`). Each is a :class:`RateDef` in :data:`RATES`: its key, the
name people read, what is counted and over which cases, the two counts as functions of a
cell, the cases of its population that have no prediction (for the group rules' worst-case
bounds), which direction is harm, and its anchor on the methods page.

Every consumer reads the definitions here: the per-group table (:mod:`respai.tables`), the
group rules (:func:`respai.rules.rate_counts`, through :class:`Rate`), the battery's
accuracy, class balance, selection rates and true positive rates
(:mod:`respai.battery`), and the LL144 selection rate (:mod:`respai.ll144.tables`, through
:func:`unlabelled`). Numerators and denominators count cases with a prediction only; a
case without one is counted by ``missing`` where the rate's population includes it.

This module is pure: it imports no engine, no YAML and no statistics.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType

from respai.counts import Cell, CellColumns

__all__ = [
    "ACCURACY",
    "ERROR_RATE",
    "FALSE_DISCOVERY",
    "FALSE_OMISSION",
    "FNR",
    "FPR",
    "MINORITY_SHARE",
    "NPV",
    "PRECISION",
    "RATES",
    "SELECTION_RATE",
    "TPR",
    "Harm",
    "Rate",
    "RateDef",
    "group_counts",
    "unlabelled",
]

#: The methods page every rate's anchor is on, relative to the docs root.
DOCS_PAGE = "methods/metrics.md"


class Harm(enum.StrEnum):
    """Which direction of a rate is the harmful one for a group."""

    HIGHER = "higher is worse"
    LOWER = "lower is worse"


@dataclass(frozen=True, slots=True)
class RateDef:
    """One rate: what it counts, over which cases, and which way is harm.

    Parameters
    ----------
    key
        The rate's name in records and tables, e.g. ``"selection"``: the
        same name a group rule's ``rate:`` uses, in tables, records, JSON and the API.
    name
        How people read it in a sentence, e.g. ``"selection rate"``.
    short
        A column heading, e.g. ``"selection"`` or ``"TPR"``.
    counted
        What the numerator counts, e.g. ``"predicted 1"``.
    over
        Which cases the denominator counts, e.g. ``"cases with a prediction"``.
    formula
        The rate in confusion counts, e.g. ``"(tp + fp) / (tp + fp + tn + fn)"``.
    numerator, denominator
        The two counts as functions of a group's :class:`~respai.counts.Cell`.
    missing
        Cases without a prediction that may belong to the rate's population (the group
        rules count them as events for the upper bound and as non-events for the lower),
        or ``None`` when no case can be missing from it (the minority share counts every
        case). For a rate over the cases *predicted* 1 or 0 (precision and its kin) every
        case without a prediction may belong: it could have been predicted either way.
    harm
        Whether a higher or a lower value is the worse one for a group.
    table
        Whether the rate is a column of the per-group table (:data:`respai.tables.METRICS`
        and the record's ``tables``).
    """

    key: str
    name: str
    short: str
    counted: str
    over: str
    formula: str
    numerator: Callable[[Cell], int]
    denominator: Callable[[Cell], int]
    missing: Callable[[Cell], int] | None
    harm: Harm
    table: bool

    @property
    def anchor(self) -> str:
        """The rate's section on the methods page, e.g. ``methods/metrics.md#true_positive``."""
        return f"{DOCS_PAGE}#{self.key}"

    def fraction(self, cell: Cell) -> tuple[int, int]:
        """``(numerator, denominator)`` of the rate in one group's counts.

        Examples
        --------
        >>> TPR.fraction(Cell(tp=8, fn=2, missing_pos=1, tn=5))
        (8, 10)
        """
        return self.numerator(cell), self.denominator(cell)

    def missing_count(self, cell: Cell) -> int:
        """Cases without a prediction that may belong to the population (0 when none can).

        Examples
        --------
        >>> FNR.missing_count(Cell(tp=8, fn=2, missing_pos=1, missing_neg=3))
        1
        """
        return 0 if self.missing is None else self.missing(cell)


def group_counts(
    rate: RateDef, groups: Mapping[tuple[str, ...], Cell]
) -> list[tuple[tuple[str, ...], int, int, int]]:
    """``(key, cases, events, missing)`` of ``rate`` in every group, in order.

    ``events`` is the rate's numerator, ``missing`` its population's cases without a
    prediction (:meth:`RateDef.missing_count`) and ``cases`` its denominator plus
    ``missing``. Groups kept as :class:`~respai.counts.CellColumns` are counted by array
    arithmetic on their columns, which gives the same integers when the rate's counts
    are sums of a cell's counts; a rate that is not (``min(...)`` of two counts cannot
    compare arrays) is counted one group at a time, as any other mapping is.

    Examples
    --------
    >>> cells = CellColumns([("a",), ("b",)], [[3, 1, 4, 0, 1, 0], [0, 0, 2, 2, 0, 1]])
    >>> group_counts(SELECTION_RATE, cells)
    [(('a',), 9, 4, 1), (('b',), 5, 0, 1)]
    >>> group_counts(SELECTION_RATE, dict(cells)) == group_counts(SELECTION_RATE, cells)
    True
    """
    if isinstance(groups, CellColumns) and len(groups) > 1:
        try:
            return _counted_columns(rate, groups)
        except (TypeError, ValueError):  # not a sum of counts: the loop below
            pass
    out = []
    for key, cell in groups.items():
        events, decided = rate.fraction(cell)
        missing = rate.missing_count(cell)
        out.append((key, decided + missing, events, missing))
    return out


def _counted_columns(
    rate: RateDef, groups: CellColumns
) -> list[tuple[tuple[str, ...], int, int, int]]:
    import numpy as np

    cell = groups.columns()
    shape = (len(groups),)
    events = np.broadcast_to(rate.numerator(cell), shape)
    decided = np.broadcast_to(rate.denominator(cell), shape)
    missing = np.broadcast_to(0 if rate.missing is None else rate.missing(cell), shape)
    if not all(a.dtype.kind == "i" for a in (events, decided, missing)):
        raise TypeError(f"{rate.key}: a count that is not an integer array")
    return list(
        zip(groups, (decided + missing).tolist(), events.tolist(), missing.tolist(), strict=True)
    )


def _predicted(cell: Cell) -> int:
    return cell.predicted


def _labelled_1(cell: Cell) -> int:
    return cell.tp + cell.fn


def _labelled_0(cell: Cell) -> int:
    return cell.tn + cell.fp


def _missing(cell: Cell) -> int:
    return cell.missing


def _missing_1(cell: Cell) -> int:
    return cell.missing_pos


def _missing_0(cell: Cell) -> int:
    return cell.missing_neg


SELECTION_RATE = RateDef(
    key="selection",
    name="selection rate",
    short="selection",
    counted="predicted 1",
    over="cases with a prediction",
    formula="(tp + fp) / (tp + fp + tn + fn)",
    numerator=lambda c: c.tp + c.fp,
    denominator=_predicted,
    missing=_missing,
    harm=Harm.LOWER,
    table=True,
)
TPR = RateDef(
    key="true_positive",
    name="true positive rate",
    short="TPR",
    counted="predicted 1",
    over="cases labelled 1 with a prediction",
    formula="tp / (tp + fn)",
    numerator=lambda c: c.tp,
    denominator=_labelled_1,
    missing=_missing_1,
    harm=Harm.LOWER,
    table=True,
)
FPR = RateDef(
    key="false_positive",
    name="false positive rate",
    short="FPR",
    counted="predicted 1",
    over="cases labelled 0 with a prediction",
    formula="fp / (fp + tn)",
    numerator=lambda c: c.fp,
    denominator=_labelled_0,
    missing=_missing_0,
    harm=Harm.HIGHER,
    table=True,
)
FNR = RateDef(
    key="false_negative",
    name="false negative rate",
    short="FNR",
    counted="predicted 0",
    over="cases labelled 1 with a prediction",
    formula="fn / (tp + fn)",
    numerator=lambda c: c.fn,
    denominator=_labelled_1,
    missing=_missing_1,
    harm=Harm.HIGHER,
    table=True,
)
ERROR_RATE = RateDef(
    key="error",
    name="error rate",
    short="error",
    counted="prediction differs from label",
    over="cases with a prediction",
    formula="(fp + fn) / (tp + fp + tn + fn)",
    numerator=lambda c: c.fp + c.fn,
    denominator=_predicted,
    missing=_missing,
    harm=Harm.HIGHER,
    table=True,
)


def _predicted_1(cell: Cell) -> int:
    return cell.tp + cell.fp


def _predicted_0(cell: Cell) -> int:
    return cell.tn + cell.fn


PRECISION = RateDef(
    key="precision",
    name="precision",
    short="precision",
    counted="labelled 1",
    over="cases predicted 1",
    formula="tp / (tp + fp)",
    numerator=lambda c: c.tp,
    denominator=_predicted_1,
    missing=_missing,
    harm=Harm.LOWER,
    table=True,
)
NPV = RateDef(
    key="negative_predictive",
    name="negative predictive value",
    short="NPV",
    counted="labelled 0",
    over="cases predicted 0",
    formula="tn / (tn + fn)",
    numerator=lambda c: c.tn,
    denominator=_predicted_0,
    missing=_missing,
    harm=Harm.LOWER,
    table=False,
)
FALSE_DISCOVERY = RateDef(
    key="false_discovery",
    name="false discovery rate",
    short="FDR",
    counted="labelled 0",
    over="cases predicted 1",
    formula="fp / (tp + fp)",
    numerator=lambda c: c.fp,
    denominator=_predicted_1,
    missing=_missing,
    harm=Harm.HIGHER,
    table=False,
)
FALSE_OMISSION = RateDef(
    key="false_omission",
    name="false omission rate",
    short="FOR",
    counted="labelled 1",
    over="cases predicted 0",
    formula="fn / (tn + fn)",
    numerator=lambda c: c.fn,
    denominator=_predicted_0,
    missing=_missing,
    harm=Harm.HIGHER,
    table=False,
)
ACCURACY = RateDef(
    key="accuracy",
    name="accuracy",
    short="accuracy",
    counted="prediction equals label",
    over="cases with a prediction",
    formula="(tp + tn) / (tp + fp + tn + fn)",
    numerator=lambda c: c.tp + c.tn,
    denominator=_predicted,
    missing=_missing,
    harm=Harm.LOWER,
    table=False,
)
MINORITY_SHARE = RateDef(
    key="minority_share",
    name="share of the less frequent label",
    short="minority share",
    counted="labelled with the less frequent label",
    over="cases, with or without a prediction",
    formula="min(tp + fn + missing_1, tn + fp + missing_0) / cases",
    numerator=lambda c: min(c.positives, c.negatives),
    denominator=lambda c: c.n,
    missing=None,
    harm=Harm.LOWER,
    table=False,
)

#: Every rate by key, in the order the methods page lists them.
RATES: Mapping[str, RateDef] = MappingProxyType(
    {
        r.key: r
        for r in (
            SELECTION_RATE,
            TPR,
            FPR,
            FNR,
            ERROR_RATE,
            PRECISION,
            NPV,
            FALSE_DISCOVERY,
            FALSE_OMISSION,
            ACCURACY,
            MINORITY_SHARE,
        )
    }
)


class Rate(enum.StrEnum):
    """The rate a group rule compares across groups (the spec's ``rate:`` value).

    ``error`` is the share of cases whose prediction differs from the label, over every
    case; ``false_positive`` is the share predicted 1 among cases labelled 0;
    ``false_negative`` the share predicted 0 among cases labelled 1; ``selection`` the
    share predicted 1 over every case; ``precision`` the share labelled 1 among cases
    predicted 1, ``false_discovery`` its complement; ``negative_predictive`` the share
    labelled 0 among cases predicted 0, ``false_omission`` its complement.
    :attr:`metric` is the rate's definition.
    """

    ERROR = "error"
    FALSE_POSITIVE = "false_positive"
    FALSE_NEGATIVE = "false_negative"
    SELECTION = "selection"
    PRECISION = "precision"
    NEGATIVE_PREDICTIVE = "negative_predictive"
    FALSE_DISCOVERY = "false_discovery"
    FALSE_OMISSION = "false_omission"

    @property
    def metric(self) -> RateDef:
        """The registry entry this rule rate reads.

        Examples
        --------
        >>> Rate.FALSE_NEGATIVE.metric.key
        'false_negative'
        """
        return _RULE_RATES[self]


_RULE_RATES: Mapping[Rate, RateDef] = MappingProxyType(
    {
        Rate.ERROR: ERROR_RATE,
        Rate.FALSE_POSITIVE: FPR,
        Rate.FALSE_NEGATIVE: FNR,
        Rate.SELECTION: SELECTION_RATE,
        Rate.PRECISION: PRECISION,
        Rate.NEGATIVE_PREDICTIVE: NPV,
        Rate.FALSE_DISCOVERY: FALSE_DISCOVERY,
        Rate.FALSE_OMISSION: FALSE_OMISSION,
    }
)


def unlabelled(selected: int, cases: int) -> Cell:
    """``cases`` decisions without a label, ``selected`` of them 1, as a cell.

    An LL144 tally counts applicants and how many were selected, and has no label. In the
    cell every case is labelled 0, so only a rate that ignores the label reads it:
    :data:`SELECTION_RATE` gives ``selected / cases``.

    Parameters
    ----------
    selected
        Decisions that are 1 (selected, or scoring above the median).
    cases
        Every decision, ``selected`` included.

    Raises
    ------
    ValueError
        When ``selected`` is negative or more than ``cases``.

    Examples
    --------
    >>> SELECTION_RATE.fraction(unlabelled(35, 100))
    (35, 100)
    """
    if not 0 <= selected <= cases:
        raise ValueError(f"selected must be between 0 and cases ({cases}), not {selected}")
    return Cell(fp=selected, tn=cases - selected)
