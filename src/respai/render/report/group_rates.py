"""A group's rates as the per-group table shows them, derived from the signed counts.

The record holds each group's six confusion counts under ``predicate.counts.groupings``
(``tp``, ``fp``, ``tn``, ``fn`` and the cases without a prediction by label). Every rate
of the terminal's per-group table (:data:`respai.tables.METRICS`: selection, TPR, FPR,
FNR, error, precision) is a fixed function of those six numbers, so the report shows
all of them, each computed here exactly as the terminal computes it
(:func:`respai.tables.measure`, the 95% Wilson interval of
:func:`respai.stats.wilson_interval`) and written as the terminal writes it
(``0.437 379/868 [0.404, 0.470]``).

The page's script computes the same text from the same counts. It does not copy the
definitions: :func:`script_table` writes, for each rate, which counts its numerator and
denominator add up, read off the registry's own functions (:func:`count_terms`), and the
script's Wilson interval repeats the Python one operation for operation.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from typing import Any, TypeGuard

from respai.counts import Cell
from respai.tables import METRICS, measure

__all__ = [
    "COLUMN_HEADINGS",
    "COUNT_COLUMNS",
    "RECORD_NAMES",
    "cell_of",
    "count_terms",
    "count_text_of",
    "derived_table",
    "rate_text",
    "script_table",
]

#: The largest integer JavaScript reads exactly; a count beyond it is not shown.
SAFE_INT = 2**53 - 1

#: The record's name of each :class:`~respai.counts.Cell` field (``missing_pos`` is
#: ``missing_prediction_label_1``), read from :meth:`Cell.to_dict` itself.
RECORD_NAMES: Mapping[str, str] = {
    f.name: next(iter(k for k, v in Cell(**{f.name: 1}).to_dict().items() if v == 1))
    for f in dataclasses.fields(Cell)
}

#: The per-group table's count columns: the format argument, the heading and the count.
COUNT_COLUMNS: Mapping[str, tuple[str, Callable[[Cell], int]]] = {
    "cases": ("Cases", lambda c: c.n),
    "with_prediction": ("With a prediction", lambda c: c.predicted),
    "missing": ("No prediction", lambda c: c.missing),
}


#: The per-group table's headings, in column order: the group, the three counts, then each
#: rate's short name.
COLUMN_HEADINGS: tuple[str, ...] = (
    "Group",
    *(heading for heading, _ in COUNT_COLUMNS.values()),
    *(rate.short for rate in METRICS.values()),
)


def _is_count(value: object) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= SAFE_INT


def cell_of(group: object) -> Cell | None:
    """The counts of one group of ``predicate.counts.groupings``, or ``None`` if malformed.

    Every one of the six counts must be there as an integer from 0, and their total at
    most 2**53 - 1, so every sum of them is an integer the page's script reads exactly.

    Examples
    --------
    >>> cell_of({"tp": 1, "fp": 2, "tn": 3, "fn": 4,
    ...          "missing_prediction_label_1": 0, "missing_prediction_label_0": 5}).n
    15
    >>> cell_of({"tp": 1}) is None
    True
    """
    if not isinstance(group, Mapping):
        return None
    values: dict[str, int] = {}
    for field, name in RECORD_NAMES.items():
        value = group.get(name)
        if not _is_count(value):
            return None
        values[field] = value
    cell = Cell(**values)
    return cell if cell.n <= SAFE_INT else None


def count_terms(count: Callable[[Cell], int]) -> dict[str, int]:
    """The record's counts that ``count`` adds up, each with its weight.

    A rate's numerator and denominator are sums of a group's counts; this reads the
    weights off the function by giving it one count at a time, and refuses a function that
    is not such a sum (it must give the weighted sum on a cell with distinct counts).

    Raises
    ------
    ValueError
        When ``count`` is not a sum of the counts (``min(positives, negatives)``).

    Examples
    --------
    >>> count_terms(lambda c: c.tp + c.fn)
    {'tp': 1, 'fn': 1}
    """
    names = [f.name for f in dataclasses.fields(Cell)]
    weights = {n: count(Cell(**{n: 1})) for n in names}
    if count(Cell()) != 0:
        raise ValueError("a count of the per-group table must be 0 for an empty group")
    for trial in ((3, 5, 7, 11, 13, 17), (101, 1, 0, 29, 0, 2), (1, 1000, 1, 0, 7, 0)):
        cell = Cell(**dict(zip(names, trial, strict=True)))
        if count(cell) != sum(weights[n] * v for n, v in zip(names, trial, strict=True)):
            raise ValueError("a count of the per-group table must be a sum of the counts")
    return {RECORD_NAMES[n]: w for n, w in weights.items() if w}


def rate_text(group: object, key: str | None) -> str:
    """One rate of a group as the terminal's table prints it, or why it is not shown.

    ``value numerator/denominator [lo, hi]`` to three decimals with the 95% Wilson
    interval; ``undefined: no <cases it is over>`` when the denominator is 0; a dash when
    the counts are malformed and ``?`` when ``key`` is not a rate of the table.
    """
    rate = METRICS.get(key) if key is not None else None
    if rate is None:
        return "?"
    cell = cell_of(group)
    if cell is None:
        return "—"
    m = measure(*rate.fraction(cell), rate.over)
    if m.value is None or m.interval is None:
        return f"undefined: {m.undefined.reason if m.undefined else 'no cases'}"
    iv = m.interval
    return f"{m.value:.3f} {m.numerator}/{m.denominator} [{iv.lo:.3f}, {iv.hi:.3f}]"


def count_text_of(group: object, key: str | None) -> str:
    """One count column of a group (cases, with a prediction, without one), with commas."""
    column = COUNT_COLUMNS.get(key) if key is not None else None
    if column is None:
        return "?"
    cell = cell_of(group)
    return "—" if cell is None else f"{column[1](cell):,}"


def script_table() -> dict[str, Any]:
    """What the page's script needs to compute the table's cells, from the registry.

    ``counts``: the record's six count names; ``columns``: each count column's argument
    and the counts it adds up; ``rates``: each rate's key, heading, the counts of its
    numerator and of its denominator, and the cases it is over (for the undefined text).
    """
    return {
        "counts": list(RECORD_NAMES.values()),
        "columns": [
            [key, heading, count_terms(count)] for key, (heading, count) in COUNT_COLUMNS.items()
        ],
        "rates": [
            [
                key,
                rate.short,
                count_terms(rate.numerator),
                count_terms(rate.denominator),
                rate.over,
            ]
            for key, rate in METRICS.items()
        ],
    }


def derived_table() -> dict[str, Any]:
    """What the page's ``derived`` check needs to re-derive a compact record's summaries.

    The check (``report_assets/report.js``, the browser's :func:`respai.recompute.check_compact`)
    reads a compact grouping's columns and, for each test over it, the rate's events,
    decided cases and cases without a decision per group. Those are written here, for
    every rate of :data:`respai.metrics.RATES` that is a sum of the counts, as the counts
    each adds up (:func:`count_terms`), with the rate's name (a record may name the rate
    by key or by name), the compact columns' names and the tolerance on a bound.
    """
    from respai.metrics import RATES
    from respai.recompute import TOLERANCE
    from respai.record.compact import CELL_COLUMNS

    rates: dict[str, Any] = {}
    for key, rate in RATES.items():
        try:
            terms = [
                count_terms(rate.numerator),
                count_terms(rate.denominator),
                count_terms(rate.missing) if rate.missing is not None else {},
            ]
        except ValueError:  # not a sum of the counts (the minority share): never per group
            continue
        rates[key] = [rate.name, *terms]
    return {"cellColumns": list(CELL_COLUMNS), "tolerance": TOLERANCE, "rates": rates}
