"""Integer counts per group × label × prediction (and per probability bin).

This module is pure: it turns the validated cells of the engine's one count pass into
per-group confusion counts for every attribute and declared intersection. Everything
downstream (rates, intervals, verdicts, the record) is a function of these integers, so
anyone holding them can recompute every number.
"""

from __future__ import annotations

import itertools
from collections.abc import ItemsView, Iterable, Iterator, Mapping, Sequence, ValuesView
from dataclasses import dataclass, field
from itertools import product
from typing import Any, TypeVar

__all__ = [
    "MICRO",
    "Calibration",
    "CalibrationColumns",
    "Cell",
    "CellColumns",
    "Counts",
    "Grouping",
    "RankSumColumns",
    "RankSums",
    "Row",
    "build_counts",
    "calibration_columns",
]

GroupKey = tuple[str, ...]
_V = TypeVar("_V")

#: Probabilities are summed as integers in millionths (``floor(p * 10**6)`` of the binary
#: double product: 0.00397 contributes 3969), so the sums are exact and identical on every
#: engine and every thread count.
MICRO = 1_000_000


@dataclass(frozen=True, slots=True)
class Cell:
    """Confusion counts of one group.

    ``missing_pos`` and ``missing_neg`` count cases labelled 1 and 0 that have no
    prediction.
    """

    tp: int = 0
    fp: int = 0
    tn: int = 0
    fn: int = 0
    missing_pos: int = 0
    missing_neg: int = 0

    @property
    def n(self) -> int:
        """Every case in the group, with or without a prediction."""
        return self.tp + self.fp + self.tn + self.fn + self.missing_pos + self.missing_neg

    @property
    def positives(self) -> int:
        """Cases labelled 1."""
        return self.tp + self.fn + self.missing_pos

    @property
    def negatives(self) -> int:
        """Cases labelled 0."""
        return self.tn + self.fp + self.missing_neg

    @property
    def missing(self) -> int:
        """Cases without a prediction."""
        return self.missing_pos + self.missing_neg

    @property
    def predicted(self) -> int:
        """Cases with a prediction."""
        return self.n - self.missing

    def __add__(self, other: Cell) -> Cell:
        return Cell(
            self.tp + other.tp,
            self.fp + other.fp,
            self.tn + other.tn,
            self.fn + other.fn,
            self.missing_pos + other.missing_pos,
            self.missing_neg + other.missing_neg,
        )

    def to_dict(self) -> dict[str, int]:
        """The six counts by name."""
        return {
            "tp": self.tp,
            "fp": self.fp,
            "tn": self.tn,
            "fn": self.fn,
            "missing_prediction_label_1": self.missing_pos,
            "missing_prediction_label_0": self.missing_neg,
        }


@dataclass(frozen=True, slots=True)
class Calibration:
    """Per probability bin: cases, cases labelled 1, and the sum of ``floor(p * 10**6)``.

    ``without_probability`` counts cases in the group that have no probability.
    """

    bins: tuple[tuple[int, int, int], ...]
    without_probability: int = 0


class _Columns(Mapping[GroupKey, _V]):
    """A mapping of groups, in order, to values made from integer arrays when read.

    A subclass keeps its arrays and makes the value of the ``i``-th group in
    :meth:`_at`; reading every group in order may make all of them at once from one
    conversion (:meth:`_all`). Nothing is kept per group: 100,000 groups cost their
    arrays, not 100,000 Python objects held for the run.
    """

    __slots__ = ("_index", "_keys")

    def __init__(self, keys: Sequence[GroupKey]) -> None:
        self._keys = keys
        self._index: dict[GroupKey, int] | None = None

    def _at(self, i: int) -> _V:  # pragma: no cover - every subclass has its own
        raise NotImplementedError

    def _all(self) -> Iterator[_V]:
        """Every group's value, in order (a subclass may convert its arrays once)."""
        return map(self._at, range(len(self._keys)))

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self) -> Iterator[GroupKey]:
        return iter(self._keys)

    def __contains__(self, key: object) -> bool:
        return key in self._lookup()

    def __repr__(self) -> str:
        """As the dict of groups to values it stands for."""
        return repr(dict(self.items()))

    def _lookup(self) -> dict[GroupKey, int]:
        if self._index is None:  # built on the first look-up by key; reading in order needs none
            self._index = {k: i for i, k in enumerate(self._keys)}
        return self._index

    def __getitem__(self, key: GroupKey) -> _V:
        return self._at(self._lookup()[key])

    def items(self) -> ItemsView[GroupKey, _V]:
        """The groups and their values, in order, each made when reached."""
        return _Items(self)

    def values(self) -> ValuesView[_V]:
        """The groups' values, in order, each made when reached."""
        return _Values(self)


class _Items(ItemsView[GroupKey, _V]):
    _mapping: _Columns[_V]

    def __iter__(self) -> Iterator[tuple[GroupKey, _V]]:
        return zip(self._mapping._keys, self._mapping._all(), strict=True)


class _Values(ValuesView[_V]):
    _mapping: _Columns[_V]

    def __iter__(self) -> Iterator[_V]:
        return self._mapping._all()


def _rows(array: Any) -> list[Any]:
    """An array's rows as lists of Python integers (a numpy array or nested lists)."""
    return array.tolist() if hasattr(array, "tolist") else list(array)


class CellColumns(_Columns[Cell]):
    """The cells of a grouping's groups, kept as one integer array.

    A :class:`Cell` per group is made when it is read, and not kept: 100,000 groups hold
    an array of 4.8 MB instead of 100,000 objects (about 13 MB with their dict).

    Parameters
    ----------
    keys
        The groups, in order.
    cells
        Integers of shape ``(groups, 6)``: per group ``tp``, ``fp``, ``tn``, ``fn``,
        ``missing_pos`` and ``missing_neg`` (a numpy array, or nested lists).

    Examples
    --------
    >>> cells = CellColumns([("a",), ("b",)], [[1, 0, 2, 0, 0, 0], [0, 3, 0, 1, 1, 0]])
    >>> cells[("b",)]
    Cell(tp=0, fp=3, tn=0, fn=1, missing_pos=1, missing_neg=0)
    >>> cells == {("a",): Cell(1, 0, 2), ("b",): Cell(0, 3, 0, 1, 1)}
    True
    >>> ("c",) in cells, repr(cells) == repr(dict(cells))
    (False, True)
    """

    __slots__ = ("_cells",)

    def __init__(self, keys: Sequence[GroupKey], cells: Any) -> None:
        super().__init__(keys)
        self._cells = cells

    def _at(self, i: int) -> Cell:
        row = self._cells[i]
        return Cell(*(row.tolist() if hasattr(row, "tolist") else row))

    def _all(self) -> Iterator[Cell]:
        return itertools.starmap(Cell, _rows(self._cells))

    def columns(self) -> Cell:
        """Every group's counts at once: a :class:`Cell` whose six fields are int64 arrays.

        A rate's numerator and denominator written as sums of a cell's counts give each
        group's value as an array from it (:func:`respai.metrics.group_counts`).
        """
        import numpy as np

        cells = np.asarray(self._cells, dtype=np.int64).reshape(len(self._keys), 6)
        return Cell(*cells.T)


class CalibrationColumns(_Columns[Calibration]):
    """The calibration bins of a grouping's groups, kept as two integer arrays.

    A :class:`Calibration` per group is made when it is read, and not kept: a grouping of
    100,000 groups and ten bins holds two arrays of about 25 MB instead of a million
    tuples of Python integers (more than 100 MB).

    Parameters
    ----------
    keys
        The groups, in order.
    bins
        Integers of shape ``(groups, bins, 3)``: per group and bin, the cases, the cases
        labelled 1 and the sum of ``floor(p * 10**6)`` (a numpy array, or nested lists).
    without
        Integers of shape ``(groups,)``: the cases of each group without a probability.

    Examples
    --------
    >>> cal = CalibrationColumns([("a",), ("b",)], [[[2, 1, 900000]], [[0, 0, 0]]], [0, 3])
    >>> cal[("b",)]
    Calibration(bins=((0, 0, 0),), without_probability=3)
    >>> cal == {("a",): Calibration(((2, 1, 900000),)), ("b",): Calibration(((0, 0, 0),), 3)}
    True
    >>> cal.flat_bins(), cal.without_column()
    ([[2, 1, 900000], [0, 0, 0]], [0, 3])
    >>> repr(cal) == repr(dict(cal))
    True
    """

    __slots__ = ("_bins", "_without")

    def __init__(self, keys: Sequence[GroupKey], bins: Any, without: Any) -> None:
        super().__init__(keys)
        self._bins = bins
        self._without = without

    def _at(self, i: int) -> Calibration:
        rows = self._bins[i]
        rows = rows.tolist() if hasattr(rows, "tolist") else rows
        return Calibration(tuple(map(tuple, rows)), int(self._without[i]))

    def flat_bins(self) -> list[list[int]]:
        """Per group, its bins' three integers one after another (the record's layout)."""
        bins = self._bins
        if hasattr(bins, "reshape"):
            flat: list[list[int]] = bins.reshape(len(self._keys), -1).tolist()
            return flat
        return [[x for b in group for x in b] for group in bins]

    def without_column(self) -> list[int]:
        """Per group, its cases without a probability."""
        return [int(w) for w in _rows(self._without)]


def calibration_columns(
    calibration: Mapping[GroupKey, Calibration], keys: Sequence[GroupKey]
) -> tuple[list[int], list[list[int]]]:
    """A grouping's calibration as the record's two columns, in the order of ``keys``.

    The first holds each group's cases without a probability, the second each group's
    bins flattened (cases, labelled 1, probability sum, bin after bin). Bins kept as
    :class:`CalibrationColumns` in that order are read from their arrays at once.
    """
    if isinstance(calibration, CalibrationColumns) and list(calibration) == list(keys):
        return calibration.without_column(), calibration.flat_bins()
    picked = [calibration[k] for k in keys]
    return [c.without_probability for c in picked], [
        [x for b in c.bins for x in b] for c in picked
    ]


@dataclass(frozen=True, slots=True)
class Grouping:
    """Counts for one attribute or intersection.

    ``groups`` has a cell for every declared combination, in declared order, including
    combinations with no cases. ``left_out`` counts the cases not in any declared group,
    by reason (e.g. ``"sex: missing"``, ``"sex: undeclared value 'x'"``).
    """

    attributes: tuple[str, ...]
    groups: Mapping[GroupKey, Cell]
    calibration: Mapping[GroupKey, Calibration] | None
    left_out: Mapping[str, int]

    @property
    def left_out_total(self) -> int:
        """All cases left out of this grouping."""
        return sum(self.left_out.values())

    @property
    def name(self) -> str:
        """``sex`` or ``sex × age_band``."""
        return " × ".join(self.attributes)


@dataclass(frozen=True, slots=True)
class Counts:
    """Everything the engine counted, for the whole file and every grouping."""

    total: int
    overall: Cell
    overall_calibration: Calibration | None
    groupings: Mapping[tuple[str, ...], Grouping]
    calibration_bins: int
    declared: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    #: Empty cells per column read (``label``, ``prediction``, attributes, ...).
    null_cells: Mapping[str, int] = field(default_factory=dict)
    #: The rank sums behind the AUC over every case with a score; ``None`` without a
    #: score column.
    overall_ranks: RankSums | None = None
    #: The same per grouping and group (every declared group, scored or not).
    ranks: Mapping[tuple[str, ...], Mapping[GroupKey, RankSums]] | None = None


@dataclass(frozen=True, slots=True)
class Row:
    """One validated cell of the count pass.

    ``values[i]`` is the declared value of attribute ``i``, or ``None`` when the case is
    not in a declared group, with ``reasons[i]`` saying why (``"missing"`` or
    ``"undeclared value 'x'"``). ``prediction`` is ``None`` when the case has none.
    """

    values: tuple[str | None, ...]
    reasons: tuple[str | None, ...]
    label: int
    prediction: int | None
    prob_bin: int | None
    n: int
    prob_sum: int = 0


def _cell(label: int, prediction: int | None, n: int) -> Cell:
    if prediction is None:
        return Cell(missing_pos=n) if label == 1 else Cell(missing_neg=n)
    if label == 1:
        return Cell(tp=n) if prediction == 1 else Cell(fn=n)
    return Cell(fp=n) if prediction == 1 else Cell(tn=n)


class _Bins:
    """A group's calibration bins while the rows are summed (one bin touched per row)."""

    __slots__ = ("bins", "without")

    def __init__(self, count: int) -> None:
        self.bins = [[0, 0, 0] for _ in range(count)]
        self.without = 0

    def add(self, row: Row) -> None:
        if row.prob_bin is None:
            self.without += row.n
            return
        cell = self.bins[row.prob_bin]
        cell[0] += row.n
        if row.label == 1:
            cell[1] += row.n
        cell[2] += row.prob_sum

    def frozen(self) -> Calibration:
        return Calibration(tuple((a, b, c) for a, b, c in self.bins), self.without)


def build_counts(
    rows: Iterable[Row],
    attributes: Mapping[str, Sequence[str]],
    groupings: Sequence[tuple[str, ...]],
    calibration_bins: int | None,
) -> Counts:
    """Sum validated count cells into per-group counts for every grouping.

    Parameters
    ----------
    rows
        Cells of the count pass, with attribute values in the order of ``attributes``.
    attributes
        Declared attributes and their values.
    groupings
        Single attributes and intersections, as tuples of attribute names.
    calibration_bins
        Number of probability bins, or ``None`` when there is no probability column.

    Examples
    --------
    >>> rows = [Row(("f",), (None,), 1, 1, None, 3), Row((None,), ("missing",), 0, 1, None, 2)]
    >>> c = build_counts(rows, {"sex": ["f", "m"]}, [("sex",)], None)
    >>> c.groupings[("sex",)].groups[("f",)].tp, c.groupings[("sex",)].left_out
    (3, {'sex: missing': 2})
    """
    rows = list(rows)
    names = list(attributes)
    index = {name: i for i, name in enumerate(names)}

    overall = Cell()
    overall_cal = _Bins(calibration_bins) if calibration_bins else None
    acc: dict[tuple[str, ...], dict[GroupKey, Cell]] = {}
    cal: dict[tuple[str, ...], dict[GroupKey, _Bins]] = {}
    left: dict[tuple[str, ...], dict[str, int]] = {}
    for grouping in groupings:
        keys = list(product(*(attributes[a] for a in grouping)))
        acc[grouping] = {tuple(k): Cell() for k in keys}
        if calibration_bins:
            cal[grouping] = {tuple(k): _Bins(calibration_bins) for k in keys}
        left[grouping] = {}

    for row in rows:
        cell = _cell(row.label, row.prediction, row.n)
        overall = overall + cell
        if overall_cal is not None:
            overall_cal.add(row)
        for grouping in groupings:
            positions = [index[a] for a in grouping]
            reason = next(
                (f"{names[i]}: {row.reasons[i]}" for i in positions if row.values[i] is None),
                None,
            )
            if reason is not None:
                left[grouping][reason] = left[grouping].get(reason, 0) + row.n
                continue
            key = tuple(row.values[i] or "" for i in positions)
            acc[grouping][key] = acc[grouping][key] + cell
            if overall_cal is not None:
                cal[grouping][key].add(row)

    return Counts(
        total=overall.n,
        overall=overall,
        overall_calibration=overall_cal.frozen() if overall_cal is not None else None,
        groupings={
            g: Grouping(
                attributes=g,
                groups=acc[g],
                calibration={k: b.frozen() for k, b in cal[g].items()} if g in cal else None,
                left_out=dict(sorted(left[g].items())),
            )
            for g in groupings
        },
        calibration_bins=calibration_bins or 0,
        declared={k: tuple(v) for k, v in attributes.items()},
    )


@dataclass(frozen=True, slots=True)
class RankSums:
    """Exact integers from which a group's rank AUC and DeLong variance follow.

    Over the cases with a score: ``positives`` (labelled 1, count ``m``) and
    ``negatives`` (labelled 0, count ``n``). Each positive's placement numerator is
    ``x = 2 * (negatives scored lower) + (negatives scored equal)``; each negative's is
    ``v = 2 * (positives scored higher) + (positives scored equal)``. Then
    ``twice_u = sum(x) = sum(v)`` is twice the Mann-Whitney U (ties counted half),
    ``positive_squares = sum(x**2)`` and ``negative_squares = sum(v**2)``. The AUC is
    ``twice_u / (2 m n)``; see :func:`respai.stats.auc_from_rank_sums`.
    """

    positives: int = 0
    negatives: int = 0
    twice_u: int = 0
    positive_squares: int = 0
    negative_squares: int = 0

    @classmethod
    def from_parts(
        cls, positives: int, negatives: int, sum_x: int, sum_x2: int, sum_w: int, sum_w2: int
    ) -> RankSums:
        """From the engine's sums, where a negative's ``w`` counts positives *below*.

        ``v = 2m - w`` for a negative, so ``sum(v**2) = 4 m**2 n - 4 m sum(w) + sum(w**2)``.
        The identity ``sum(w) = 2 m n - sum(x)`` (every pair counted once) is checked.
        """
        m, n = positives, negatives
        if sum_w != 2 * m * n - sum_x:
            raise ValueError(
                f"rank sums disagree: sum(w) = {sum_w}, expected 2mn - sum(x) = "
                f"{2 * m * n - sum_x}"
            )
        return cls(m, n, sum_x, sum_x2, 4 * m * m * n - 4 * m * sum_w + sum_w2)

    def to_dict(self) -> dict[str, int | str]:
        """The record's form: the three large sums as decimal strings (beyond 2**53)."""
        return {
            "scored_labelled_1": self.positives,
            "scored_labelled_0": self.negatives,
            "twice_u": str(self.twice_u),
            "positive_placement_squares": str(self.positive_squares),
            "negative_placement_squares": str(self.negative_squares),
        }


class RankSumColumns(_Columns[RankSums]):
    """The rank sums of a grouping's groups, kept as five integer columns.

    A :class:`RankSums` per group is made when it is read, and not kept. A column is a
    numpy ``int64`` array when its sums fit, and a list of Python integers when one does
    not (the squares of a large group pass ``2**63``), so the integers stay exact.

    Parameters
    ----------
    keys
        The groups, in order.
    columns
        Five sequences of one integer per group, in the order of :class:`RankSums`'
        fields: ``positives``, ``negatives``, ``twice_u``, ``positive_squares`` and
        ``negative_squares``.

    Examples
    --------
    >>> r = RankSumColumns([("a",), ("b",)], ([2, 0], [1, 0], [3, 0], [5, 0], [9, 0]))
    >>> r[("a",)]
    RankSums(positives=2, negatives=1, twice_u=3, positive_squares=5, negative_squares=9)
    >>> r == {("a",): RankSums(2, 1, 3, 5, 9), ("b",): RankSums()}
    True
    """

    __slots__ = ("_columns",)

    def __init__(self, keys: Sequence[GroupKey], columns: Sequence[Any]) -> None:
        super().__init__(keys)
        if len(columns) != 5:
            raise ValueError(f"rank sums need 5 columns, got {len(columns)}")
        self._columns = tuple(columns)

    def _at(self, i: int) -> RankSums:
        return RankSums(*(int(c[i]) for c in self._columns))

    def _all(self) -> Iterator[RankSums]:
        return itertools.starmap(RankSums, zip(*map(_rows, self._columns), strict=True))
