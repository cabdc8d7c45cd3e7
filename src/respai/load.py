"""The one validation gate between a user's data and the statistics.

:func:`load_counts` opens the cases (a file through DuckDB, or a DataFrame through
narwhals), checks the declared columns against the header before scanning, runs the one
count pass, and validates every distinct value the pass saw: labels and predictions must
be 0/1 (or mapped in the spec), probabilities must lie in [0, 1], attribute values are
matched to the declared groups and anything else is counted as left out with its reason.
Bad input raises :class:`~respai.errors.InputError` naming the file, column, row and value.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import product
from pathlib import Path
from typing import Any

from respai import engine, heap
from respai.counts import MICRO, Counts, RankSumColumns, RankSums, Row, build_counts
from respai.engine.registry import ENGINES, engine_named
from respai.errors import InputError, did_you_mean
from respai.spec import FairnessSpec, Spec, SystemInfo
from respai.spelling import BinaryValues, DeclaredValues
from respai.weights import WeightedCounts

__all__ = [
    "CountPass",
    "Inputs",
    "Loaded",
    "case_batches",
    "check_id",
    "has_control",
    "load_counts",
    "match_attribute",
    "normal_value",
    "show_value",
    "shown_list",
    "value_text",
]


@dataclass(frozen=True, slots=True)
class Loaded:
    """The counts and what the gate learnt about the source."""

    counts: Counts
    source: str
    path: Path | None
    columns: tuple[str, ...]
    #: The weights' exact sums per cell (``data.weight``), else ``None``.
    weighted: WeightedCounts | None = None


CountPass = Callable[
    [engine.Source, Sequence[str], str | None, int, Sequence[str]], Sequence[engine.CubeRow]
]
"""The count pass's signature: ``(source, keys, probability, bins, count_non_null)``."""


@dataclass(frozen=True, slots=True)
class Inputs:
    """The input files of one run, each opened once, shared by every block.

    ``cases`` is the cases (decisions) file; with ``data.demographics``, ``demographics``
    is the self-identification file and ``joined`` the two joined on ``data.join_on``
    (FULL OUTER JOIN, so the LL144 reconciliation can count unmatched rows on each side).
    """

    cases: engine.Source
    demographics: engine.Source | None = None
    joined: engine.JoinedSource | None = None

    @property
    def decided(self) -> engine.Source:
        """The cases the group rules and the battery count: rows with a decision."""
        return self.cases if self.joined is None else engine.decided_rows(self.joined)

    def fingerprints(self) -> dict[str, Any]:
        """Each file's fingerprint (from the descriptor counted), by role."""
        out: dict[str, Any] = {}
        for role, side in (("dataset", self.cases), ("demographics", self.demographics)):
            found = None if side is None else side.fingerprint()
            if found is not None:
                out[role] = found
        return out

    def check_unchanged(self) -> None:
        """Refuse the run when any input file changed since it was opened."""
        self.cases.check_unchanged()
        if self.demographics is not None:
            self.demographics.check_unchanged()

    def close(self) -> None:
        """Close the engine's connections to the files once every block has read them."""
        for source in (self.joined, self.cases, self.demographics):
            if source is not None:
                source.close()


def _roles(spec: Spec, score: str | None) -> tuple[list[str], list[str], list[str]]:
    """Columns the run reads: ``(demographic, outputs, text)`` over every block.

    Demographic columns (the fairness attributes, LL144 sex and race) are read from the
    self-identification file when it has them; the tool's outputs from the cases file.
    """
    from respai.blocks import declared_blocks

    demographic: list[str] = []
    outputs: list[str] = [score] if score else []
    text: list[str] = []
    for block, declared in declared_blocks(spec):  # the columns each block reads
        roles = block.case_columns(declared)
        demographic += roles.demographic
        outputs += roles.outputs
        text += roles.text
    ds = spec.data
    text += [c for c in (ds.id, ds.join_on) if c]
    if ds.weight is not None:
        outputs.append(ds.weight)
    return (
        list(dict.fromkeys(demographic)),
        [c for c in dict.fromkeys(outputs) if c not in demographic],
        list(dict.fromkeys(text)),
    )


def run_columns(spec: Spec, score: str | None) -> list[str]:
    """Every column a run of ``spec`` reads, in the order the blocks name them.

    The columns a DataFrame's fingerprint covers (:mod:`respai.engine.frame_fingerprint`).
    """
    demographic, outputs, text = _roles(spec, score)
    return list(dict.fromkeys([*demographic, *outputs, *text]))


def open_inputs(
    spec: Spec,
    *,
    data: Any = None,
    engine_name: str = "duckdb",
    score: str | None = None,
) -> Inputs:
    """Open a run's input files once: the cases, and the self-identification file joined.

    Every block of the run (group rules, battery, LL144 tables) counts these same open
    files, so what the record fingerprints is what every block counted.

    Raises
    ------
    InputError
        When a file cannot be opened, or a join is asked of a DataFrame or of Spark.
    """
    fb = spec.fairness_block
    ds = spec.data
    demographic, outputs, text = _roles(spec, score)
    if ds.demographics is not None and data is not None:
        raise InputError(
            "a DataFrame was given, but the spec joins data.demographics: the join reads "
            "two files.",
            "Join the self-ID to the DataFrame yourself, or run on the files.",
        )
    named = ENGINES.get(engine_name)
    if ds.demographics is not None and named is not None and not named.joins:
        raise InputError(
            "the spec joins data.demographics, and the self-identification join runs in "
            "DuckDB only.",
            f"Run without --engine {engine_name}, or join the two files before the run.",
        )
    if data is not None:
        return Inputs(engine.open_frame(data))
    cases_path = ds.cases if ds.cases is not None else (fb.cases if fb is not None else None)
    if cases_path is None:
        raise InputError(
            "the spec names no cases file and no DataFrame was given.",
            "Set fairness.cases (or data.cases) to the file of decided cases.",
        )
    fmt = fb.format if fb is not None and ds.format is None else ds.format
    delimiter = fb.delimiter if fb is not None else ds.delimiter
    cases = engine_named(engine_name).open_file(
        cases_path, fmt, delimiter, text, [*text, *outputs]
    )
    if ds.demographics is None:
        return Inputs(cases)
    assert ds.join_on is not None
    right = engine.open_file(ds.demographics, None, delimiter, text)
    origin: dict[str, engine.Source] = {}
    for column in [*demographic, *outputs]:
        order = [right, cases] if column in demographic else [cases, right]
        found = next((side for side in order if column in side.kinds), None)
        if found is not None:
            origin[column] = found
    for side in (cases, right):
        check_id(side, ds.join_on, "to join the two files")
    joined = engine.open_join(
        cases,
        right,
        ds.join_on,
        [c for c, side in origin.items() if side is cases],
        [c for c, side in origin.items() if side is right],
        left_format=fmt,
        delimiter=delimiter,
        text_columns=text,
    )
    return Inputs(cases, right, joined)


def check_id(side: engine.Source, column: str, purpose: str) -> None:
    """An id column: present, never empty, and unique in ``side``.

    ``purpose`` completes the messages: ``"to join the two files"``, ``"(data.id)"``.

    Raises
    ------
    InputError
        Naming the file, the column and the line(s) of the first empty or repeated id.
    """
    if column not in side.kinds:
        present = side.columns
        raise InputError(
            f"{side.description} has no column '{column}' (the id column {purpose}). "
            f"Its columns are: {shown_list(present)}.",
            did_you_mean(column, present).strip() or "Fix data.join_on or data.id.",
        )
    empty = engine.lines_of(side, column, None, 1)
    if empty:
        raise InputError(
            f"{side.description}: the id column '{column}' is empty on "
            f"{side.row_word} {empty[0]}; every row needs an id {purpose}.",
            "Fill in the id, or drop the row from the export.",
        )
    dup = engine.duplicate_unit(side, column)
    if dup is not None:
        value, n = dup
        lines = engine.lines_of(side, column, value, 2)
        where = f" on {side.row_word}s {lines[0]} and {lines[1]}" if len(lines) == 2 else ""
        raise InputError(
            f"{side.description}: the id {show_value(value_text(value))} appears {n} times"
            f"{where} in column '{column}'; each applicant must appear once, or the "
            "join and the counts would count one person several times.",
            "Remove the duplicate rows (keep the decision that was actually made), "
            "then run again.",
        )


def load_counts(
    spec: FairnessSpec,
    data: Any = None,
    *,
    score: str | None = None,
    engine_name: str = "duckdb",
    count: CountPass | None = None,
    weight: str | None = None,
    weight_decimals: int = 6,
) -> Loaded:
    """Open the cases, validate them once, and count them in one engine pass.

    Parameters
    ----------
    spec
        A validated declaration.
    data
        A DataFrame (pandas, polars, pyarrow, ...) to use instead of ``spec.cases``.
    score
        A numeric score column for the rank AUC. When given, a second pass sorts the
        scored cases and gathers the AUC's rank sums per group (``Counts.ranks``).
    engine_name
        A name in :data:`~respai.engine.registry.ENGINES`, for a cases file (see
        :func:`open_inputs`).
    count
        The count pass to run once the columns are checked (default
        :func:`respai.engine.count_cube`): a run that also tallies the LL144 tables
        passes one that counts both in the same scan.
    weight, weight_decimals
        ``data.weight`` and its grid: a second pass sums the weights and their squares
        per cell of the count cube (:func:`respai.engine.weight_sums`), checked against
        the count pass's cases per cell.

    Raises
    ------
    InputError
        When the data does not fit the declaration.
    """
    if data is None:  # a fairness block on its own: the same opening as a whole spec
        whole = Spec(path=None, sha256=None, system=SystemInfo(), fairness=spec)
        source = open_inputs(whole, engine_name=engine_name, score=score).cases
    else:
        source = engine.open_frame(data)
    # a list, bytes or object in a column read is named (type and row) before anything else
    extra = [c for c in (spec.unit, score) if c is not None and c != spec.probability]
    keys = [*spec.attributes, spec.label, spec.prediction]
    probability = [spec.probability] if spec.probability else []
    engine.refuse_uncounted(source, [*keys, *probability, *extra])
    _check_columns(spec, source)
    if score is not None:
        _check_score_column(spec, source, score)
    if spec.unit is not None:
        dup = engine.duplicate_unit(source, spec.unit)
        if dup is not None:
            value, n = dup
            where = _where(source, spec.unit, value)
            raise InputError(
                f"{source.description}: unit column '{spec.unit}' holds {show_value(value)} on "
                f"{n} cases{where}, but with unit declared every case must be a different "
                "person.",
                "Keep one case per person, or remove unit: and accept the stated "
                "independence assumption.",
            )
    bins = spec.calibration_bins if spec.probability else None
    heap.for_groups(
        sum(math.prod(len(spec.attributes[a]) for a in g) for g in spec.groupings)
    )  # in the command, many groups' large blocks get pages of their own
    passes = count or engine.count_cube
    cube = passes(source, keys, spec.probability, spec.calibration_bins, extra)
    if not isinstance(cube, engine.Cube):  # cells from a caller's own count pass
        cube = engine.Cube.of_rows(list(cube))
    gate = _Gate(spec, source, cube)
    coded = _coded(spec, gate, cube)
    if coded is not None:  # every value read: the cells summed as arrays
        counts = _coded_counts(spec, coded)
        counts = replace(counts, null_cells=_coded_null_cells(spec, cube, coded, extra))
    else:  # a refusal (named at its cell, as always) or a value that is not a key
        gate = _Gate(spec, source, cube)
        rows = [gate.row(c) for c in cube]
        if not rows:
            raise InputError(
                f"{source.description} has a header but no cases.",
                "Export the decided cases, one row per case.",
            )
        counts = build_counts(rows, spec.attributes, spec.groupings, bins)
        counts = replace(counts, null_cells=_null_cells(spec, cube, rows, extra, score))
    if coded is not None and coded.label_codes is not None and weight is None:
        # nothing reads the cells again: let them go before the rank pass sorts the file
        gate.release()
        cube = []
        # the rank pass reads only the value maps: the per-cell arrays go too
        coded = replace(
            coded, attr_codes=[], kind=None, label=None, n=None, prob_bin=None, prob_sum=None
        )
        engine.release_memory()
    if score is not None:
        overall, per = _rank_sums(spec, source, gate, cube, score, coded, counts)
        counts = replace(counts, overall_ranks=overall, ranks=per)
    weighted = None
    if weight is not None:
        weighted = _weighted(spec, source, gate, keys, weight, weight_decimals, counts)
    source.check_unchanged()  # the counts are of one state of the file
    return Loaded(counts, source.description, source.path, tuple(source.columns), weighted)


def _weighted(
    spec: FairnessSpec,
    source: engine.Source,
    gate: _Gate,
    keys: Sequence[str],
    weight: str,
    decimals: int,
    counts: Counts,
) -> WeightedCounts:
    """The weights' sums per cell, mapped to the declared groups by the count pass's gate.

    The cases per cell of this pass must equal the count pass's, cell for cell (both
    scanned the same state of the file).
    """
    from respai.engine.weight_sums import weight_sums

    cells = weight_sums(source, keys, weight, decimals)
    n_attr = len(spec.attributes)
    rows: list[tuple[Row, int, int]] = []
    for c in cells:
        values: list[str | None] = []
        reasons: list[str | None] = []
        for attr, raw in zip(spec.attributes, c.keys[:n_attr], strict=True):
            value, reason = gate._attribute(attr, raw)
            values.append(value)
            reasons.append(reason)
        label = gate._binary(
            spec.label, c.keys[n_attr], spec.label_map, "label", allow_missing=False
        )
        pred = gate._binary(
            spec.prediction,
            c.keys[n_attr + 1],
            spec.prediction_map,
            "prediction",
            allow_missing=True,
        )
        assert label is not None
        row = Row(tuple(values), tuple(reasons), label, pred, None, c.n)
        rows.append((row, c.sum_w, c.sum_w2))

    def built(which: int) -> Counts:
        picked = [replace(r, n=(r.n, w, w2)[which]) for r, w, w2 in rows]
        return build_counts(picked, spec.attributes, spec.groupings, None)

    plain = built(0)
    same = plain.overall == counts.overall and all(
        plain.groupings[g].groups == counts.groupings[g].groups for g in spec.groupings
    )
    if not same:
        raise InputError(
            f"{source.description}: the weights pass counted other cases than the count "
            "pass (the file changed while it was read, or an engine fault).",
            "Run again on a file that is not being written to.",
        )
    return WeightedCounts(weight, decimals, plain.total, built(1), built(2))


def _rank_sums(
    spec: FairnessSpec,
    source: engine.Source,
    gate: _Gate,
    cube: Sequence[engine.CubeRow],
    score: str,
    coded: _Coded | None = None,
    counts: Counts | None = None,
) -> tuple[RankSums, dict[tuple[str, ...], Mapping[tuple[str, ...], RankSums]]]:
    """The AUC's rank sums overall and per declared group, from one sorted engine pass.

    With ``counts``, each grouping's rank sums use the key tuples of its cells (the same
    declared order) rather than a second copy of them.

    The raw values the count pass saw are mapped to group indices here, by the same gate,
    so the engine sorts and sums small integer codes only (``coded`` holds them already
    when the cells were read as arrays).
    """
    names = list(spec.attributes)
    declared = [list(spec.attributes[a]) for a in names]
    n_attr = len(names)
    if coded is not None and coded.label_codes is not None:
        attribute_codes, label_codes = coded.attr_maps, coded.label_codes
    else:
        position = [{v: k for k, v in enumerate(d)} for d in declared]  # not list.index
        attribute_codes = [{} for _ in names]
        label_codes = {}
        for c in cube:
            for i, (attr, raw) in enumerate(zip(names, c.keys[:n_attr], strict=True)):
                value = gate._attribute(attr, raw)[0]
                if value is not None:
                    attribute_codes[i][raw] = position[i][value]
            raw_label = c.keys[n_attr]
            label = gate._binary(
                spec.label, raw_label, spec.label_map, "label", allow_missing=False
            )
            assert label is not None
            label_codes[raw_label] = label
    index = {a: i for i, a in enumerate(names)}
    wanted = [(), *(tuple(index[a] for a in g) for g in spec.groupings)]
    found = engine.rank_sums(
        source,
        score,
        spec.label,
        label_codes,
        names,
        attribute_codes,
        [len(d) for d in declared],
        wanted,
    )

    def sums(parts: engine.RankParts | None) -> RankSums:
        if parts is None:
            return RankSums()
        if spec.favorable == 0:  # the labels are recoded: read the score reversed too
            parts = reversed_score(parts)
        return RankSums.from_parts(
            parts.positives, parts.negatives, parts.sum_x, parts.sum_x2, parts.sum_w, parts.sum_w2
        )

    overall = sums(found[()].get(()))
    per: dict[tuple[str, ...], Mapping[tuple[str, ...], RankSums]] = {}
    for grouping, idx in zip(spec.groupings, wanted[1:], strict=True):
        keys = None if counts is None else list(counts.groupings[grouping].groups)
        per[grouping] = _rank_columns([declared[i] for i in idx], found[idx], sums, keys)
    return overall, per


def _rank_columns(
    declared: Sequence[Sequence[str]],
    found: Mapping[tuple[int, ...], engine.RankParts],
    sums: Callable[[engine.RankParts | None], RankSums],
    keys: list[tuple[str, ...]] | None = None,
) -> RankSumColumns:
    """Every declared group's rank sums (zero without a scored case) as five columns.

    ``found`` maps the group-index tuples that have a scored case to their parts; the
    columns follow the declared order (:func:`itertools.product` of ``declared``), the
    order of ``keys`` when given (checked).
    """
    import numpy as np

    sizes = [len(d) for d in declared]
    columns: list[list[int]] = [[0] * math.prod(sizes) for _ in range(5)]
    for key, parts in found.items():
        at = 0
        for k, size in zip(key, sizes, strict=True):
            at = at * size + k
        r = sums(parts)
        values = (r.positives, r.negatives, r.twice_u, r.positive_squares, r.negative_squares)
        for column, value in zip(columns, values, strict=True):
            column[at] = value
    kept: list[Any] = []
    for column in columns:
        try:  # one array when every sum fits in 64 bits, else the exact integers
            kept.append(np.array(column, dtype=np.int64))
        except OverflowError:
            kept.append(column)
    declared_keys = product(*declared)
    if keys is None:
        keys = [tuple(k) for k in declared_keys]
    elif len(keys) != len(columns[0]) or any(
        a != b for a, b in zip(keys, declared_keys, strict=True)
    ):  # pragma: no cover - a grouping's cells are every declared group, in this order
        raise AssertionError("the cells' groups are not the declared groups in order")
    return RankSumColumns(keys, kept)


def reversed_score(parts: engine.RankParts) -> engine.RankParts:
    """The rank sums of the same cases with the score negated (``-s``, as ``1 - p`` orders).

    With ``favorable: 0`` the labels reach the rank pass recoded (the favourable label
    counts as 1), while the score is still the probability of the value 1 in the data; so
    the score is read reversed. Negating the score turns each case's placement ``x`` (a
    favourable case: twice the unfavourable cases below it, ties once) into ``2N - x``
    counted from the other side, where ``N`` is the other label's count; the sums follow
    exactly in integers. The AUC is unchanged by recoding both the label and the score
    direction: ``sum_x`` of the result over ``2PN`` equals the input's ``1 - sum_x/2PN``.

    Examples
    --------
    >>> from respai.engine import RankParts
    >>> p = reversed_score(RankParts(2, 1, 4, 8, 0, 0))  # both positives above the negative
    >>> p.positives, p.negatives, p.sum_x, p.sum_x2, p.sum_w, p.sum_w2
    (2, 1, 0, 0, 4, 16)
    """
    pos, neg = parts.positives, parts.negatives
    return engine.RankParts(
        positives=pos,
        negatives=neg,
        sum_x=2 * pos * neg - parts.sum_x,
        sum_x2=4 * neg * neg * pos - 4 * neg * parts.sum_x + parts.sum_x2,
        sum_w=2 * pos * neg - parts.sum_w,
        sum_w2=4 * pos * pos * neg - 4 * pos * parts.sum_w + parts.sum_w2,
    )


def _null_cells(
    spec: FairnessSpec,
    cube: Sequence[engine.CubeRow],
    rows: list[Row],
    extra: list[str],
    score: str | None,
) -> dict[str, int]:
    """Empty cells per column the evaluation reads (for the completeness test)."""
    out: dict[str, int] = {spec.label: 0, spec.prediction: 0}
    for i, attr in enumerate(spec.attributes):
        out[attr] = sum(r.n for r in rows if r.reasons[i] == "missing")
    out[spec.prediction] = sum(r.n for r in rows if r.prediction is None)
    if spec.probability:
        out[spec.probability] = sum(c.n - c.prob_n for c in cube)
    for j, col in enumerate(extra):
        out[col] = sum(c.n - c.non_null[j] for c in cube)
    return out


@dataclass(frozen=True, slots=True)
class _Coded:
    """The count cube as arrays, each cell read by the gate through its distinct values.

    Built by :func:`_coded`: each distinct raw value of a column is read once (in the order
    the cells first show it), and each cell takes its value's reading by an index array.
    """

    #: per attribute, each cell's declared position, or ``-1 - r`` for reason ``r``
    attr_codes: list[Any]
    #: per attribute, raw value to declared position (the declared values seen)
    attr_maps: list[dict[Any, int]]
    #: per attribute, the reasons its values are left out (``"missing"``, ...)
    reasons: list[list[str]]
    #: per cell: 0 tp, 1 fp, 2 tn, 3 fn, 4 no prediction labelled 1, 5 labelled 0
    kind: Any
    label: Any
    n: Any
    #: per cell: the probability bin (``-1`` without one) and the millionths' sum
    prob_bin: Any
    prob_sum: Any
    bins: int
    #: raw label to its reading, for the rank pass (``None`` when raw values that are
    #: equal but of different types read differently)
    label_codes: dict[Any, int] | None


def _read_codes(
    cube: engine.Cube, i: int, read: Callable[[Any], int]
) -> tuple[Any, list[Any], list[int]] | None:
    """Each cell's reading of the cube's ``i``-th key column: ``read`` once per distinct value.

    Returns the per-cell readings, the distinct raw values and their readings, or
    ``None`` when a value cannot be a key (unhashable).
    """
    import numpy as np

    got = cube.key_codes(i)
    if got is None:
        return None
    index, distinct = got
    found = [read(raw) for raw in distinct]
    table = np.asarray(found, dtype=np.int64)
    return table[index], distinct, found


def _coded(spec: FairnessSpec, gate: _Gate, cube: engine.Cube) -> _Coded | None:
    """The gate's reading of every cube cell, one gate call per distinct value.

    Returns ``None`` when a value would be refused, or cannot be read as a key, or there
    are no cells: the caller then reads cell by cell (:meth:`_Gate.row`), which raises
    the same error at the same cell as it always has.
    """
    import numpy as np

    if not cube:
        return None
    names = list(spec.attributes)
    n_attr = len(names)
    attr_codes: list[Any] = []
    attr_maps: list[dict[Any, int]] = []
    reasons: list[list[str]] = []
    try:
        for i, attr in enumerate(names):
            position = {v: k for k, v in enumerate(spec.attributes[attr])}
            why: dict[str, int] = {}

            def read(
                raw: Any,
                attr: str = attr,
                position: dict[str, int] = position,
                why: dict[str, int] = why,
            ) -> int:
                value, reason = gate._attribute(attr, raw)
                if value is not None:
                    return position[value]
                assert reason is not None
                return -1 - why.setdefault(reason, len(why))

            got = _read_codes(cube, i, read)
            if got is None:
                return None
            codes, distinct, found = got
            attr_codes.append(codes)
            attr_maps.append({raw: k for raw, k in zip(distinct, found, strict=True) if k >= 0})
            reasons.append(list(why))
        readings = []
        for pos, column, mapping, role, allow in (
            (n_attr, spec.label, spec.label_map, "label", False),
            (n_attr + 1, spec.prediction, spec.prediction_map, "prediction", True),
        ):

            def binary(
                raw: Any,
                column: str = column,
                mapping: Mapping[str, int] = mapping,
                role: str = role,
                allow: bool = allow,
            ) -> int:
                got = gate._binary(column, raw, mapping, role, allow_missing=allow)
                return -1 if got is None else got

            read_col = _read_codes(cube, pos, binary)
            if read_col is None:
                return None
            readings.append(read_col)
    except InputError:
        return None  # the cell-by-cell reading names the same value at the same cell
    try:
        n, _ = cube.numbers("n")
        prob_bin, has_bin = cube.numbers("prob_bin")
        prob_sum, _ = cube.numbers("prob_sum")
        prob_n, _ = cube.numbers("prob_n")
        if spec.probability is not None:
            for name in ("prob_min", "prob_max"):
                bound, present = cube.numbers(name)
                if not np.all(~present | ((bound >= 0.0) & (bound <= 1.0))):  # infinities
                    return None
    except OverflowError:  # a sum or bin beyond int64: read cell by cell
        return None
    (label, label_distinct, label_found), (pred, _, _) = readings
    label_codes: dict[Any, int] | None = {}
    for raw, value in zip(label_distinct, label_found, strict=True):
        assert label_codes is not None
        if label_codes.get(raw, value) != value:
            label_codes = None  # equal raw values read apart: the rank pass reads per cell
            break
        label_codes[raw] = value
    kind = np.where(
        pred < 0,
        np.where(label == 1, 4, 5),
        np.where(label == 1, np.where(pred == 1, 0, 3), np.where(pred == 1, 1, 2)),
    )
    bins = spec.calibration_bins if spec.probability else 0
    prob_bin = np.where(has_bin, prob_bin, -1)
    if spec.probability is not None and spec.favorable == 0:
        # the probability of the favourable outcome, 1 - p, as _Gate.row reads it
        has = prob_bin >= 0
        prob_bin = np.where(has, bins - 1 - prob_bin, prob_bin)
        prob_sum = np.where(has, prob_n * MICRO - prob_sum, prob_sum)
    return _Coded(
        attr_codes, attr_maps, reasons, kind, label, n, prob_bin, prob_sum, bins, label_codes
    )


def _coded_counts(spec: FairnessSpec, coded: _Coded) -> Counts:
    """:func:`respai.counts.build_counts` of the coded cells: the same counts, by arrays."""
    import numpy as np

    from respai.counts import CalibrationColumns, Cell, CellColumns, Grouping

    names = list(spec.attributes)
    index = {a: i for i, a in enumerate(names)}
    bins = coded.bins
    kind, n = coded.kind, coded.n

    def cells(code: Any, sel: Any, size: int) -> Any:
        """Per group: the six counts of :class:`~respai.counts.Cell`, as one array."""
        sums = np.zeros(size * 6, dtype=np.int64)
        np.add.at(sums, code[sel] * 6 + kind[sel], n[sel])
        return sums.reshape(size, 6)

    def calibration(code: Any, sel: Any, size: int) -> tuple[Any, Any]:
        """Per group: bins of (cases, labelled 1, probability sum), and cases without one."""
        has = sel & (coded.prob_bin >= 0)
        hasnt = sel & (coded.prob_bin < 0)
        without = np.zeros(size, dtype=np.int64)
        np.add.at(without, code[hasnt], n[hasnt])
        at = code[has] * bins + coded.prob_bin[has]
        picked = n[has]
        sums = np.zeros((size * bins, 3), dtype=np.int64)
        np.add.at(sums[:, 0], at, picked)
        np.add.at(sums[:, 1], at, np.where(coded.label[has] == 1, picked, 0))
        np.add.at(sums[:, 2], at, coded.prob_sum[has])
        return sums.reshape(size, bins, 3), without

    every = np.ones(len(n), dtype=bool)
    zero = np.zeros(len(n), dtype=np.int64)
    overall = Cell(*cells(zero, every, 1)[0].tolist())
    overall_cal = CalibrationColumns([()], *calibration(zero, every, 1))[()] if bins else None
    groupings: dict[tuple[str, ...], Grouping] = {}
    for grouping in spec.groupings:
        inside = every.copy()
        code = zero.copy()
        left: dict[str, int] = {}
        size = 1
        for attr in grouping:
            i = index[attr]
            codes = coded.attr_codes[i]
            out = inside & (codes < 0)
            if out.any():  # left out by the grouping's first attribute without a group
                which = -1 - codes[out]
                seen = np.bincount(which, minlength=len(coded.reasons[i]))
                cases = np.zeros(len(coded.reasons[i]), dtype=np.int64)
                np.add.at(cases, which, n[out])
                for reason, k, total in zip(
                    coded.reasons[i], seen.tolist(), cases.tolist(), strict=True
                ):
                    if k:
                        left[f"{attr}: {reason}"] = total
            inside &= codes >= 0
            width = len(spec.attributes[attr])
            code = code * width + np.maximum(codes, 0)
            size *= width
        keys = [tuple(k) for k in product(*(spec.attributes[a] for a in grouping))]
        groups = CellColumns(keys, cells(code, inside, size))
        cal = CalibrationColumns(keys, *calibration(code, inside, size)) if bins else None
        groupings[grouping] = Grouping(grouping, groups, cal, dict(sorted(left.items())))
    return Counts(
        total=overall.n,
        overall=overall,
        overall_calibration=overall_cal,
        groupings=groupings,
        calibration_bins=bins,
        declared={k: tuple(v) for k, v in spec.attributes.items()},
    )


def _coded_null_cells(
    spec: FairnessSpec, cube: engine.Cube, coded: _Coded, extra: list[str]
) -> dict[str, int]:
    """:func:`_null_cells` of the coded cells."""
    out: dict[str, int] = {spec.label: 0, spec.prediction: 0}
    for i, attr in enumerate(spec.attributes):
        reasons = coded.reasons[i]
        if "missing" in reasons:
            mask = coded.attr_codes[i] == -1 - reasons.index("missing")
            out[attr] = int(coded.n[mask].sum())
        else:
            out[attr] = 0
    out[spec.prediction] = int(coded.n[coded.kind >= 4].sum())
    if spec.probability:
        out[spec.probability] = int(coded.n.sum() - cube.numbers("prob_n")[0].sum())
    for j, col in enumerate(extra):
        out[col] = int(coded.n.sum() - cube.numbers(f"non_null:{j}")[0].sum())
    return out


def _check_score_column(spec: FairnessSpec, source: engine.Source, score: str) -> None:
    if score not in source.columns:
        raise InputError(
            f"{source.description} has no column '{score}' (the evaluation's score). Its "
            f"columns are: {shown_list(source.columns)}.",
            did_you_mean(score, source.columns).strip() or "Fix evaluation.score.",
        )
    if source.kinds[score] != "numeric" and not engine.all_null(source, score):
        raise InputError(
            f"{source.description}: score column '{score}' is not numeric "
            f"({_first_bad_number(source, score)}).",
            "Scores must be numbers; leave a cell empty when there is none.",
        )


def _check_columns(spec: FairnessSpec, source: engine.Source) -> None:
    present = source.columns
    for col in spec.columns():
        if col in present:
            continue
        hint = did_you_mean(col, present).strip()
        if len(present) == 1 and any(sep in present[0] for sep in ";\t|"):
            sep = next(s for s in ";\t|" if s in present[0])
            shown = "\\t" if sep == "\t" else sep
            hint = f"The header looks '{shown}'-delimited; set delimiter: \"{shown}\" in the spec."
        raise InputError(
            f"{source.description} has no column '{col}' (declared in the spec). Its "
            f"columns are: {shown_list(present)}.",
            hint or "Fix the column name in the spec or in the file.",
        )
    if (
        spec.probability
        and source.kinds[spec.probability] != "numeric"
        and not engine.all_null(source, spec.probability)
    ):
        raise InputError(
            f"{source.description}: probability column '{spec.probability}' is not numeric "
            f"({_first_bad_number(source, spec.probability)}).",
            "Probabilities must be numbers between 0 and 1; leave a cell empty when there is "
            "none.",
        )


def _first_bad_number(source: engine.Source, column: str) -> str:
    found = engine.first_non_number(source, column)
    if found is not None:
        value, pos = found
        at = f" at {source.row_word} {pos}" if pos is not None else ""
        return f"it holds {show_value(value)}{at}"
    return "it holds text" if source.kinds[column] == "text" else "its type is not a number"


def shown_list(items: Sequence[str], limit: int = 12) -> str:
    """Values for a message: the first ``limit`` quoted, then how many more there are."""
    shown = ", ".join(show_value(i) for i in items[:limit])
    return shown + (f" and {len(items) - limit} more" if len(items) > limit else "")


def show_value(value: Any, limit: int = 60) -> str:
    """A value as text that is safe on a terminal: control characters escaped."""
    text = value if isinstance(value, str) else repr(value)
    safe = text.encode("unicode_escape").decode("ascii") if not text.isprintable() else text
    if len(safe) > limit:
        safe = safe[: limit - 3] + "..."
    return f"'{safe}'"


def _where(source: engine.Source, column: str, value: Any) -> str:
    pos = engine.locate(source, column, value)
    return f" (first at {source.row_word} {pos})" if pos is not None else ""


def normal_value(value: Any) -> Any:
    """None for every spelling of missing; ints for integral floats."""
    if value is None:
        return None
    if isinstance(value, float):
        if math.isnan(value):
            return None
        if value.is_integer():
            return int(value)
    if isinstance(value, str) and value.strip() == "":
        return None
    return value


def value_text(value: Any) -> str:
    """A raw value as the text declared values are compared with."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def has_control(text: str) -> bool:
    """Whether ``text`` holds control characters (such as terminal escape codes)."""
    return any(ord(c) < 32 or 127 <= ord(c) < 160 for c in text)


def match_attribute(
    source: engine.Source, column: str, declared: DeclaredValues, raw: Any
) -> tuple[str | None, str | None]:
    """The declared group a raw cell of an attribute column is, or why it is none.

    The one matching rule of every block that groups cases (docs/spec.md, "Declared
    values are text, and numbers match any spelling"): a missing cell (``None``, NaN,
    blank text) is ``(None, "missing")``; a cell matching a declared value (equal text,
    trimmed text, the same number) is ``(value, None)``; any other is ``(None,
    "undeclared value '...'")`` with a did-you-mean for a case twin.

    Raises
    ------
    InputError
        For a value holding control characters (such as terminal escape codes).
    """
    value = normal_value(raw)
    if value is None:
        return None, "missing"
    text = value_text(value)
    if has_control(text):
        raise InputError(
            f"{source.description}: column '{column}' holds the value "
            f"{show_value(text)}"
            f"{_where(source, column, raw)}, which contains control characters "
            "(such as terminal escape codes).",
            "Clean the column: group names must be printable text.",
        )
    found = declared.match(text)
    if found is not None:
        return found, None
    twin = declared.case_twin(text)
    hint = f" (did you mean {show_value(twin)}?)" if twin is not None else ""
    return None, f"undeclared value {show_value(text)}{hint}"


class _Gate:
    """Validates the distinct values of each cube cell, caching per column and value."""

    def __init__(
        self,
        spec: FairnessSpec,
        source: engine.Source,
        cube: Sequence[engine.CubeRow] = (),
    ) -> None:
        self.spec = spec
        self.source = source
        #: every cell of the count pass, so an error can name the first bad line of a file
        self.cube = cube
        # cells match declared values as docs/spec.md says (text, trimmed, same number)
        self.declared = {a: DeclaredValues(v) for a, v in spec.attributes.items()}
        self._binaries = {
            "label": BinaryValues(spec.label_map),
            "prediction": BinaryValues(spec.prediction_map),
        }
        self._attr_cache: dict[tuple[str, Any], tuple[str | None, str | None]] = {}
        #: a label or prediction already read, by role and raw value (and its type, so
        #: ``True`` and ``1`` stay apart): the count pass repeats each value in many cells
        self._binary_cache: dict[tuple[str, type, Any], int | None] = {}

    def release(self) -> None:
        """Let the cells, the values read and the declared values' matchers go.

        For a run whose cells were read as arrays (:func:`_coded`): nothing reads a cell
        or a value again, and with 100,000 declared values these are about 30 MB that
        would otherwise stay through the rank pass and the record.
        """
        self.cube = ()
        self.declared = {}
        self._attr_cache = {}
        self._binary_cache = {}

    def row(self, cell: engine.CubeRow) -> Row:
        spec = self.spec
        n_attr = len(spec.attributes)
        values: list[str | None] = []
        reasons: list[str | None] = []
        for attr, raw in zip(spec.attributes, cell.keys[:n_attr], strict=True):
            value, reason = self._attribute(attr, raw)
            values.append(value)
            reasons.append(reason)
        label_raw, pred_raw = cell.keys[n_attr], cell.keys[n_attr + 1]
        label = self._binary(spec.label, label_raw, spec.label_map, "label", allow_missing=False)
        pred = self._binary(
            spec.prediction, pred_raw, spec.prediction_map, "prediction", allow_missing=True
        )
        assert label is not None
        prob_bin, prob_sum = cell.prob_bin, cell.prob_sum
        if spec.probability is not None:
            self._probability(cell)
            if spec.favorable == 0 and prob_bin is not None:
                # the probability of the favourable outcome, 1 - p: the bins mirrored and
                # the millionths summed from the other end (each bin's calibration gap,
                # and so the ECE, is the same number as for p and the value 1)
                prob_bin = spec.calibration_bins - 1 - prob_bin
                prob_sum = cell.prob_n * MICRO - prob_sum
        return Row(tuple(values), tuple(reasons), label, pred, prob_bin, cell.n, prob_sum)

    def _attribute(self, attr: str, raw: Any) -> tuple[str | None, str | None]:
        key = (attr, raw)
        if key in self._attr_cache:
            return self._attr_cache[key]
        out = match_attribute(self.source, attr, self.declared[attr], raw)
        self._attr_cache[key] = out
        return out

    def _binary(
        self,
        column: str,
        raw: Any,
        mapping: Mapping[str, int],
        role: str,
        *,
        allow_missing: bool,
    ) -> int | None:
        key = (role, type(raw), raw)
        try:
            return self._binary_cache[key]
        except (KeyError, TypeError):  # not read yet, or unhashable (a list): read it
            pass
        value = normal_value(raw)
        if value is None:
            if allow_missing:
                return self._remember(key, None)
            raise InputError(
                f"{self.source.description}: the {role} column '{column}' is empty"
                f"{_where(self.source, column, raw)}; every case needs a reference label.",
                "Fill in the label, or leave the case out of the export.",
            )
        text = value_text(value).strip()
        read = self._binaries[role].read(text)
        if read is not None:
            # recoded so that 1 is the favourable outcome (docs/spec.md, favorable)
            return self._remember(key, read if self.spec.favorable == 1 else 1 - read)
        raw, text = self._first_bad(column, role, raw, text)
        if mapping:
            raise InputError(
                f"{self.source.description}: the {role} column '{column}' holds {show_value(text)}"
                f"{_where(self.source, column, raw)}, which {role}_map does not map."
                + did_you_mean(text, mapping),
                f"Map it under {role}_map in the spec (to 0 or 1).",
            )
        raise InputError(
            f"{self.source.description}: the {role} column '{column}' holds {show_value(text)}"
            f"{_where(self.source, column, raw)}; {role}s must be 0 or 1.",
            f"Map other values with {role}_map in the spec, e.g. {role}_map: "
            "{'yes': 1, 'no': 0} (quoted, so YAML keeps them as text).",
        )

    def _remember(self, key: tuple[str, type, Any], read: int | None) -> int | None:
        with contextlib.suppress(TypeError):  # an unhashable value is not kept
            self._binary_cache[key] = read
        return read

    def _first_bad(self, column: str, role: str, raw: Any, text: str) -> tuple[Any, str]:
        """Of the values of ``column`` that are not 0/1 (nor mapped), the first in the file.

        Error path only: the cube's distinct bad values (at most 50) are located and the
        one on the earliest line is named, so the message points at the first line to fix.
        """
        index = [*self.spec.attributes, self.spec.label, self.spec.prediction].index(column)
        bad: dict[Any, str] = {}
        for cell in self.cube:
            value = cell.keys[index]
            norm = normal_value(value)
            if norm is None or value in bad:
                continue
            shown = value_text(norm).strip()
            if self._binaries[role].read(shown) is None:
                bad[value] = shown
                if len(bad) >= 50:
                    break
        best: tuple[int, Any, str] | None = None
        for value, shown in bad.items():
            line = engine.locate(self.source, column, value)
            if line is not None and (best is None or line < best[0]):
                best = (line, value, shown)
        return (raw, text) if best is None else (best[1], best[2])

    def _probability(self, cell: engine.CubeRow) -> None:
        column = self.spec.probability
        assert column is not None
        for bound in (cell.prob_min, cell.prob_max):
            if bound is None:
                continue
            if not math.isfinite(bound) or not 0.0 <= bound <= 1.0:
                found = engine.first_outside(self.source, column, 0.0, 1.0)
                if found is None:  # the engine cannot say: the bound, where it is
                    where = f"{bound}{_where(self.source, column, bound)}"
                else:  # the first line to fix, not the line of this cell's extreme
                    first, pos = found
                    where = f"{first} (first at {self.source.row_word} {pos})"
                raise InputError(
                    f"{self.source.description}: probability column '{column}' holds "
                    f"{where}; probabilities must lie in [0, 1].",
                    "Pass probabilities, not raw scores or percentages.",
                )


def case_batches(
    spec: FairnessSpec, columns: Sequence[str], batch_rows: int = 65_536
) -> Callable[[], Iterator[dict[str, Any]]]:
    """A re-openable stream of the cases' ``columns`` as numpy batches, in file order.

    Each call opens the file afresh (out of core), so the stream can be read twice.
    Attribute columns are read as text, as in the count pass.
    """
    if spec.cases is None:
        raise InputError("model access needs a cases file, and the spec names none.")
    cases = spec.cases
    text = [c for c in columns if c in spec.attributes]

    def open_stream() -> Iterator[dict[str, Any]]:
        source = engine.open_file(cases, spec.format, spec.delimiter, text)
        missing = [c for c in columns if c not in source.columns]
        if missing:
            raise InputError(
                f"{source.description} has no column '{missing[0]}' (an evaluation feature)."
                + did_you_mean(missing[0], source.columns),
                "Fix evaluation.features.",
            )
        return engine.iter_batches(source, columns, batch_rows)

    return open_stream
