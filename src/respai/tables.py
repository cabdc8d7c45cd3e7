"""The per-group table and per-group calibration, from counts.

For every attribute and declared intersection, each declared group gets a row with its
count and the rates of :data:`METRICS` (selection, TPR, FPR, FNR, error, precision, as
defined in :mod:`respai.metrics`), each with numerator, denominator and a 95% Wilson
interval. Rates are over the cases that have a prediction;
the row also says how many had none. A rate whose denominator is zero is undefined, with
a reason, never 0. A declared group with no cases still has its row.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Generic, TypeVar

from respai import metrics, stats
from respai.counts import MICRO, Calibration, Cell, Counts, Grouping
from respai.metrics import RateDef
from respai.types import Interval, Undefined

__all__ = [
    "METRICS",
    "CalibrationRow",
    "GroupRow",
    "GroupTables",
    "Measure",
    "calibration_table",
    "group_table",
    "measure",
]

#: The rates of the per-group table, by key, in column order: the :mod:`respai.metrics`
#: entries marked ``table``.
METRICS: Mapping[str, RateDef] = MappingProxyType(
    {key: rate for key, rate in metrics.RATES.items() if rate.table}
)


_V = TypeVar("_V")


class _Later(Generic[_V]):
    """A table not made yet: its maker."""

    __slots__ = ("make",)

    def __init__(self, make: Callable[[], _V]) -> None:
        self.make = make


class GroupTables(Mapping[str, _V], Generic[_V]):
    """Tables by grouping name (``"sex"``, ``"sex × race"``), also read by attributes.

    Iterating gives the names, so JSON and the record are unchanged; a lookup also
    accepts the attributes as a tuple, ``tables[("sex", "race")]`` for ``"sex × race"``.

    Examples
    --------
    >>> t = GroupTables({"sex": 1, "sex × race": 2})
    >>> t[("sex", "race")], t["sex"], t[("sex",)], list(t)
    (2, 1, 1, ['sex', 'sex × race'])
    """

    __slots__ = ("_by_name",)

    def __init__(self, by_name: Mapping[str, _V]) -> None:
        self._by_name: dict[str, _V | _Later[_V]] = dict(by_name)

    @classmethod
    def later(cls, makers: Mapping[str, Callable[[], _V]]) -> GroupTables[_V]:
        """Tables each made by its maker when first read (then kept), named in this order.

        A run keeps every grouping's table, but a command reads only some of them (the
        record of a grouping of 100,000 groups writes none): nothing is computed unread.

        Examples
        --------
        >>> t = GroupTables.later({"sex": lambda: 1, "race": lambda: 2})
        >>> list(t), t["race"], dict(t)
        (['sex', 'race'], 2, {'sex': 1, 'race': 2})
        """
        out: GroupTables[_V] = cls({})
        out._by_name = {name: _Later(make) for name, make in makers.items()}
        return out

    @staticmethod
    def name_of(key: str | tuple[str, ...]) -> str:
        """The grouping name of ``key``: a name as it is, attributes joined with `` × ``."""
        return key if isinstance(key, str) else " × ".join(key)

    def __getitem__(self, key: str | tuple[str, ...]) -> _V:
        name = self.name_of(key)
        found = self._by_name[name]
        if isinstance(found, _Later):
            made = found.make()
            self._by_name[name] = made
            return made
        return found

    def __contains__(self, key: object) -> bool:
        if isinstance(key, tuple) and all(isinstance(k, str) for k in key):
            return " × ".join(key) in self._by_name
        return key in self._by_name

    def __iter__(self) -> Iterator[str]:
        return iter(self._by_name)

    def __len__(self) -> int:
        return len(self._by_name)

    def __repr__(self) -> str:
        return f"GroupTables({list(self._by_name)!r})"


def _measures(cell: Cell) -> dict[str, Measure]:
    return {key: measure(*rate.fraction(cell), rate.over) for key, rate in METRICS.items()}


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
        return _measure(numerator, 0, what, None)
    return _measure(numerator, denominator, what, stats.wilson_interval(numerator, denominator))


def _measure(numerator: int, denominator: int, what: str, interval: Interval | None) -> Measure:
    """:func:`measure` with its Wilson interval given."""
    if denominator == 0:
        return Measure(numerator, 0, None, None, Undefined("empty_denominator", f"no {what}"))
    return Measure(numerator, denominator, numerator / denominator, interval, None)


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
    """The per-group table of one attribute or intersection.

    Each rate's Wilson intervals over the groups come from one array call
    (:func:`respai.stats.wilson_intervals`, the same floats as one call per group).
    """
    cells = list(grouping.groups.values())
    columns: dict[str, list[Measure]] = {}
    for name, rate in METRICS.items():
        fractions = [rate.fraction(cell) for cell in cells]
        intervals = stats.wilson_intervals([f[0] for f in fractions], [f[1] for f in fractions])
        columns[name] = [
            _measure(k, n, rate.over, iv) for (k, n), iv in zip(fractions, intervals, strict=True)
        ]
    return tuple(
        GroupRow(
            key=key,
            count=cell.n,
            with_prediction=cell.predicted,
            missing_prediction=cell.missing,
            positives=cell.positives,
            metrics={name: column[i] for name, column in columns.items()},
        )
        for i, (key, cell) in enumerate(grouping.groups.items())
    )


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
        metrics=_measures(cell),
    )
