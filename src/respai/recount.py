"""Recounting a signed record's cases from the data and the spec, count by count.

``respai verify RECORD --data FILE --spec SPEC`` asks whether the integer counts a record
carries are the counts of ``FILE`` under ``SPEC``. The spec must be the one the record names
(its SHA-256 is in the record's ``run_start``); the cases are then counted again by the
same engine pass a run uses (:func:`respai.load.load_counts`, with ``FILE`` as the cases)
and compared with the record's ``counts``: the number of cases, the overall cell, and for
every grouping each group's six counts and the left-out cases by reason. Rank sums (the
AUC's), calibration bins and empty cells per column are not compared.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from respai.errors import InputError

__all__ = ["Recount", "count_cube", "recount"]

#: A group's counts in the record, by the record's names.
_CELL_KEYS = (
    "tp",
    "fp",
    "tn",
    "fn",
    "missing_prediction_label_1",
    "missing_prediction_label_0",
)


@dataclass(frozen=True, slots=True)
class Recount:
    """The outcome of a recount.

    ``spec_sha256`` is the given spec's digest and ``record_spec_sha256`` the one the
    record names; when they differ nothing was counted (``compared`` is 0). Otherwise
    ``differences`` lists every count that differs, as ``"<where>: record <a>, data <b>"``
    (a count the record has and the data does not, or back, shows ``-``).
    """

    spec_sha256: str | None
    record_spec_sha256: str | None
    compared: int
    differences: tuple[str, ...]

    @property
    def same_spec(self) -> bool:
        """Whether the given spec is the one the record names."""
        return self.spec_sha256 is not None and self.spec_sha256 == self.record_spec_sha256

    @property
    def ok(self) -> bool:
        """Whether the spec is the record's and every count is the same."""
        return self.same_spec and self.compared > 0 and not self.differences

    def to_json(self) -> dict[str, Any]:
        """The recount as ``respai verify --json`` shows it."""
        return {
            "spec_sha256": self.spec_sha256,
            "record_spec_sha256": self.record_spec_sha256,
            "compared": self.compared,
            "differences": list(self.differences),
            "ok": self.ok,
        }


def count_cube(counts: Mapping[str, Any]) -> dict[str, int]:
    """The compared counts of a record's ``counts`` object, flat: ``where -> count``.

    Examples
    --------
    >>> cube = count_cube({"cases": 3, "overall": {"tp": 1, "fp": 2}, "groupings": {
    ...     "sex": {"groups": [{"key": ["f"], "tp": 1, "fp": 2}], "left_out": {"missing": 0}}}})
    >>> cube["cases"], cube["groupings.sex[f].fp"], cube["groupings.sex.left_out.missing"]
    (3, 2, 0)
    """
    out: dict[str, int] = {"cases": int(counts.get("cases", 0))}
    overall = counts.get("overall") or {}
    for key in _CELL_KEYS:
        if key in overall:
            out[f"overall.{key}"] = int(overall[key])
    for name, grouping in (counts.get("groupings") or {}).items():
        columns = grouping.get("columns") if grouping.get("layout") == "columns" else None
        if isinstance(columns, Mapping):  # a compact grouping: the same counts as columns
            for i, k in enumerate(columns.get("key") or []):
                label = " × ".join(str(v) for v in k)
                for key in _CELL_KEYS:
                    if key in columns:
                        out[f"groupings.{name}[{label}].{key}"] = int(columns[key][i])
        for group in grouping.get("groups") or []:
            label = " × ".join(str(v) for v in group.get("key") or [])
            for key in _CELL_KEYS:
                if key in group:
                    out[f"groupings.{name}[{label}].{key}"] = int(group[key])
        for reason, n in (grouping.get("left_out") or {}).items():
            out[f"groupings.{name}.left_out.{reason}"] = int(n)
    return out


def _record_spec_sha256(predicate: Mapping[str, Any]) -> str | None:
    for record in predicate.get("records") or []:
        if isinstance(record, Mapping) and record.get("record_type") == "run_start":
            spec = record.get("spec")
            digest = spec.get("sha256") if isinstance(spec, Mapping) else None
            return digest if isinstance(digest, str) else None
    return None


def recount(predicate: Mapping[str, Any], spec_path: Path, data: Path) -> Recount:
    """Count ``data`` under the spec at ``spec_path`` and compare with the record's counts.

    Parameters
    ----------
    predicate
        The verified record's predicate.
    spec_path
        The spec file the run used.
    data
        The cases file (or folder) to count, in place of the spec's ``cases``. A local
        folder of part files is counted on Spark, as ``--engine spark`` counts it (the
        files :func:`respai.engine.spark.folder_parts` lists).

    Raises
    ------
    SpecError
        When the spec does not validate.
    InputError
        When the spec has no ``fairness:``, ``regression:`` or ``ranking:`` block (a run
        without ``fairness:`` recounts its rows and its blocks' counts), the record
        carries no counts, or the data cannot be read as the spec declares it.
    """
    from respai.load import load_counts, open_inputs
    from respai.spec import load_spec

    parsed = load_spec(spec_path)
    want = _record_spec_sha256(predicate)
    if parsed.sha256 != want:
        return Recount(parsed.sha256, want, 0, ())
    recorded = predicate.get("counts")
    if not isinstance(recorded, Mapping):
        raise InputError(
            "the record carries no group counts to compare with.",
            "Only the record of a run with a fairness: block holds them.",
        )
    if parsed.fairness_block is None:
        if not {"regression", "ranking"} & set(parsed.blocks):
            raise InputError(
                f"--spec {spec_path} has no fairness:, regression: or ranking: block, so "
                "there are no counts of the cases file to recount.",
                "Recount a record of a spec with one of those blocks; for an LL144 "
                "evidence pack, use respai reproduce.",
            )
        return _recount_blocks(parsed, want, recorded, data)
    fairness = replace(parsed.fairness_block, cases=data)
    spec = replace(parsed, fairness_block=fairness, data=replace(parsed.data, cases=data))
    # a folder of part files is a Spark table: Spark counts the files the fingerprint lists
    inputs = open_inputs(spec, engine_name="spark" if Path(data).is_dir() else "duckdb")
    counted = load_counts(fairness, inputs.decided).counts
    mine = count_cube(_counts_json(counted))
    theirs = count_cube(recorded)
    differences = tuple(
        f"{where}: record {theirs.get(where, '-')}, data {mine.get(where, '-')}"
        for where in sorted(set(mine) | set(theirs))
        if mine.get(where) != theirs.get(where)
    )
    return Recount(parsed.sha256, want, len(set(mine) | set(theirs)), differences)


def _recount_blocks(
    parsed: Any, want: str | None, recorded: Mapping[str, Any], data: Path
) -> Recount:
    """A run without a ``fairness:`` block: its rows and every block's integer counts.

    The blocks are run again on ``data`` (their counts do not depend on the policy) and
    every integer of ``counts`` (a decimal string beyond 2^53 included) is compared.
    """
    from respai.run.evaluation import run_evaluation
    from respai.run.evidence import block_counts

    spec = replace(parsed, data=replace(parsed.data, cases=data))
    engine = "spark" if Path(data).is_dir() else "duckdb"
    mine = _integers(block_counts(run_evaluation(spec, engine=engine)))
    theirs = _integers(recorded)
    differences = tuple(
        f"{where}: record {theirs.get(where, '-')}, data {mine.get(where, '-')}"
        for where in sorted(set(mine) | set(theirs))
        if mine.get(where) != theirs.get(where)
    )
    return Recount(parsed.sha256, want, len(set(mine) | set(theirs)), differences)


def _integers(value: Any, where: str = "") -> dict[str, str]:
    """Every integer leaf of a counts object, flat: ``where -> digits``.

    Examples
    --------
    >>> _integers({"cases": 3, "regression": {"sums": [1, "90071992547409930"], "a": "x"}})
    {'cases': '3', 'regression.sums[0]': '1', 'regression.sums[1]': '90071992547409930'}
    """
    out: dict[str, str] = {}
    if isinstance(value, Mapping):
        for k, v in value.items():
            out |= _integers(v, f"{where}.{k}" if where else str(k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out |= _integers(v, f"{where}[{i}]")
    elif isinstance(value, int) and not isinstance(value, bool):
        out[where] = str(value)
    elif isinstance(value, str) and value.lstrip("-").isdigit():
        out[where] = value
    return out


def _counts_json(counts: Any) -> dict[str, Any]:
    """A :class:`~respai.counts.Counts` in the record's layout (the compared parts)."""
    return {
        "cases": counts.total,
        "overall": counts.overall.to_dict(),
        "groupings": {
            g.name: {
                "groups": [{"key": list(k), **cell.to_dict()} for k, cell in g.groups.items()],
                "left_out": dict(g.left_out),
            }
            for g in counts.groupings.values()
        },
    }
