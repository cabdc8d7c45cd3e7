"""The LL144 data gate: category spellings and the reconciliation, on the run's files.

The files are opened (and, with ``data.demographics``, joined to the self-identification
file on ``data.join_on`` with a FULL OUTER JOIN so that unmatched rows on each side are
counted) by :func:`respai.load.open_inputs`, the opening every block of a run shares.
:func:`plan_audit` checks the LL144 columns against them before anything is scanned;
the count pass groups by the raw sex, race/ethnicity, decision or score and stage values
(in the same scan as the group rules when a run evaluates both), and
:meth:`AuditPlan.finish` validates each distinct value the pass saw. Spellings become
canonical EEO-1 labels or "unknown"; any other value is an
:class:`~respai.errors.InputError` naming the file, column, line and value.
:func:`load_audit_data` does all three for ``respai ll144``.

Nothing here imports a dataframe engine: :mod:`respai.engine` does the engine work.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from respai import engine
from respai.eeo1 import AXES, AXIS_TITLES, Normalizer, known_spellings, suggest_category
from respai.errors import InputError, SpecError, did_you_mean
from respai.ll144.spec import LL144Spec, declared_ll144
from respai.load import (
    Inputs,
    check_id,
    has_control,
    normal_value,
    open_inputs,
    show_value,
    shown_list,
    value_text,
)
from respai.spec import Spec
from respai.spelling import BinaryValues

__all__ = [
    "AuditData",
    "AuditPlan",
    "Cell",
    "InputFile",
    "Reconciliation",
    "load_audit_data",
    "plan_audit",
]


@dataclass(frozen=True, slots=True)
class Cell:
    """People with one combination of canonical values, and how many there are.

    ``sex`` and ``race`` are canonical labels or ``None`` (unknown). ``selected`` is the
    tool's 0/1 decision (selection tools) and ``score`` its score (scoring tools); the
    other one is ``None``. ``stages`` holds the 0/1 outcome of each funnel stage, ``None``
    where the stage was not reached.
    """

    sex: str | None
    race: str | None
    selected: int | None
    score: float | None
    stages: tuple[int | None, ...]
    n: int


@dataclass(frozen=True, slots=True)
class InputFile:
    """One input file: its role, path, fingerprint (SHA-256) and number of rows."""

    role: str
    path: str
    fingerprint: Mapping[str, Any]
    rows: int


@dataclass(frozen=True, slots=True)
class Reconciliation:
    """Rows in, rows joined, rows with each category known, and the input files.

    ``demographic_rows``, ``joined``, ``decisions_unmatched`` and
    ``demographics_unmatched`` are ``None`` when there is one file. ``applicants`` is
    the number of rows with a decision (the audited sample); the ``*_known`` counts are
    among them.
    """

    files: tuple[InputFile, ...]
    decision_rows: int
    demographic_rows: int | None
    joined: int | None
    decisions_unmatched: int | None
    demographics_unmatched: int | None
    applicants: int
    sex_known: int
    race_known: int
    both_known: int
    join_on: str | None

    @property
    def lost_rows(self) -> bool:
        """Whether the join left rows of either file without a partner."""
        return bool(self.decisions_unmatched) or bool(self.demographics_unmatched)

    def warning(self) -> str | None:
        """The loud line every output carries when the join lost rows, else ``None``."""
        if not self.lost_rows:
            return None
        parts = []
        if self.decisions_unmatched:
            parts.append(
                f"{self.decisions_unmatched} of {self.decision_rows} decision rows have no "
                "self-identification row (they are counted as unknown on both axes)"
            )
        if self.demographics_unmatched:
            parts.append(
                f"{self.demographics_unmatched} of {self.demographic_rows} "
                "self-identification rows have no decision (they are in no table)"
            )
        return (
            f"WARNING: the join on '{self.join_on}' lost rows: " + "; ".join(parts) + ". "
            "A join failure that is not random (for example one source system that drops "
            "self-ID) can create a disparity or hide one: find out why before publishing."
        )


@dataclass(frozen=True, slots=True)
class AuditData:
    """What the gate hands to the pure computation: validated cells and the reconciliation."""

    cells: tuple[Cell, ...]
    reconciliation: Reconciliation
    description: str


@dataclass(frozen=True, slots=True)
class AuditPlan:
    """An LL144 audit checked and ready to count: the source, the keys, the score column.

    :meth:`finish` turns the rows of the count pass (``(key values, n)`` per distinct
    combination of ``keys`` and ``value``) into the validated :class:`AuditData`, so a run
    can count the LL144 tallies in the same scan as the group rules
    (:func:`respai.engine.count_cube_and_groups`).
    """

    gate: _Gate
    source: engine.Source
    keys: tuple[str, ...]
    value: str | None
    joined: bool

    def finish(self, rows: list[tuple[tuple[Any, ...], int]]) -> AuditData:
        """Validate the counted values and build the cells and the reconciliation."""
        return self.gate.build(self.source, rows, self.joined)


def plan_audit(spec: Spec, inputs: Inputs) -> AuditPlan:
    """Check an LL144 block against the run's opened files, before any scan.

    Raises
    ------
    SpecError, InputError
        As :func:`load_audit_data`, for the checks made before counting.
    """
    ll = declared_ll144(spec)
    if ll is None:
        origin = str(spec.path) if spec.path is not None else "spec"
        raise SpecError(
            f"{origin}: ll144: is required by respai ll144 but missing.",
            "Add an ll144: block with kind, sex, race and selected: or score:.",
        )
    gate = _Gate(spec, ll, inputs.cases)
    gate.right, gate.joined = inputs.demographics, inputs.joined
    return gate.plan()


def load_audit_data(spec: Spec, data: Any = None, *, inputs: Inputs | None = None) -> AuditData:
    """Open, join, count and validate the data of an LL144 spec.

    Parameters
    ----------
    spec
        A parsed spec with an ``ll144:`` block.
    data
        A DataFrame (pandas, polars, pyarrow, ...) to use instead of ``data.cases``
        (single-file audits only).
    inputs
        The run's input files, already opened (:func:`respai.load.open_inputs`), when the
        audit is one block of a larger run: the LL144 tables then count the very files
        the other blocks counted and the record fingerprints.

    Raises
    ------
    SpecError
        When the spec has no ``ll144:`` block or names no cases file.
    InputError
        When the data does not fit the declaration: a missing column, an empty or
        duplicated id, a value that is not a category, a decision that is not 0/1.
    """
    ll = declared_ll144(spec)
    origin = str(spec.path) if spec.path is not None else "spec"
    if ll is None:
        raise SpecError(
            f"{origin}: ll144: is required by respai ll144 but missing.",
            "Add an ll144: block with kind, sex, race and selected: or score:.",
        )
    if inputs is None:
        cases = spec.data.cases or (spec.fairness_block.cases if spec.fairness_block else None)
        if data is None and cases is None:
            raise SpecError(
                f"{origin}: data.cases: is required but missing.",
                "Name the file of the tool's decisions under data.cases (relative to the spec).",
            )
        inputs = open_inputs(spec, data=data)  # the same opening as every other block
    plan = plan_audit(spec, inputs)
    return plan.finish(engine.group_counts(plan.source, plan.keys, value=plan.value))


class _Gate:
    """Checks the columns, runs the count pass and validates each distinct value."""

    def __init__(self, spec: Spec, ll: LL144Spec, left: engine.Source) -> None:
        self.spec = spec
        self.ll = ll
        self.left = left
        self.right: engine.Source | None = None
        #: The join, when the run opened it already (see :func:`respai.load.open_inputs`).
        self.joined: engine.JoinedSource | None = None
        self.normalizers = {
            axis: Normalizer(axis, ll.categories.get(axis, {}), ll.unknown_values) for axis in AXES
        }
        self.origin_of: dict[str, engine.Source] = {}
        self._cache: dict[tuple[str, Any], str | None] = {}

    # -- columns ---------------------------------------------------------------------

    def _missing_column(self, column: str, role: str, sources: Sequence[engine.Source]) -> None:
        present = list(dict.fromkeys(c for s in sources for c in s.columns))
        if len(sources) == 1:
            where = f"{sources[0].description} has no column '{column}'"
            listing = f"Its columns are: {shown_list(present)}."
        else:
            where = (
                f"neither {sources[0].description} nor {sources[1].description} has a "
                f"column '{column}'"
            )
            listing = f"Their columns are: {shown_list(present)}."
        hint = did_you_mean(column, present).strip()
        if not hint:
            near = [c for c in present if column.casefold() in c.casefold()]
            hint = f"Did you mean '{near[0]}'?" if len(near) == 1 else ""
        raise InputError(
            f"{where} (the {role} column of the ll144: block). {listing}",
            hint or "Fix the column name in the spec or in the file.",
        )

    def _place_columns(self) -> None:
        ll = self.ll
        sides = [self.left] if self.right is None else [self.left, self.right]
        roles: list[tuple[str, str, bool]] = [(ll.sex, "sex", True), (ll.race, "race", True)]
        if ll.selected:
            roles.append((ll.selected, "selected", False))
        if ll.score:
            roles.append((ll.score, "score", False))
        roles += [(s, "stage", False) for s in ll.stages]
        for column, role, demographic in roles:
            if self.right is None:
                if column not in self.left.kinds:
                    self._missing_column(column, role, sides)
                self.origin_of[column] = self.left
                continue
            # self-ID columns are read from the demographics file when it has them, the
            # tool's outputs from the decisions file
            order = [self.right, self.left] if demographic else [self.left, self.right]
            found = next((s for s in order if column in s.kinds), None)
            if found is None:
                self._missing_column(column, role, sides)
            assert found is not None
            self.origin_of[column] = found

    def _check_score(self) -> None:
        score = self.ll.score
        if score is None:
            return
        side = self.origin_of[score]
        if side.kinds[score] == "numeric" or engine.all_null(side, score):
            return
        found = engine.first_non_number(side, score)
        at = ""
        if found is not None:
            value, pos = found
            at = f": it holds {show_value(value)}" + (f" on {side.row_word} {pos}" if pos else "")
        raise InputError(
            f"{side.description}: the score column '{score}' is not numeric{at}.",
            "Scores must be numbers; export the tool's score, not a label.",
        )

    # -- the pass ----------------------------------------------------------------------

    def plan(self) -> AuditPlan:
        """Check the columns and the ids (no scan yet): what the count pass must group."""
        ll, ds = self.ll, self.spec.data
        joined = False
        if ds.demographics is not None:
            assert ds.join_on is not None
            assert self.right is not None and self.joined is not None  # open_inputs joins
            self._place_columns()  # the join key was checked in both files when opened
            source: engine.Source = self.joined
            joined = True
        else:
            self._place_columns()
            if ds.id is not None:
                check_id(self.left, ds.id, "(data.id)")
            source = self.left
        self._check_score()
        columns = [c for c in ll.columns() if c != ll.score]  # once each, score apart
        keys = [*(engine.JOINED_FLAGS if joined else ()), *columns]
        return AuditPlan(self, source, tuple(keys), ll.score, joined)

    def build(
        self, source: engine.Source, rows: list[tuple[tuple[Any, ...], int]], joined: bool
    ) -> AuditData:
        """The validated cells and the reconciliation from the count pass's rows."""
        if not rows:
            raise InputError(
                f"{source.description} has a header but no rows.",
                "Export the tool's decisions, one row per applicant.",
            )
        return self._build(source, rows, joined)

    def _build(
        self, source: engine.Source, rows: list[tuple[tuple[Any, ...], int]], joined: bool
    ) -> AuditData:
        ll = self.ll
        cells: list[Cell] = []
        decision_rows = demographic_rows = matched = left_only = right_only = 0
        offset = 2 if joined else 0
        columns = [c for c in ll.columns() if c != ll.score]
        at = {c: offset + i for i, c in enumerate(columns)}
        for key, n in rows:
            in_left = bool(key[0]) if joined else True
            in_right = bool(key[1]) if joined else False
            sex_raw, race_raw = key[at[ll.sex]], key[at[ll.race]]
            sex = self._category("sex", ll.sex, sex_raw)
            race = self._category("race", ll.race, race_raw)
            selected_raw = key[at[ll.selected]] if ll.selected else None
            stage_raw = [key[at[c]] for c in ll.stages]
            score_raw = key[-1] if ll.score else None
            if joined:
                decision_rows += n if in_left else 0
                demographic_rows += n if in_right else 0
                matched += n if in_left and in_right else 0
                left_only += n if in_left and not in_right else 0
                right_only += n if in_right and not in_left else 0
            else:
                decision_rows += n
            if not in_left:
                continue  # self-ID without a decision: counted, in no table
            stages = self._stages(stage_raw)
            selected = None
            if ll.selected:
                selected = self._binary(ll.selected, selected_raw, ll.selected_map, "decision")
                if (
                    selected is None
                    and ll.selected in ll.stages
                    and stages[ll.stages.index(ll.selected)] is None
                ):
                    selected = 0  # the decision is also a stage: not reached, not selected
                if selected is None:
                    side = self.origin_of[ll.selected]
                    raise InputError(
                        f"{side.description}: the decision column '{ll.selected}' is empty"
                        f"{self._where(ll.selected, selected_raw)}; every applicant the tool "
                        "assessed needs its decision (0 or 1).",
                        "Fill in the decision, or drop applicants the tool did not assess "
                        "from the export.",
                    )
            score = self._score(score_raw) if ll.score else None
            cells.append(Cell(sex, race, selected, score, stages, n))
        applicants = sum(c.n for c in cells)
        files = [self._file("decisions", self.left, decision_rows)]
        if self.right is not None:
            files.append(self._file("self-identification", self.right, demographic_rows))
        rec = Reconciliation(
            files=tuple(f for f in files if f is not None),
            decision_rows=decision_rows,
            demographic_rows=demographic_rows if joined else None,
            joined=matched if joined else None,
            decisions_unmatched=left_only if joined else None,
            demographics_unmatched=right_only if joined else None,
            applicants=applicants,
            sex_known=sum(c.n for c in cells if c.sex is not None),
            race_known=sum(c.n for c in cells if c.race is not None),
            both_known=sum(c.n for c in cells if c.sex is not None and c.race is not None),
            join_on=self.spec.data.join_on if joined else None,
        )
        if applicants == 0:
            raise InputError(
                f"{source.description}: no row has a decision: every self-identification "
                "row is unmatched, so there is no applicant to audit.",
                f"Check that data.join_on ('{self.spec.data.join_on}') holds the same ids "
                "in both files.",
            )
        return AuditData(_merge(cells), rec, source.description)

    @staticmethod
    def _file(role: str, side: engine.Source, rows: int) -> InputFile | None:
        if side.path is None:
            return None
        fingerprint = side.fingerprint()  # from the file counted, checked unchanged
        assert fingerprint is not None
        return InputFile(role, str(side.path), fingerprint, rows)

    # -- values --------------------------------------------------------------------

    def _where(self, column: str, raw: Any) -> str:
        side = self.origin_of[column]
        pos = engine.locate(side, column, raw)
        return f" (first on {side.row_word} {pos})" if pos is not None else ""

    def _category(self, axis: str, column: str, raw: Any) -> str | None:
        key = (axis, raw)
        if key in self._cache:
            return self._cache[key]
        value = normal_value(raw)
        side = self.origin_of[column]
        if value is None:
            label = None
        else:
            text = value_text(value)
            if has_control(text):
                raise InputError(
                    f"{side.description}: column '{column}' holds the value {show_value(text)}"
                    f"{self._where(column, raw)}, which contains control characters "
                    "(such as terminal escape codes).",
                    "Clean the column: categories must be printable text.",
                )
            label, recognised = self.normalizers[axis].resolve(text)
            if not recognised:
                # the example maps the value only to the category it surely spells, never
                # to an arbitrary one (suggest_category); else it names no category
                target = suggest_category(axis, text)
                hint = f" It spells '{target}'." if target else _typo_hint(axis, text)
                example = (
                    f"e.g. {{{show_value(text)}: {show_value(target)}}}"
                    if target is not None
                    else "to the one category it means, if it means one"
                )
                raise InputError(
                    f"{side.description}: column '{column}' holds {show_value(text)}"
                    f"{self._where(column, raw)}, which is not an EEO-1 "
                    f"{AXIS_TITLES[axis]} category ({', '.join(AXES[axis])}).{hint}",
                    f"Map it under ll144.categories.{axis} ({example}), or list it in "
                    "ll144.unknown_values if it means unknown (respai init --ll144 drafts "
                    "these mappings).",
                )
        self._cache[key] = label
        return label

    def _binary(self, column: str, raw: Any, mapping: Mapping[str, int], role: str) -> int | None:
        value = normal_value(raw)
        side = self.origin_of[column]
        if value is None:
            return None
        text = value_text(value).strip()
        read = BinaryValues(mapping).read(text)  # as the fairness gate reads 0/1 (spelling.py)
        if read is not None:
            return read
        if mapping:
            raise InputError(
                f"{side.description}: the {role} column '{column}' holds {show_value(text)}"
                f"{self._where(column, raw)}, which ll144.selected_map does not map."
                + did_you_mean(text, mapping),
                "Map it under ll144.selected_map (to 0 or 1).",
            )
        extra = (
            " Map other values with ll144.selected_map, e.g. {'advance': 1, 'reject': 0}."
            if role == "decision"
            else ""
        )
        raise InputError(
            f"{side.description}: the {role} column '{column}' holds {show_value(text)}"
            f"{self._where(column, raw)}; it must be 0 or 1 (or true/false).",
            "Fix the value." + extra,
        )

    def _score(self, raw: Any) -> float:
        column = self.ll.score
        assert column is not None
        side = self.origin_of[column]
        if raw is None:
            raise InputError(
                f"{side.description}: the score column '{column}' is empty"
                f"{self._where(column, None)}; every applicant the tool assessed needs "
                "a score.",
                "Fill in the score, or drop applicants the tool did not score from the export.",
            )
        value = float(raw)
        if not math.isfinite(value):
            raise InputError(
                f"{side.description}: the score column '{column}' holds {value}"
                f"{self._where(column, raw)}; scores must be finite numbers.",
                "Fix the value.",
            )
        return value

    def _stages(self, stage_raw: list[Any]) -> tuple[int | None, ...]:
        ll = self.ll
        values: list[int | None] = []
        reached = True
        for i, (column, raw) in enumerate(zip(ll.stages, stage_raw, strict=True)):
            value = self._binary(column, raw, {}, "stage")
            if reached and value is None:
                where = self._row_of(stage_raw)
                previous = (
                    "it is the first stage, which every applicant reaches"
                    if i == 0
                    else f"the applicant passed every earlier stage ({', '.join(ll.stages[:i])})"
                )
                raise InputError(
                    f"{self.origin_of[column].description}: the stage column '{column}' is "
                    f"empty{where}, but {previous}.",
                    "Fill in 0 or 1 for every applicant who reached the stage; leave it "
                    "empty only after a failed stage.",
                )
            if not reached and value is not None:
                where = self._row_of(stage_raw)
                raise InputError(
                    f"{self.origin_of[column].description}: the stage column '{column}' "
                    f"holds {value}{where} for an applicant who failed an earlier stage "
                    f"({', '.join(ll.stages[:i])}); the funnel needs stages in order.",
                    "Leave later stages empty after a failed stage, or list the stages "
                    "in the order applicants pass them.",
                )
            values.append(value if reached else None)
            if reached and value == 0:
                reached = False
        return tuple(values)

    def _row_of(self, stage_raw: list[Any]) -> str:
        columns = list(self.ll.stages)
        sides = {id(self.origin_of[c]) for c in columns}
        if len(sides) != 1:
            return ""
        side = self.origin_of[columns[0]]
        pos = engine.locate_where(side, dict(zip(columns, stage_raw, strict=True)))
        return f" (first on {side.row_word} {pos})" if pos is not None else ""


def _merge(cells: list[Cell]) -> tuple[Cell, ...]:
    """Add up cells that became equal once spellings were made canonical."""
    total: dict[tuple[Any, ...], int] = {}
    for c in cells:
        key = (c.sex, c.race, c.selected, c.score, c.stages)
        total[key] = total.get(key, 0) + c.n
    return tuple(
        Cell(sex, race, selected, score, stages, n)
        for (sex, race, selected, score, stages), n in total.items()
    )


def _typo_hint(axis: str, text: str) -> str:
    """``" Did you mean 'Female'?"`` for a near-exact typo of a category, else ``""``.

    Closer than :func:`respai.errors.did_you_mean` (0.8, not 0.6), so a different
    category is not offered for a value that merely looks like it (``African`` is not
    ``Asian``, ``Nonwhite`` not ``White``).
    """
    close = difflib.get_close_matches(text, known_spellings(axis), n=1, cutoff=0.8)
    return f" Did you mean '{close[0]}'?" if close else ""
