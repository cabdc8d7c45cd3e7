"""The compact per-group section of a record: a grouping's counts as columns of integers.

A grouping with more than :data:`COMPACT_MIN_GROUPS` declared groups is written once, as
columns (``counts.groupings.<name>`` with ``"layout": "columns"``): one list per count
(``tp``, ``fp``, ... and the group keys), the rank sums and calibration bins as columns
in the same group order. The test records over that grouping then carry an empty
``groups`` list (``per_group`` for the AUC) and ``groups_derived``, a pointer saying the
per-group rows are derived from those counts by the method and alpha the record states;
their verdict, bounds, worst groups and reasons stay in the record. Such a record has
``schema_version`` :data:`COMPACT_SCHEMA_VERSION`; a record without a compact grouping
keeps ``"1.0"`` and its bytes.

Like the rest of :mod:`respai.record`, this module imports no statistics: it lays the
counts out and strips the rows; :mod:`respai.recompute` re-derives and checks them.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

__all__ = [
    "CELL_COLUMNS",
    "COMPACT_MIN_GROUPS",
    "COMPACT_SCHEMA_VERSION",
    "RANK_COLUMNS",
    "compact_grouping",
    "compact_groupings",
    "compact_tests",
    "is_compact",
]

COMPACT_MIN_GROUPS = 1000
"""A grouping with more declared groups than this is written as columns."""

COMPACT_SCHEMA_VERSION = "1.1"
"""The ``schema_version`` of a record with at least one compact grouping."""

CELL_COLUMNS = ("tp", "fp", "tn", "fn", "missing_prediction_label_1", "missing_prediction_label_0")
"""A group's six counts, the columns of a compact grouping (as ``Cell.to_dict`` names them)."""

RANK_COLUMNS = (
    "scored_labelled_1",
    "scored_labelled_0",
    "twice_u",
    "positive_placement_squares",
    "negative_placement_squares",
)
"""A group's rank sums, the columns of a compact grouping's ``rank_sums``."""


def is_compact(grouping: Mapping[str, Any]) -> bool:
    """Whether a record's ``counts.groupings`` entry is in the column layout."""
    return grouping.get("layout") == "columns"


def compact_grouping(
    attributes: Sequence[str],
    keys: Sequence[Sequence[str]],
    cells: Iterable[Any],
    left_out: Mapping[str, int],
    calibration: tuple[list[int], list[list[int]]] | None = None,
    ranks: Sequence[Any] | None = None,
) -> dict[str, Any]:
    """One grouping's counts as columns: no object per group.

    ``cells`` are the groups' count cells (with ``tp``, ``fp``, ``tn``, ``fn``,
    ``missing_pos``, ``missing_neg``) in the order of ``keys``; ``calibration`` their
    calibration as two columns (the cases without a probability, and the bins' cases,
    cases labelled 1 and probability sums flattened per group) and ``ranks`` their rank
    sums (``to_dict()``), in the same order, when the run has them.
    """
    cols: dict[str, list[int]] = {c: [] for c in CELL_COLUMNS}
    tp, fp, tn, fn = cols["tp"], cols["fp"], cols["tn"], cols["fn"]
    m1, m0 = cols["missing_prediction_label_1"], cols["missing_prediction_label_0"]
    for c in cells:
        tp.append(c.tp)
        fp.append(c.fp)
        tn.append(c.tn)
        fn.append(c.fn)
        m1.append(c.missing_pos)
        m0.append(c.missing_neg)
    entry: dict[str, Any] = {
        "attributes": list(attributes),
        "layout": "columns",
        "group_count": len(keys),
        "columns": {"key": [list(k) for k in keys], **cols},
        "left_out": dict(left_out),
    }
    if calibration is not None:
        without, bins = calibration
        entry["calibration_bins"] = {
            "without_probability": without,
            # per group, per bin: cases, labelled 1, sum of floor(p * 1e6), flattened
            "bins": bins,
        }
    if ranks is not None:
        parts = [r.to_dict() for r in ranks]
        entry["rank_sums"] = {name: [p[name] for p in parts] for name in RANK_COLUMNS}
    return entry


def compact_groupings(counts: Mapping[str, Any]) -> dict[str, int]:
    """The compact groupings of a record's ``counts``: name to number of groups."""
    groupings = counts.get("groupings") or {}
    if not isinstance(groupings, Mapping):
        return {}
    return {
        name: int(g.get("group_count", 0))
        for name, g in groupings.items()
        if isinstance(g, Mapping) and is_compact(g)
    }


def _pointer(name: str, groups: int) -> dict[str, Any]:
    return {
        "from": f"counts.groupings.{name}",
        "groups": groups,
        "note": "per-group rows are not written: derive each from these counts with the "
        "test's method and alpha (respai verify does)",
    }


def compact_tests(tests: Sequence[Mapping[str, Any]], compact: Mapping[str, int]) -> list[Any]:
    """The test records with their per-group rows over a compact grouping left out.

    A spread test or group rule over a compact grouping keeps everything but its
    ``details.groups`` rows (an empty list) and gains ``details.groups_derived`` (so do
    the ``parts`` of an equalized-odds rule, one rule per error rate); the AUC
    test's ``details.per_group.<name>`` becomes empty, with ``per_group_derived``. Test
    records over other groupings are returned as they are.
    """
    out: list[Any] = []
    for t in tests:
        grouping = t.get("grouping")
        details = t.get("details")
        if not isinstance(details, Mapping):
            out.append(t)
            continue
        name = " × ".join(grouping) if isinstance(grouping, list) else ""
        if name in compact and isinstance(details.get("groups"), list):
            new = dict(details)
            new["groups"] = []
            new["groups_derived"] = _pointer(name, compact[name])
            parts = details.get("parts")
            if isinstance(parts, list):  # equalized odds: each error rate's rule, the same way
                new["parts"] = [
                    {**p, "groups": [], "groups_derived": _pointer(name, compact[name])}
                    if isinstance(p, Mapping) and isinstance(p.get("groups"), list)
                    else p
                    for p in parts
                ]
            out.append({**t, "details": new})
            continue
        per_group = details.get("per_group")
        if isinstance(per_group, Mapping) and any(n in compact for n in per_group):
            new = dict(details)
            new["per_group"] = {n: ([] if n in compact else v) for n, v in per_group.items()}
            new["per_group_derived"] = {
                n: _pointer(n, compact[n]) for n in per_group if n in compact
            }
            out.append({**t, "details": new})
            continue
        out.append(t)
    return out
