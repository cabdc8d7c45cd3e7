"""``respai init --ll144``: draft an LL144 bias-audit spec from the decisions file.

The drafting is a pure function of the files' column summaries
(:func:`draft_ll144_from_summary`), as for :mod:`respai.init`: the tool's decision (a
0/1 column, ``kind: selection``) or its score (``kind: scoring``) in the decisions file,
the sex and race/ethnicity columns (in the self-identification file when there is one),
the id column both files share, and a mapping of the file's spellings of the EEO-1
categories.

The mapping is a suggestion that never guesses (:func:`respai.eeo1.suggest_category`):
a value already spelled as EEO-1 spells it needs no mapping; a case, space or
punctuation variant of a category, or a well-known synonym (``F``, ``Hispanic``,
``African-American``), is mapped to that category; a spelling of "not answered"
(``Decline to answer``) is listed under ``unknown_values``; any other value (``Other``,
``Indian``, ``Non-binary``) is left unmapped, with a TODO comment listing the categories
it may be mapped to, so the audit refuses to run until a person decides.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from respai.eeo1 import AXES, AXIS_TITLES, canonical_label, means_unknown, suggest_category
from respai.engine.column_summary import ColumnSummary, FileSummary
from respai.engine.source import BOOL, TEXT
from respai.errors import InputError
from respai.init import (
    MAX_VALUES,
    SCORE_NAMES,
    _comment_text,
    _commented,
    _dump,
    _is_binary,
    _is_score,
    _name_rank,
    _pick,
    _value_text,
    cases_reference,
    summarize_file,
    unique_id,
    unit_candidates,
)

__all__ = ["LL144Draft", "draft_ll144", "draft_ll144_from_summary"]

#: Names of the tool's 0/1 decision column, best first.
SELECTED_NAMES = (
    "selected",
    "advanced",
    "advance",
    "passed",
    "screen_pass",
    "shortlisted",
    "interview",
    "hired",
    "offer",
    "decision",
    "prediction",
    "predicted",
    "pred",
    "y_pred",
    "pass",
)
#: Names of the sex and the race/ethnicity columns, best first.
AXIS_NAMES = {
    "sex": ("sex", "gender", "sex_self_id", "gender_identity"),
    "race": ("race_ethnicity", "race", "ethnicity", "race_or_ethnicity", "raceethnicity"),
}


@dataclass(frozen=True, slots=True)
class LL144Draft:
    """A drafted LL144 spec: its YAML text and what was chosen, for the command's summary."""

    text: str
    kind: str
    decision: str
    sex: str
    race: str
    id: str | None
    join_on: str | None
    #: per axis, the file's spellings mapped by the draft (spelling -> category)
    mapped: dict[str, dict[str, str]] = field(default_factory=dict)
    #: spellings listed under ``unknown_values``
    unknown: tuple[str, ...] = ()
    #: per axis, the spellings left unmapped (TODO)
    todo: dict[str, tuple[str, ...]] = field(default_factory=dict)
    checks: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class _Axis:
    """One axis's column and how the draft reads each of its values."""

    axis: str
    column: ColumnSummary
    as_written: tuple[str, ...]
    mapped: dict[str, str]
    unknown: tuple[str, ...]
    todo: tuple[str, ...]


def _category_values(c: ColumnSummary) -> list[str] | None:
    """A category column's distinct non-empty values as text (None: too many)."""
    if c.values is None:
        return None
    return [t for v, _ in c.values if (t := _value_text(v)).strip()]


def _matches(axis: str, c: ColumnSummary) -> int:
    """How many of a text column's values spell a category of ``axis``."""
    values = _category_values(c) if c.kind in (TEXT, BOOL) else None
    return sum(1 for v in values or () if suggest_category(axis, v) is not None)


def _axis_column(
    axis: str, candidates: Sequence[ColumnSummary], taken: set[str], checks: list[str]
) -> ColumnSummary:
    """The ``axis`` column: the best-named one, else the text column spelling most categories."""
    free = [c for c in candidates if c.name not in taken]
    named = [c for c in free if _name_rank(c.name, AXIS_NAMES[axis]) is not None]
    if named:
        return min(named, key=lambda c: _name_rank(c.name, AXIS_NAMES[axis]) or 0)
    scored = [(n, -i, c) for i, c in enumerate(free) if (n := _matches(axis, c)) > 0]
    if scored:
        found = max(scored, key=lambda t: (t[0], t[1]))[2]
        checks.append(
            f"{axis}: no column is named like a {AXIS_TITLES[axis]} column; "
            f"{found.name!r} was taken because its values spell such categories"
        )
        return found
    raise InputError(
        f"no column of the files is named like a {AXIS_TITLES[axis]} column "
        f"({', '.join(AXIS_NAMES[axis])}) or holds its EEO-1 categories "
        f"({', '.join(AXES[axis])}).",
        "An LL144 audit needs the applicants' sex and race/ethnicity: pass the "
        "self-identification file as the second file, or write the ll144: block by hand.",
    )


def _read_axis(axis: str, c: ColumnSummary, where: str) -> _Axis:
    """How the draft reads each value of the ``axis`` column."""
    values = _category_values(c) if c.kind in (TEXT, BOOL) else None
    if values is None:
        what = (
            "is not a text column"
            if c.kind not in (TEXT, BOOL)
            else f"has more than {MAX_VALUES} distinct values"
        )
        raise InputError(
            f"{where}: the {AXIS_TITLES[axis]} column {c.name!r} {what}, so its values "
            "cannot be read as EEO-1 categories.",
            f"Export the {AXIS_TITLES[axis]} as text, one of {', '.join(AXES[axis])} "
            "(or a spelling of one), or write the ll144: block by hand.",
        )
    as_written, unknown, todo = [], [], []
    mapped: dict[str, str] = {}
    for value in values:
        if canonical_label(axis, value) is not None:
            as_written.append(value)
        elif (label := suggest_category(axis, value)) is not None:
            mapped[value] = label
        elif means_unknown(value):
            unknown.append(value)
        else:
            todo.append(value)
    return _Axis(axis, c, tuple(as_written), mapped, tuple(unknown), tuple(todo))


def _shared_id(decisions: FileSummary, self_id: FileSummary, id_column: str | None) -> str | None:
    """The column both files share that names the applicant: the decisions' id first."""
    theirs = {c.name for c in self_id.columns}
    if id_column is not None and id_column in theirs:
        return id_column
    for name in unit_candidates(self_id):
        if any(c.name == name for c in decisions.columns):
            return name
    return None


def draft_ll144_from_summary(
    decisions: FileSummary,
    self_id: FileSummary | None,
    *,
    cases: str,
    demographics: str | None,
    name: str,
    id_column: str | None,
) -> LL144Draft:
    """Draft an LL144 spec's YAML from the files' column summaries (pure).

    Parameters
    ----------
    decisions
        The decisions file's summary: the tool's decision or score, one row per applicant.
    self_id
        The self-identification file's summary, or ``None`` when the decisions file holds
        the sex and race/ethnicity columns.
    cases, demographics
        How the spec names the two files (relative to the spec's folder).
    name
        The ``system.name``.
    id_column
        An id column of the decisions file known to hold each value once, or ``None``.

    Raises
    ------
    InputError
        When a file has no rows, the decisions file has no 0/1 decision and no score, the
        files share no id column, or no column holds sex or race/ethnicity as text.
    """
    for summary in (decisions, self_id):
        if summary is not None and summary.rows == 0:
            raise InputError(
                f"{summary.description} has a header but no rows, so nothing can be drafted "
                "from its values.",
                "Point respai init --ll144 at the decisions (and the self-identification).",
            )
    checks: list[str] = []
    join_on = None
    if self_id is not None:
        join_on = _shared_id(decisions, self_id, id_column)
        if join_on is None:
            raise InputError(
                f"{self_id.description} and {decisions.description} share no id column "
                "that names each applicant once, so the self-identification cannot be "
                "joined to the decisions.",
                "Export the same applicant id column in both files (for example applicant_id).",
            )
    ids = {n for n in (id_column, join_on) if n is not None}
    # the sex and race columns: the self-identification file's first
    pool = [*(self_id.columns if self_id else ()), *decisions.columns]
    pool = [c for c in pool if c.name not in ids]
    sex_col = _axis_column("sex", pool, set(), checks)
    race_col = _axis_column("race", pool, {sex_col.name}, checks)
    if race_col.name.lower().replace(" ", "_") in ("race", "race_or_ethnicity") and any(
        c.name.lower() == "ethnicity" for c in pool
    ):
        checks.append(
            "race: the files have separate race and ethnicity columns; EEO-1 counts "
            "Hispanic or Latino as a category of its own, so combine them into one column"
        )
    taken = {sex_col.name, race_col.name, *ids}
    rest = [c for c in decisions.columns if c.name not in taken]
    binary = [c for c in rest if _is_binary(c)]
    kind, decision = "selection", None
    if binary:
        found, by_name = _pick(binary, SELECTED_NAMES)
        assert found is not None
        decision = found
        if not by_name:
            checks.append(
                f"selected: no 0/1 column is named like a decision; {found.name!r} was taken"
            )
    else:
        scores = [c for c in rest if c.kind == "numeric" and (c.non_null > 0)]
        if scores:
            found, by_name = _pick(scores, SCORE_NAMES)
            assert found is not None
            kind, decision = "scoring", found
            if not by_name or not _is_score(found):
                checks.append(f"score: {found.name!r} was taken as the tool's score")
    if decision is None:
        raise InputError(
            f"{decisions.description}: no 0/1 column (the tool's decision) and no number "
            "column (its score), so the audit has nothing to measure.",
            "Export the decision as a 0/1 column (1 = selected), or the score as a number.",
        )
    where = (self_id or decisions).description
    axes = [_read_axis("sex", sex_col, where), _read_axis("race", race_col, where)]
    lines = _header(decisions, self_id, checks)
    lines += [
        "system:",
        *_dump("name", name, 2),
        '  # version: "1.0"   # TODO: the version of the tool audited',
        "  # first_distributed: 2026-01-01   # TODO: the date the tool was first used",
        "data:",
        *_dump("cases", cases, 2),
    ]
    if id_column is not None:
        lines += _dump("id", id_column, 2)
    if self_id is not None:
        assert demographics is not None and join_on is not None
        lines += ["  # the self-identification, joined to the decisions on join_on"]
        lines += _dump("demographics", demographics, 2)
        lines += _dump("join_on", join_on, 2)
    lines += [
        "  # historical: the tool's real decisions; test: made-up or test data (say why)",
        "  source: historical",
        "  # TODO: say the period the decisions cover and how self-identification was",
        "  # collected: the published summary states this explanation",
        *_dump("explanation", _explanation(decisions, self_id, cases, demographics, join_on), 2),
        "ll144:",
        f"  kind: {kind}",
    ]
    if kind == "selection":
        lines.append("  # the tool's decision, 0/1 (1 = selected, moved forward)")
        lines += _dump("selected", decision.name, 2)
    else:
        lines.append("  # the tool's score: higher is better for the applicant")
        lines += _dump("score", decision.name, 2)
        lines.append("  # cutoffs: [0.1, 0.25]   # top shares to check the ratios at")
    lines += _dump("sex", sex_col.name, 2)
    lines += _dump("race", race_col.name, 2)
    lines += [
        "  # categories under 2% of applicants may be left out of the ratios (DCWP rules)",
        "  min_share: 0.02",
        "  # exclusion_justification: TODO   # why, if a category is left out",
        "  # audit_date: 2026-01-01   # TODO: the date of the audit",
    ]
    lines += _category_lines(axes)
    return LL144Draft(
        text="\n".join(lines) + "\n",
        kind=kind,
        decision=decision.name,
        sex=sex_col.name,
        race=race_col.name,
        id=id_column,
        join_on=join_on,
        mapped={a.axis: dict(a.mapped) for a in axes if a.mapped},
        unknown=tuple(dict.fromkeys(u for a in axes for u in a.unknown)),
        todo={a.axis: a.todo for a in axes if a.todo},
        checks=tuple(checks),
    )


def _explanation(
    decisions: FileSummary,
    self_id: FileSummary | None,
    cases: str,
    demographics: str | None,
    join_on: str | None,
) -> str:
    """A factual first sentence for ``data.explanation``: the files and their sizes."""
    text = f"Decisions of the tool from {cases} ({decisions.rows:,} rows)"
    if self_id is not None:
        text += (
            f", joined on {join_on} to self-identification from {demographics} "
            f"({self_id.rows:,} rows)"
        )
    return text + "."


def _category_lines(axes: Sequence[_Axis]) -> list[str]:
    """``categories:`` and ``unknown_values:``, with the values left to decide as TODOs."""
    lines: list[str] = []
    written = [(a, v) for a in axes for v in a.as_written]
    if written:
        lines.append("  # spelled as EEO-1 spells them (no mapping needed):")
        for a in axes:
            if a.as_written:
                shown = ", ".join(_comment_text(repr(v)) for v in a.as_written)
                lines.append(f"  #   {a.axis}: {shown}")
    if any(a.mapped or a.todo for a in axes):
        lines.append("  # the file's other spellings, each mapped to the one category it")
        lines.append("  # spells; a value with no safe match is a TODO (a commented line):")
        lines.append("  # map it only to the category it means, or list it under unknown_values")
        lines.append("  categories:")
        for a in axes:
            if not (a.mapped or a.todo):
                continue
            # an axis with nothing mapped yet is commented out with its TODOs
            lines.append(f"    {a.axis}:" if a.mapped else f"    # {a.axis}:")
            for value, label in a.mapped.items():
                lines += _dump(value, label, 6)
            if a.todo:
                lines += [f"      # {part}" for part in _packed("TODO: one of", AXES[a.axis])]
                for value in a.todo:
                    lines += _commented(_dump(value, "TODO", 6), 6)
    unknown = list(dict.fromkeys(u for a in axes for u in a.unknown))
    if unknown:
        lines.append("  # spellings that mean not answered (counted as unknown, as an empty cell)")
        lines += _dump("unknown_values", unknown, 2)
    return lines


def _packed(lead: str, items: Sequence[str], width: int = 80) -> list[str]:
    """``lead`` and ``items`` comma-separated on lines of at most ``width``.

    An item is never broken: a category's name stays on one line.
    """
    lines = [lead]
    for i, item in enumerate(items):
        piece = item + ("," if i < len(items) - 1 else "")
        if len(lines[-1]) + 1 + len(piece) > width:
            lines.append("  " + piece)
        else:
            lines[-1] += " " + piece
    return lines


def _header(
    decisions: FileSummary, self_id: FileSummary | None, checks: Sequence[str]
) -> list[str]:
    files = f"{_comment_text(decisions.description)} ({decisions.rows:,} rows)"
    if self_id is not None:
        files += f" and {_comment_text(self_id.description)} ({self_id.rows:,} rows)"
    lines = [
        "# DRAFT LL144 bias-audit spec, written by `respai init --ll144` from",
        f"#   {files}.",
        "# It is a guess from the column names and values, not a decision. Check:",
        "#   - selected (or score) is the tool's decision (or score) for each applicant;",
        "#   - sex and race name the applicants' self-identified EEO-1 categories;",
        "#   - every category mapping, and every TODO: a value left unmapped stops the",
        "#     audit until you map it or list it under unknown_values;",
        "#   - data: source and explanation are published in the summary: make them true.",
    ]
    if checks:
        lines.append("# CHECK in particular:")
        lines += [f"#   - {_comment_text(c)}" for c in checks]
    lines.append("# Then run: respai ll144 <this file>")
    return lines


def draft_ll144(decisions: Path, self_id: Path | None, spec: Path) -> LL144Draft:
    """Draft an LL144 spec for ``decisions`` (and ``self_id``), to be written at ``spec``.

    Raises
    ------
    InputError
        When a file cannot be read, or holds nothing to draft from
        (see :func:`draft_ll144_from_summary`).
    """
    source, summary = summarize_file(decisions)
    id_column = unique_id(source, summary)
    theirs = None if self_id is None else summarize_file(self_id)[1]
    return draft_ll144_from_summary(
        summary,
        theirs,
        cases=cases_reference(decisions, spec),
        demographics=None if self_id is None else cases_reference(self_id, spec),
        name=decisions.stem,
        id_column=id_column,
    )
