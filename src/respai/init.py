r"""``respai init``: draft a spec from a data file, ready to edit.

The drafting is a pure function of the file's column summaries
(:func:`draft_from_summary`): which 0/1 columns are likely the label and the prediction
(by name, then by file order), which number column in [0, 1] is likely the score, which
id column holds one row per person, and the declared values of every text column with at
most :data:`MAX_VALUES` distinct values, as attributes. The rules are written commented
out, as examples. :func:`draft_spec` opens the file through the engine
(:func:`respai.engine.open_file`) and summarizes it in a bounded number of DuckDB
queries (:mod:`respai.engine.column_summary`); nothing but aggregates reaches Python.

Every value from the file goes into the YAML through :func:`yaml.safe_dump`, so a value
YAML would read as something else (``yes``, ``007``, ``1.0``) is quoted, and a name with
quotes, colons or control characters is escaped; comments carry no raw data. A name or
value holding a character that is not printable (a control character, a bidi override
such as U+202E, a zero-width space U+200B, a line separator) is written double-quoted
with that character as a YAML escape (``"k\u202Ez"``), so an editor shows the spec as it
reads, and the spec still names the real column: YAML reads the escape back as the
character.
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from respai.engine.column_summary import ColumnSummary, FileSummary
from respai.engine.source import BOOL, NUMERIC, TEXT, Source, file_format
from respai.errors import InputError
from respai.spelling import same_number_pair

__all__ = ["MAX_VALUES", "Draft", "cases_reference", "draft_from_summary", "draft_spec"]

#: A text column with at most this many distinct values is declared as an attribute.
MAX_VALUES = 20

#: Names that say what a column is, best first (compared lower-case, by word).
LABEL_NAMES = ("label", "y_true", "target", "actual", "truth", "ground_truth", "outcome", "y")
PREDICTION_NAMES = (
    "prediction",
    "predicted",
    "pred",
    "y_pred",
    "yhat",
    "y_hat",
    "decision",
    "selected",
)
SCORE_NAMES = ("score", "probability", "prob", "proba", "y_score", "y_prob", "p", "risk")
#: Words in a label or prediction column's name that say 1 is the adverse outcome for the
#: person (a flag, a refusal, a default), so the draft proposes ``favorable: 0``.
ADVERSE_WORDS = (
    "default",
    "defaulted",
    "fraud",
    "flag",
    "flagged",
    "reject",
    "rejected",
    "deny",
    "denied",
    "decline",
    "declined",
    "churn",
    "risk",
    "recid",
    "recidivism",
    "arrest",
    "bad",
)
UNIT_NAMES = ("person_id", "applicant_id", "candidate_id", "customer_id", "user_id", "id")

#: How much of a file an id column's approximate distinct count must reach to be checked
#: exactly as the unit (HyperLogLog errs by a few percent).
_UNIT_SHARE = 0.9


@dataclass(frozen=True, slots=True)
class Draft:
    """A drafted spec: its YAML text and what was chosen, for the command's summary."""

    text: str
    label: str
    prediction: str
    probability: str | None
    unit: str | None
    attributes: tuple[str, ...]
    checks: tuple[str, ...] = field(default=())
    #: the ``favorable:`` drafted: 1, or 0 when a column's name says 1 is adverse
    favorable: int = 1
    #: the battery tests drafted under ``evaluation.tests`` (those the data supports)
    tests: tuple[str, ...] = ()
    #: the drafted ``system.name``
    name: str = ""


def _words(name: str) -> list[str]:
    return [w for w in re.split(r"[^0-9a-z]+", name.lower()) if w]


def _name_rank(name: str, names: Sequence[str]) -> int | None:
    """Where ``name`` is in ``names``: whole-name matches first, then a matching word."""
    joined = "_".join(_words(name))
    if joined in names:
        return names.index(joined)
    words = set(_words(name))
    for i, wanted in enumerate(names):
        if "_" not in wanted and wanted in words:
            return len(names) + i
    return None


def _is_binary(c: ColumnSummary) -> bool:
    """Only 0 and 1 (numbers, or text spelling them) in a column with some values."""
    if c.non_null == 0:
        return False
    if c.kind == NUMERIC:
        return c.not_binary == 0
    if c.kind == TEXT and c.values is not None:
        return {str(v).strip() for v, _ in c.values} <= {"0", "1"}
    return False


#: Spellings of a two-valued text column read as 1 (yes, the good or named outcome) ...
_ONE_WORDS = frozenset(
    (
        *("yes", "y", "true", "approved", "approve", "accepted", "accept", "hired", "hire"),
        *("admitted", "admit", "granted", "grant", "selected", "select", "pass", "passed"),
        *("positive", "pos", "success", "good", "repaid", "paid", ">50k", "offer", "offered"),
        *("advanced", "advance"),
    )
)
#: ... and as 0; a pair with neither is mapped in sorted order, for the user to check
_ZERO_WORDS = frozenset(
    (
        *("no", "n", "false", "declined", "decline", "rejected", "reject", "denied", "deny"),
        *("refused", "refuse", "fail", "failed", "negative", "neg", "failure", "bad"),
        *("defaulted", "default", "<=50k", "none"),
    )
)


def _two_values(c: ColumnSummary) -> tuple[str, str] | None:
    """The two spellings of a text column that holds exactly two values (not 0 and 1)."""
    if c.kind != TEXT or c.values is None or len(c.values) != 2 or _is_binary(c):
        return None
    a, b = sorted(str(v) for v, _ in c.values)
    return a, b


def _text_map(values: tuple[str, str]) -> tuple[dict[str, int], bool]:
    """The ``label_map`` drafted for two spellings, and whether the words decided it.

    Examples
    --------
    >>> _text_map(("no", "yes"))
    ({'no': 0, 'yes': 1}, True)
    >>> _text_map(("Defaulted", "Repaid"))
    ({'Defaulted': 0, 'Repaid': 1}, True)
    >>> _text_map(("A", "B"))
    ({'A': 0, 'B': 1}, False)
    """
    a, b = values
    one = [v for v in values if v.strip().lower() in _ONE_WORDS]
    zero = [v for v in values if v.strip().lower() in _ZERO_WORDS]
    if len(one) == 1 and one[0] not in zero:
        other = b if one[0] == a else a
        if other not in one:
            return {other: 0, one[0]: 1}, True
    if len(zero) == 1 and zero[0] not in one:
        other = b if zero[0] == a else a
        if other not in zero:
            return {zero[0]: 0, other: 1}, True
    return {a: 0, b: 1}, False


def _is_score(c: ColumnSummary) -> bool:
    """A number column in [0, 1] with values between 0 and 1, not only 0 and 1."""
    return (
        c.kind == NUMERIC
        and c.non_null > 0
        and c.minimum is not None
        and c.maximum is not None
        and c.minimum >= 0
        and c.maximum <= 1
        and (c.fractional or 0) > 0
    )


def _pick(
    candidates: Sequence[ColumnSummary], names: Sequence[str]
) -> tuple[ColumnSummary | None, bool]:
    """The best-named candidate (and True), else the first one (and False)."""
    ranked = [
        (r, i, c) for i, c in enumerate(candidates) if (r := _name_rank(c.name, names)) is not None
    ]
    if ranked:
        return min(ranked, key=lambda t: (t[0], t[1]))[2], True
    return (candidates[0] if candidates else None), False


def unit_candidates(summary: FileSummary) -> list[str]:
    """Id-like columns that are never empty and nearly all distinct, best-named first.

    Their uniqueness is only approximate here; :func:`draft_spec` checks it exactly.
    """
    found = [
        c
        for c in summary.columns
        if summary.rows > 0
        and c.non_null == summary.rows
        and c.distinct >= _UNIT_SHARE * summary.rows
        and c.kind in (NUMERIC, TEXT)
        and (_name_rank(c.name, UNIT_NAMES) is not None or _is_id_name(c.name))
    ]
    return [c.name for c in sorted(found, key=lambda c: _name_rank(c.name, UNIT_NAMES) or 99)]


def _is_id_name(name: str) -> bool:
    """``person_id``, ``case-id``, ``personId``: the last word is "id"."""
    words = _words(name)
    return bool(words) and (words[-1] == "id" or (len(name) > 2 and name.endswith("Id")))


def _attribute_values(c: ColumnSummary) -> tuple[tuple[str, ...] | None, str]:
    """The values to declare for a text column, or None and why it is not declared."""
    if c.kind == NUMERIC:
        return None, "a number column (groups are declared from text columns)"
    if c.kind not in (TEXT, BOOL):
        return None, "not a text column"
    if c.values is None:
        return None, f"more than {MAX_VALUES} distinct values"
    texts = [_value_text(v) for v, _ in c.values if _value_text(v).strip()]
    if len(texts) < 2:
        return None, "fewer than two distinct values"
    if len({t.strip() for t in texts}) < len(texts):
        return None, "two values differ only by spaces around them"
    if same_number_pair(texts) is not None:
        return None, "two values spell the same number"
    return tuple(texts), ""


def _value_text(value: Any) -> str:
    """A value as the run matches it: ``true``/``false`` for a boolean, else its text."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _comment_text(text: str) -> str:
    """``text`` safe inside a YAML comment: line breaks and controls shown escaped."""
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode() for ch in text)


def _hidden(text: str) -> bool:
    """Whether ``text`` holds a character an editor would not show as itself."""
    return not text.replace(" ", "").isprintable()


class _Dumper(yaml.SafeDumper):
    r"""The safe dumper, writing a string that holds a hidden character with YAML escapes.

    Such a string is double-quoted (:func:`_str`), and its characters beyond ASCII are
    written as ``\uXXXX`` escapes, bidi and zero-width characters included (PyYAML writes
    them raw when ``allow_unicode`` is set).
    """

    def write_double_quoted(self, text: str, split: bool = True) -> None:
        if not _hidden(text):
            super().write_double_quoted(text, split)
            return
        keep = self.allow_unicode
        self.allow_unicode = False
        try:
            super().write_double_quoted(text, split)
        finally:
            self.allow_unicode = keep


def _str(dumper: yaml.SafeDumper, text: str) -> yaml.ScalarNode:
    node = dumper.represent_str(text)
    if _hidden(text):
        node.style = '"'
    return node


_Dumper.add_representer(str, _str)


def _dump(key: str, value: Any, indent: int) -> list[str]:
    """``key: value`` as YAML lines (every scalar quoted as YAML needs), indented.

    A scalar or a list of scalars is one line (``sex: [female, male]``); a list of
    mappings is a block list with its small mappings inline.
    """
    flow = None if isinstance(value, list) else False
    text = yaml.dump(
        {key: value},
        Dumper=_Dumper,
        sort_keys=False,
        allow_unicode=True,
        default_flow_style=flow,
        width=1 << 30,
    )
    return [" " * indent + line for line in text.splitlines()]


def _commented(lines: Sequence[str], indent: int) -> list[str]:
    """``lines`` (indented by at least ``indent``) commented out at column ``indent``."""
    return [line[:indent] + "# " + line[indent:] for line in lines]


def _rule_id(rate: str, attribute: str) -> str:
    slug = "-".join(_words(attribute))[:40] or "attribute"
    return f"{rate.replace('_', '-')}-by-{slug}"


def draft_from_summary(summary: FileSummary, *, cases: str, name: str, unit: str | None) -> Draft:
    """Draft a spec's YAML from a file's column summaries (pure).

    Parameters
    ----------
    summary
        The file's row count and column summaries (:func:`respai.engine.column_summary.summarize`).
    cases
        How the spec names the data file (relative to the spec's folder).
    name
        The spec's ``fairness.name``.
    unit
        An id column known to hold each value once (checked by the caller), or ``None``.

    Raises
    ------
    InputError
        When the file has no rows, fewer than two 0/1 columns (a label and a prediction),
        or no text column with few enough values to declare as groups.
    """
    where = summary.description
    if summary.rows == 0:
        raise InputError(
            f"{where} has a header but no rows, so nothing can be drafted from its values.",
            "Point respai init at a file with the decided cases in it.",
        )
    # 0/1 columns first; then text columns of exactly two values, read through a map
    binary = [c for c in summary.columns if _is_binary(c)]
    # (only when the words say which is yes, or the name says label or prediction: a
    # two-valued group column such as F/M is no outcome)
    binary += [
        c
        for c in summary.columns
        if (pair := _two_values(c)) is not None
        and (
            _text_map(pair)[1]
            or _name_rank(c.name, LABEL_NAMES) is not None
            or _name_rank(c.name, PREDICTION_NAMES) is not None
        )
    ]
    checks: list[str] = []
    label, by_name = _pick(binary, LABEL_NAMES)
    if label is None or len(binary) < 2:
        shown = ", ".join(repr(c.name) for c in binary) or "none"
        only = (
            " With decisions but no true outcome, the selection rates can still be "
            "audited by sex and race/ethnicity: respai init --ll144 drafts that spec."
            if len(binary) == 1
            else ""
        )
        raise InputError(
            f"{where}: a fairness spec needs two columns holding only 0 and 1 (or two text "
            f"values, such as yes and no), the label (the true outcome) and the prediction "
            f"(the decision); found {shown}.{only}",
            "Export the label and the decision as 0/1 columns (or write the spec by hand "
            "with label_map and prediction_map for other spellings).",
        )
    if not by_name:
        checks.append("label: no two-valued column is named like a label; the first was taken")
    rest = [c for c in binary if c is not label]
    prediction, by_name = _pick(rest, PREDICTION_NAMES)
    assert prediction is not None
    if not by_name:
        checks.append(
            "prediction: no two-valued column is named like a prediction; the next was taken"
        )
    maps = {
        c.name: _column_map(c, role, checks)
        for c, role in ((label, "label"), (prediction, "prediction"))
    }
    adverse = [c for c in (label.name, prediction.name) if set(_words(c)) & set(ADVERSE_WORDS)]
    favorable = 0 if adverse else 1
    if adverse:
        checks.append(
            f"favorable: 0 was drafted because {adverse[0]!r} reads as an adverse outcome "
            "(1 = flagged, refused, defaulted); set favorable: 1 if 1 is good for the person"
        )
    used = {label.name, prediction.name}
    scores = [c for c in summary.columns if _is_score(c) and c.name not in used]
    score, by_name = _pick(scores, SCORE_NAMES)
    if score is not None:
        used.add(score.name)
        if not by_name:
            checks.append("probability: a column in [0, 1] not named like a score was taken")
    if unit is not None:
        used.add(unit)
    attributes: dict[str, tuple[str, ...]] = {}
    skipped: list[tuple[str, str]] = []
    for c in summary.columns:
        if c.name in used:
            continue
        values, why = _attribute_values(c)
        if values is None:
            skipped.append((c.name, why))
        else:
            attributes[c.name] = values
    if not attributes:
        raise InputError(
            f"{where}: no text column has between 2 and {MAX_VALUES} distinct values to "
            "declare as groups (attributes).",
            "Add the group column (e.g. sex or age band as text) to the export, or write "
            "the attributes by hand.",
        )
    tests, left_out = supported_tests(label, favorable, score is not None, maps[label.name])
    lines = _header(summary, checks)
    lines += _system_lines(name)
    lines.append("fairness:")
    lines += _dump("name", name, 2)
    lines += _dump("cases", cases, 2)
    lines.append("  # the true outcome, 0/1")
    lines += _dump("label", label.name, 2)
    lines.append("  # the system's decision, 0/1 (an empty cell is 'no prediction')")
    lines += _dump("prediction", prediction.name, 2)
    for key, column in (("label_map", label), ("prediction_map", prediction)):
        mapped = maps[column.name]
        if mapped is not None:
            lines.append(f"  # how the text of {_comment_text(repr(column.name))} reads as 0/1")
            lines += _dump(key, mapped, 2)
    lines += _favorable_lines(favorable, label, adverse[0] if adverse else None, maps[label.name])
    if score is not None:
        lines.append("  # the score the decision came from, in [0, 1] (calibration, AUC)")
        lines += _dump("probability", score.name, 2)
    if unit is not None:
        lines.append("  # one row per person: a person on two rows is refused")
        lines += _dump("unit", unit, 2)
    lines.append(f"  # the groups: each text column with at most {MAX_VALUES} distinct values")
    lines.append("  # (most frequent first); keep those that are characteristics to evaluate")
    lines.append("  attributes:")
    for attr, values in attributes.items():
        lines += _dump(attr, list(values), 4)
    names = list(attributes)
    if len(names) >= 2:
        lines.append("  # an intersection evaluates the crossed groups (uncomment to use)")
        lines += _commented(_dump("intersections", [names[:2]], 2), 2)
    lines.append("  # min_cell: 30   # groups with fewer cases are INSUFFICIENT_EVIDENCE")
    lines.append(
        "  # example rules (uncomment, and choose the thresholds: these are not recommendations)"
    )
    first = names[0]
    rules: list[dict[str, Any]] = [
        {
            "id": _rule_id("selection", first),
            "rate": "selection",
            "attribute": first,
            "max_group_gap": 0.1,
        },
        {
            "id": _rule_id("false_negative", first),
            "rate": "false_negative",
            "attribute": first,
            "max_group_gap": 0.1,
        },
        {
            "id": _rule_id("error", names[-1]),
            "rate": "error",
            "attribute": names[-1],
            "worst_group": {"max": 0.3},
        },
    ]
    lines += _commented(_dump("rules", rules, 2), 2)
    lines += _evaluation_lines(tests, left_out)
    if skipped:
        lines.append("")
        lines.append("# columns not declared:")
        for col, why in skipped:
            lines.append(f"#   {_comment_text(col)}: {why}")
    return Draft(
        text="\n".join(lines) + "\n",
        label=label.name,
        prediction=prediction.name,
        probability=None if score is None else score.name,
        unit=unit,
        attributes=tuple(names),
        checks=tuple(checks),
        favorable=favorable,
        tests=tests,
        name=name,
    )


def _column_map(c: ColumnSummary, role: str, checks: list[str]) -> dict[str, int] | None:
    """The drafted ``label_map``/``prediction_map`` of a two-valued text column, or None."""
    values = _two_values(c)
    if values is None:
        return None
    mapped, decided = _text_map(values)
    one = next(v for v, n in mapped.items() if n == 1)
    if not decided:
        checks.append(
            f"{role}_map: neither {values[0]!r} nor {values[1]!r} reads as yes or no; "
            f"{one!r} was mapped to 1: check it"
        )
    return mapped


def _label_counts(label: ColumnSummary, mapped: dict[str, int] | None = None) -> dict[int, int]:
    """How many cases the label column holds of 0 and of 1 (from its summary's values)."""
    out = {0: 0, 1: 0}
    for value, n in label.values or ():
        if mapped is not None:
            out[mapped[str(value)]] += n
        else:
            out[int(float(str(value).strip()))] += n
    return out


def _favorable_lines(
    favorable: int,
    label: ColumnSummary,
    adverse: str | None,
    mapped: dict[str, int] | None = None,
) -> list[str]:
    """The drafted ``favorable:``: the label's values, which one was chosen and why."""
    counts = _label_counts(label, mapped)
    held = ", ".join(f"{v} ({n:,} cases)" for v, n in counts.items() if n) or "no value"
    if adverse is not None:
        why = f"0, as {adverse!r} reads as an outcome adverse to the person"
    else:
        why = "1, the default, as no column's name says 1 is adverse"
    return [
        "  # which value of label and prediction is the GOOD outcome for the person?",
        "  # every rate, ratio and difference is of that outcome:",
        "  #   favorable: 1  selection rate = share predicted 1, true positive rate = share",
        "  #                 predicted 1 among cases labelled 1 (1 = approved, hired, admitted)",
        "  #   favorable: 0  selection rate = share predicted 0, true positive rate = share",
        "  #                 predicted 0 among cases labelled 0 (1 = flagged, denied, defaulted)",
        f"  # the label {_comment_text(repr(label.name))} holds {held};",
        f"  # chosen: {_comment_text(why)}",
        f"  favorable: {favorable}",
    ]


#: The ``system:`` keys a draft leaves to the user, with what each holds.
_SYSTEM_TODO = (
    ("version", '"1.0"', "the version of the system evaluated"),
    ("owner", "team or person", "who answers for the system"),
    ("use_case", "what it decides", "the decision it makes, for whom"),
    ("jurisdiction", "NYC", "where it is used"),
    ("first_distributed", "2026-01-01", "the date it was first used (LL144)"),
)


def _system_lines(name: str) -> list[str]:
    """The ``system:`` block: the name from the file, the other keys as TODO comments."""
    lines = [
        "# what is evaluated: every report, record and comparison names it",
        "system:",
        *_dump("name", name, 2),
    ]
    for key, example, what in _SYSTEM_TODO:
        lines.append(f"  # {key}: {example}   # TODO: {what}")
    return lines


def supported_tests(
    label: ColumnSummary,
    favorable: int,
    has_score: bool,
    mapped: dict[str, int] | None = None,
) -> tuple[tuple[str, ...], tuple[tuple[str, str], ...]]:
    """The battery tests a file supports, and each test left out with why.

    A drafted spec always has a label, a prediction and groups, so accuracy, the
    selection-rate spreads, missing decisions, completeness and class balance apply;
    the AUC needs a score and both label values; the equal-opportunity difference needs
    cases labelled with the favourable outcome; perturbation stability needs the model,
    which a data file does not hold.
    """
    from respai.battery import BATTERY, TestId

    counts = _label_counts(label, mapped)
    out: dict[str, str] = {
        TestId.PERTURBATION_STABILITY: (
            "needs the model (evaluation.model, features); a data file has none"
        )
    }
    if not has_score:
        out[TestId.AUC] = "needs a score column in [0, 1] (fairness.probability)"
    elif not (counts[0] and counts[1]):
        out[TestId.AUC] = "the label holds one value only, so the AUC is undefined"
    if not counts[favorable]:
        out[TestId.EQUAL_OPPORTUNITY_DIFF] = (
            f"no case is labelled {favorable} (the favourable outcome), so the true "
            "positive rate is undefined"
        )
    tests = tuple(t for t in BATTERY if t not in out)
    return tests, tuple((t, out[t]) for t in BATTERY if t in out)


def _evaluation_lines(tests: Sequence[str], left_out: Sequence[tuple[str, str]]) -> list[str]:
    """The ``evaluation:`` block: the supported tests, each with its threshold."""
    from respai.battery import DEFAULT_THRESHOLDS

    width = max(len(t) for t in tests) + 4
    lines = [
        "",
        "# the battery respai evaluate runs: only the tests this data supports. Each is",
        "# decided on its 95% interval against the threshold in its comment (respai's",
        "# default; a --policy file's tests: sets another, and the record states which).",
        "evaluation:",
        "  tests:",
    ]
    for test in tests:
        t = DEFAULT_THRESHOLDS[test]
        why = t.source.split(": ", 1)[-1]
        bound = f"{t.comparison} {t.value}"
        lines.append(f"    - {test:<{width}}# {bound:<8} {why}")
    if left_out:
        lines.append("  # left out:")
        lines += [f"  #   {test}: {why}" for test, why in left_out]
    return lines


def _header(summary: FileSummary, checks: Sequence[str]) -> list[str]:
    lines = [
        "# DRAFT spec, written by `respai init` from",
        f"#   {_comment_text(summary.description)} ({summary.rows:,} rows, "
        f"{len(summary.columns)} columns).",
        "# It is a guess from the column names and values, not a decision. Check:",
        "#   - label is the true outcome and prediction the system's decision (0/1 each),",
        "#     and probability, if set, the score the decision came from;",
        "#   - favorable names the value that is good for the person (1 or 0): the impact",
        "#     ratio and every rate are of that outcome;",
        "#   - unit, if set, is the column naming the person each case is about;",
        "#   - every attribute is a characteristic you must evaluate, with every group you",
        "#     mean to report spelled as in the file (values are matched as text);",
        "#   - the rules: none is active. Uncomment the examples and choose thresholds that",
        "#     your policy or law sets (respai fairness passes nothing without a rule);",
        "#   - system: the name is the file's; fill in the TODO keys;",
        "#   - evaluation: the battery tests this data supports, decided on respai's",
        "#     default thresholds (in comments); remove those your policy does not ask for.",
    ]
    if checks:
        lines.append("# CHECK in particular:")
        lines += [f"#   - {_comment_text(c)}" for c in checks]
    lines.append("# Then run: respai fairness <this file>, then respai evaluate <this file>")
    return lines


def cases_reference(data: Path, spec: Path) -> str:
    """How the spec at ``spec`` names ``data``: relative when it is under the spec's folder."""
    target = data.resolve()
    try:
        relative = os.path.relpath(target, spec.resolve().parent)
    except ValueError:  # another drive on Windows
        return str(target)
    return str(target) if relative.split(os.sep)[0] == os.pardir else relative


def draft_spec(data: Path, spec: Path) -> Draft:
    """Draft a spec for the data file ``data``, to be written at ``spec``.

    The file is opened once in DuckDB and summarized in a bounded number of queries; a
    unit candidate is checked exactly (one distinct count).

    Raises
    ------
    InputError
        When the file cannot be read (missing, empty, not UTF-8, malformed), or holds
        nothing to draft from (see :func:`draft_from_summary`).
    """
    source, summary = summarize_file(data)
    unit = unique_id(source, summary)
    return draft_from_summary(
        summary, cases=cases_reference(data, spec), name=data.stem, unit=unit
    )


def summarize_file(data: Path) -> tuple[Source, FileSummary]:
    """Open ``data`` as a run reads it (text columns as text) and summarize its columns.

    Raises
    ------
    InputError
        When the file cannot be read (missing, empty, not UTF-8, malformed).
    """
    from respai.engine.column_summary import summarize
    from respai.engine.opening import open_file

    file_format(data, None)  # an unknown suffix is refused before the file is read
    source = open_file(data)
    if data.suffix.lower() != ".parquet" and any(k == BOOL for k in source.kinds.values()):
        # read as the run reads attributes: as text (``yes`` stays ``yes``, not true)
        text = [c for c, k in source.kinds.items() if k != NUMERIC]
        source = open_file(data, text_columns=text)
    return source, summarize(source, MAX_VALUES)


def unique_id(source: Source, summary: FileSummary) -> str | None:
    """The best-named id column that holds each value once (checked exactly), or None."""
    from respai.engine.column_summary import count_duplicates

    return next((c for c in unit_candidates(summary) if count_duplicates(source, c) == 0), None)
