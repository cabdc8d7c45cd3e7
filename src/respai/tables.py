"""The per-group table (seed 002) and per-group calibration, from counts.

For every attribute and declared intersection, each declared group gets a row with its
count and six rates (selection, TPR, FPR, FNR, error, precision), each with numerator,
denominator and a 95% Wilson interval. Rates are over the cases that have a prediction;
the row also says how many had none. A rate whose denominator is zero is undefined, with
a reason, never 0. A declared group with no cases still has its row.
"""

from __future__ import annotations

from dataclasses import dataclass

from respai import stats
from respai.counts import MICRO, Calibration, Cell, Counts, Grouping
from respai.types import Interval, Undefined

__all__ = [
    "METRICS",
    "CalibrationRow",
    "GroupRow",
    "Measure",
    "calibration_table",
    "group_table",
    "measure",
]

#: Metric name -> (what is counted, over which cases), as functions of a Cell.
METRICS: dict[str, tuple[str, str]] = {
    "selection_rate": ("predicted 1", "cases with a prediction"),
    "tpr": ("predicted 1", "cases labelled 1 with a prediction"),
    "fpr": ("predicted 1", "cases labelled 0 with a prediction"),
    "fnr": ("predicted 0", "cases labelled 1 with a prediction"),
    "error_rate": ("prediction differs from label", "cases with a prediction"),
    "precision": ("labelled 1", "cases predicted 1"),
}


def _fractions(cell: Cell) -> dict[str, tuple[int, int]]:
    with_pred_pos = cell.tp + cell.fn
    with_pred_neg = cell.tn + cell.fp
    return {
        "selection_rate": (cell.tp + cell.fp, cell.predicted),
        "tpr": (cell.tp, with_pred_pos),
        "fpr": (cell.fp, with_pred_neg),
        "fnr": (cell.fn, with_pred_pos),
        "error_rate": (cell.fp + cell.fn, cell.predicted),
        "precision": (cell.tp, cell.tp + cell.fp),
    }


@dataclass(frozen=True, slots=True)
class Measure:
    """A rate with numerator, denominator and 95% Wilson interval, or undefined."""

    numerator: int
    denominator: int
    value: float | None
    interval: Interval | None
    undefined: Undefined | None


def measure(numerator: int, denominator: int, what: str) -> Measure:
    """A :class:`Measure`; undefined with a reason when ``denominator`` is 0."""
    if denominator == 0:
        return Measure(numerator, 0, None, None, Undefined("empty_denominator", f"no {what}"))
    return Measure(
        numerator,
        denominator,
        numerator / denominator,
        stats.wilson_interval(numerator, denominator),
        None,
    )


@dataclass(frozen=True, slots=True)
class GroupRow:
    """One group's row: counts and the six rates."""

    key: tuple[str, ...]
    count: int
    with_prediction: int
    missing_prediction: int
    positives: int
    metrics: dict[str, Measure]

    @property
    def label(self) -> str:
        """The group as text."""
        return " × ".join(self.key)


def group_table(grouping: Grouping) -> tuple[GroupRow, ...]:
    """The per-group table of one attribute or intersection."""
    rows = []
    for key, cell in grouping.groups.items():
        fractions = _fractions(cell)
        rows.append(
            GroupRow(
                key=key,
                count=cell.n,
                with_prediction=cell.predicted,
                missing_prediction=cell.missing,
                positives=cell.positives,
                metrics={
                    name: measure(num, den, METRICS[name][1])
                    for name, (num, den) in fractions.items()
                },
            )
        )
    return tuple(rows)


@dataclass(frozen=True, slots=True)
class CalibrationRow:
    """Expected calibration error of one group, over cases with a probability."""

    key: tuple[str, ...]
    with_probability: int
    without_probability: int
    ece: float | None
    undefined: Undefined | None

    @property
    def label(self) -> str:
        """The group as text."""
        return " × ".join(self.key)


def _ece(cal: Calibration) -> tuple[int, float | None]:
    bins = [(n, pos, total / MICRO) for n, pos, total in cal.bins]
    return sum(b[0] for b in bins), stats.expected_calibration_error(bins)


def calibration_table(grouping: Grouping) -> tuple[CalibrationRow, ...]:
    """Per-group ECE of one grouping; empty when the spec names no probability."""
    if grouping.calibration is None:
        return ()
    rows = []
    for key, cal in grouping.calibration.items():
        n, ece = _ece(cal)
        rows.append(
            CalibrationRow(
                key=key,
                with_probability=n,
                without_probability=cal.without_probability,
                ece=ece,
                undefined=None
                if ece is not None
                else Undefined("no_probabilities", "no case in the group has a probability"),
            )
        )
    return tuple(rows)


def overall_row(counts: Counts) -> GroupRow:
    """The whole file as one row of the per-group table."""
    cell = counts.overall
    return GroupRow(
        key=("all cases",),
        count=cell.n,
        with_prediction=cell.predicted,
        missing_prediction=cell.missing,
        positives=cell.positives,
        metrics={
            name: measure(num, den, METRICS[name][1])
            for name, (num, den) in _fractions(cell).items()
        },
    )
