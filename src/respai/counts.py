"""Integer counts per group × label × prediction (and per probability bin).

This module is pure: it turns the validated cells of the engine's one count pass into
per-group confusion counts for every attribute and declared intersection. Everything
downstream (rates, intervals, verdicts, the record) is a function of these integers, so
anyone holding them can recompute every number.
"""

from __future__ import annotations

from collections.abc import ItemsView, Iterable, Iterator, Mapping, Sequence, ValuesView
from dataclasses import dataclass, field
from itertools import product
from typing import Any

__all__ = [
    "MICRO",
    "Calibration",
    "CalibrationColumns",
    "Cell",
    "Counts",
    "Grouping",
    "RankSums",
    "Row",
    "build_counts",
    "calibration_columns",
]

GroupKey = tuple[str, ...]

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


class CalibrationColumns(Mapping[GroupKey, Calibration]):
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

    __slots__ = ("_bins", "_index", "_keys", "_without")

    def __init__(self, keys: Sequence[GroupKey], bins: Any, without: Any) -> None:
        self._keys = keys
        self._bins = bins
        self._without = without
        self._index: dict[GroupKey, int] | None = None

    def __len__(self) -> int:
        return len(self._keys)

    def __iter__(self) -> Iterator[GroupKey]:
        return iter(self._keys)

    def __repr__(self) -> str:
        """As the dict of groups to bins it stands for."""
        return repr(dict(self.items()))

    def __getitem__(self, key: GroupKey) -> Calibration:
        if self._index is None:  # built on the first look-up by key; reading in order needs none
            self._index = {k: i for i, k in enumerate(self._keys)}
        return self._at(self._index[key])

    def _at(self, i: int) -> Calibration:
        rows = self._bins[i]
        rows = rows.tolist() if hasattr(rows, "tolist") else rows
        return Calibration(tuple(map(tuple, rows)), int(self._without[i]))

    def items(self) -> ItemsView[GroupKey, Calibration]:
        """The groups and their bins, in order, each made when reached."""
        return _Items(self)

    def values(self) -> ValuesView[Calibration]:
        """The groups' bins, in order, each made when reached."""
        return _Values(self)

    def flat_bins(self) -> list[list[int]]:
        """Per group, its bins' three integers one after another (the record's layout)."""
        bins = self._bins
        if hasattr(bins, "reshape"):
            flat: list[list[int]] = bins.reshape(len(self._keys), -1).tolist()
            return flat
        return [[x for b in group for x in b] for group in bins]

    def without_column(self) -> list[int]:
        """Per group, its cases without a probability."""
        without = self._without
        return [int(w) for w in (without.tolist() if hasattr(without, "tolist") else without)]


class _Items(ItemsView[GroupKey, Calibration]):
    _mapping: CalibrationColumns

    def __iter__(self) -> Iterator[tuple[GroupKey, Calibration]]:
        columns = self._mapping
        for i, key in enumerate(columns._keys):
            yield key, columns._at(i)


class _Values(ValuesView[Calibration]):
    _mapping: CalibrationColumns

    def __iter__(self) -> Iterator[Calibration]:
        columns = self._mapping
        for i in range(len(columns._keys)):
            yield columns._at(i)


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
