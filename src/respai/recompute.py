"""Re-derive a compact record's per-group numbers from its counts, and check what it states.

A record with a compact grouping (``schema_version`` 1.1, :mod:`respai.record.compact`)
writes that grouping's counts once, as columns, and leaves each group's rates and
intervals out of its test records. :func:`check_compact` is what ``respai verify`` runs on
such a record: the columns are whole (every column as long as the keys, non-negative
integers, distinct keys, the groups' cases plus the left-out ones equal to the record's
cases), and the summaries the test records state over the grouping are recomputed from
the counts with the rate, alpha and min_cell the record states: each group rule's upper
gap bound (Clopper-Pearson at the rule's ``alpha_per_group``, cases without a decision
at their worst, the largest ``hi_i - lo_j`` over distinct groups) and its small cells
(for an equalized-odds rule, those of each of its two parts), and each spread test's
lowest and highest group and small cells. A record signed with
a wrong summary, or with counts that do not give the summaries it states, fails here
even though its signature holds.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from respai.record.compact import CELL_COLUMNS, compact_groupings

__all__ = ["TOLERANCE", "CompactCheck", "check_compact", "derived_rates"]

TOLERANCE = 1e-9
"""How far a stated bound may be from the one derived here (the same in the browser's check)."""


@dataclass(frozen=True)
class CompactCheck:
    """The outcome: ``ok``, a one-line ``detail``, and every problem found."""

    ok: bool
    detail: str
    problems: tuple[str, ...] = ()


def _int_column(values: object, length: int, where: str, problems: list[str]) -> list[int]:
    if not isinstance(values, list) or len(values) != length:
        problems.append(f"{where}: not a list of {length} values")
        return []
    if not all(type(v) is int and v >= 0 for v in values):
        problems.append(f"{where}: not all non-negative integers")
        return []
    return values


def derived_rates(
    columns: Mapping[str, Sequence[int]], rate_key: str
) -> tuple[list[int], list[int], list[int]]:
    """Each group's ``(events, decided cases, cases without a decision)`` for a rate.

    ``rate_key`` is a key of :data:`respai.metrics.RATES` (``"selection"``, ``"tpr"``,
    ...); the counts are a compact grouping's columns.
    """
    from respai.counts import Cell
    from respai.metrics import RATES

    rate = RATES[rate_key]
    events, decided, missing = [], [], []
    names = ("tp", "fp", "tn", "fn", "missing_pos", "missing_neg")
    for row in zip(*(columns[c] for c in CELL_COLUMNS), strict=True):
        cell = Cell(**dict(zip(names, row, strict=True)))
        k, n = rate.fraction(cell)
        events.append(k)
        decided.append(n)
        missing.append(rate.missing_count(cell))
    return events, decided, missing


def _rate_key(name: object) -> str | None:
    from respai.metrics import RATES

    if isinstance(name, str) and name in RATES:
        return name
    return next((k for k, r in RATES.items() if r.name == name), None)


def _upper_gap(events: list[int], decided: list[int], missing: list[int], alpha: float) -> float:
    """``max_{i != j} hi_i - lo_j`` of the widened Clopper-Pearson intervals, vectorised."""
    import numpy as np

    from respai.special import ufunc

    betainccinv = ufunc("betainccinv")
    betaincinv = ufunc("betaincinv")

    k = np.asarray(events, dtype=np.float64)
    m = np.asarray(missing, dtype=np.float64)
    n = np.asarray(decided, dtype=np.float64) + m
    lo = np.zeros_like(k)
    hi = np.ones_like(k)
    some = n > 0
    low = some & (k > 0)
    lo[low] = betaincinv(k[low], n[low] - k[low] + 1, alpha / 2.0)
    top = k + m
    up = some & (top < n)
    hi[up] = betainccinv(top[up] + 1, n[up] - top[up], alpha / 2.0)
    i_hi = int(np.argmax(hi))
    best = -math.inf
    for i in (i_hi, *np.argsort(hi)[-2:].tolist()):
        others = np.delete(lo, i)
        best = max(best, float(hi[i] - others.min()))
    return best


def _labels(keys: list[Any]) -> list[str]:
    return [" × ".join(str(v) for v in k) for k in keys]


def _check_test(
    rec: Mapping[str, Any],
    columns: Mapping[str, Sequence[int]],
    labels: list[str],
    problems: list[str],
) -> int:
    """Check one test record's stated summaries against the counts; how many were checked.

    An equalized-odds rule states its summaries in its ``parts`` (one rule per error
    rate), each checked as a group rule of its own.
    """
    details = rec.get("details") or {}
    where = f"test {rec.get('test_key')}"
    parts = details.get("parts")
    checked = 0
    if isinstance(parts, list):
        for part in parts:
            if isinstance(part, Mapping):
                named = f"{where} ({part.get('rate')})"
                checked += _check_details(
                    rec.get("test_id"), named, part, columns, labels, problems
                )
    return checked + _check_details(rec.get("test_id"), where, details, columns, labels, problems)


def _check_details(
    test_id: object,
    where: str,
    details: Mapping[str, Any],
    columns: Mapping[str, Sequence[int]],
    labels: list[str],
    problems: list[str],
) -> int:
    """Check the summaries one test (or one part of a rule) states; how many were checked."""
    key = _rate_key(details.get("rate"))
    if key is None:  # equalized_odds itself: its parts state the summaries
        return 0
    events, decided, missing = derived_rates(columns, key)
    checked = 0
    min_cell = details.get("min_cell")
    if isinstance(min_cell, int):
        small = [lab for lab, n in zip(labels, decided, strict=True) if n < max(min_cell, 1)]
        stated = details.get("small_cells")
        names = [s.get("group") if isinstance(s, Mapping) else s for s in stated or []]
        if names != small:
            problems.append(
                f"{where}: small_cells lists {len(names)} group(s), the counts give "
                f"{len(small)} under min_cell {min_cell}"
            )
        checked += 1
    if "min_group" in details and all(n > 0 for n in decided):
        rates = [Fraction(k, n) for k, n in zip(events, decided, strict=True)]
        lowest, highest = labels[rates.index(min(rates))], labels[rates.index(max(rates))]
        for name, want in (("min_group", lowest), ("max_group", highest)):
            if details.get(name) != want:
                problems.append(
                    f"{where}: {name} is {details.get(name)!r}, the counts give {want!r}"
                )
        checked += 1
    bounds = details.get("gap_bounds")
    alpha = details.get("alpha_per_group")
    if (
        test_id == "group_rule"
        and isinstance(bounds, Mapping)
        and isinstance(alpha, float | int)
        and details.get("method", "simultaneous") == "simultaneous"
        and details.get("reference") is None
        and len(labels) >= 2
    ):
        upper = _upper_gap(events, decided, missing, float(alpha))
        stated_hi = bounds.get("hi")
        if not isinstance(stated_hi, float | int) or abs(stated_hi - upper) > TOLERANCE:
            problems.append(
                f"{where}: gap_bounds.hi is {stated_hi!r}, the counts give {upper!r} "
                f"(Clopper-Pearson at {alpha} per group, missing decisions at their worst)"
            )
        checked += 1
    return checked


def check_compact(predicate: Mapping[str, Any]) -> CompactCheck | None:
    """Check a record's compact groupings; ``None`` when it has none."""
    counts = predicate.get("counts")
    if not isinstance(counts, Mapping):
        return None
    compact = compact_groupings(counts)
    if not compact:
        return None
    problems: list[str] = []
    summaries = 0
    total = 0
    for name, groups in compact.items():
        entry = counts["groupings"][name]
        columns = entry.get("columns")
        where = f"counts.groupings.{name}"
        if not isinstance(columns, Mapping):
            problems.append(f"{where}.columns: missing")
            continue
        keys = columns.get("key")
        if not isinstance(keys, list) or len(keys) != groups:
            problems.append(f"{where}.columns.key: not a list of {groups} keys")
            continue
        attributes = entry.get("attributes") or []
        if not all(isinstance(k, list) and len(k) == len(attributes) for k in keys):
            problems.append(f"{where}.columns.key: a key does not name one value per attribute")
            continue
        labels = _labels(keys)
        if len(set(labels)) != len(labels):
            problems.append(f"{where}.columns.key: a group is listed twice")
        cols = {
            c: _int_column(columns.get(c), groups, f"{where}.columns.{c}", problems)
            for c in CELL_COLUMNS
        }
        if any(not v and groups for v in cols.values()):
            continue
        left = entry.get("left_out") or {}
        in_groups = sum(sum(v) for v in cols.values())
        total_left = sum(v for v in left.values() if type(v) is int)
        if in_groups + total_left != counts.get("cases"):
            problems.append(
                f"{where}: the groups' {in_groups:,} cases and {total_left:,} left out do not "
                f"add up to the record's {counts.get('cases')!r} cases"
            )
        total += groups
        for rec in predicate.get("records") or []:
            if not isinstance(rec, Mapping) or rec.get("record_type") != "test":
                continue
            derived = (rec.get("details") or {}).get("groups_derived")
            if isinstance(derived, Mapping) and derived.get("from") == where:
                if derived.get("groups") != groups:
                    problems.append(
                        f"test {rec.get('test_key')}: groups_derived says "
                        f"{derived.get('groups')!r} groups, {where} has {groups}"
                    )
                summaries += _check_test(rec, cols, labels, problems)
    if problems:
        shown = "; ".join(problems[:5]) + (
            f"; and {len(problems) - 5} more" if len(problems) > 5 else ""
        )
        return CompactCheck(False, shown, tuple(problems))
    return CompactCheck(
        True,
        f"{len(compact)} compact grouping(s), {total:,} groups: the columns are whole and "
        f"{summaries} stated summaries equal what the counts give",
    )
