"""The per-group tables: each grouping's rates, as the record holds them, with their intervals.

The terminal's per-group table computes every rate (selection, TPR, FPR, FNR, error,
precision) from the counts; the signed record holds a rate with its interval only where a
test measured it: a rate-spread test of the battery (impact ratio, selection rate
difference, TPR difference) holds each group's rate with its 95% Wilson interval, and a
group rule its rate with the Clopper-Pearson interval it decides on. The page computes no
rate: a grouping's table has one column per rate the record holds for it (the first
battery test of each rate, then every group rule), so a rule on precision puts precision
in the table, and a rate no test or rule measured is not shown.

Every cell is bound to a group of one test's ``details.groups``. The page's script checks,
beyond each cell's text, that every cell of a row is the same group
(``table.per-group``: the ``group`` of each bound group object) and that every rate cell
comes from the test its column's heading names (:func:`group_tables`).
"""

from __future__ import annotations

from collections.abc import Sequence

from respai.battery import REGISTRY, DetailsKind, TestId
from respai.render.extremes import each_end, extremes
from respai.render.report.bind import At

__all__ = ["group_tables"]


def _is_spread(rec: At) -> bool:
    test_id = rec.get("test_id")
    entry = REGISTRY.get(test_id) if isinstance(test_id, str) else None
    return entry is not None and entry.details is DetailsKind.GROUP_RATES


def _columns(tests: Sequence[At]) -> dict[tuple[str, ...], list[tuple[At, str]]]:
    """Each grouping's rate columns: ``(test record, "wilson" | "rule")``, in record order.

    A battery rate (``details.rate``) is shown once per grouping, from the first test that
    holds it; every group rule has its own column.
    """
    found: dict[tuple[str, ...], list[tuple[At, str]]] = {}
    seen: set[tuple[tuple[str, ...], str]] = set()
    for rec in tests:
        grouping = rec.get("grouping")
        if not isinstance(grouping, list) or not all(isinstance(g, str) for g in grouping):
            continue
        if not rec["details"]["groups"].elements():
            continue
        key = tuple(grouping)
        if rec.get("test_id") == TestId.GROUP_RULE:
            found.setdefault(key, []).append((rec, "rule"))
        elif _is_spread(rec):
            rate = rec["details"].get("rate")
            if not isinstance(rate, str) or (key, rate) in seen:
                continue
            seen.add((key, rate))
            found.setdefault(key, []).append((rec, "wilson"))
    return found


def _label(group: At) -> str | None:
    label = group.get("group")
    return label if isinstance(label, str) else None


def _table(columns: list[tuple[At, str]]) -> str:
    """One grouping's table: a row per group, in the first column's order."""
    by_column: list[dict[str, At]] = []
    order: list[At] = []
    seen: set[str] = set()
    for rec, _ in columns:
        groups: dict[str, At] = {}
        for g in rec["details"]["groups"].elements():
            label = _label(g)
            if label is None or label in groups:
                continue
            groups[label] = g
            if label not in seen:
                seen.add(label)
                order.append(g)
        by_column.append(groups)
    each = each_end(len(order))
    if each:
        order = [order[i] for i in extremes([g.get("cases") for g in order], each)]
    spread = next((i for i, (_, kind) in enumerate(columns) if kind == "wilson"), None)
    heads = "".join(f"<th>{rec.show('group_column')}</th>" for rec, _ in columns)
    rows = []
    for first in order:
        label = _label(first)
        assert label is not None
        name = first["group"].show("text", tag="td")
        holder = by_column[spread].get(label) if spread is not None else None
        cases = (
            holder["cases"].show("count", tag="td", cls="num")
            if holder is not None
            else '<td class="num">—</td>'
        )
        cells = "".join(
            groups[label].show("rate_cell", tag="td", cls="interval")
            if label in groups
            else "<td>—</td>"
            for groups in by_column
        )
        rows.append(f"<tr>{name}{cases}{cells}</tr>")
    note = ""
    if each:
        source = columns[0][0]["details"]["groups"]
        note = f'<p class="small muted">{source.show("listed", str(each))}</p>'
    return (
        '<table class="per-group small"><thead><tr><th>Group</th><th class="num">Cases</th>'
        f"{heads}</tr></thead><tbody>{''.join(rows)}</tbody></table>{note}"
    )


def group_tables(tests: Sequence[At]) -> str:
    """Every grouping's per-group table, under one heading (HTML; empty without rates).

    Parameters
    ----------
    tests
        The test records, in chain order.

    Returns
    -------
    str
        A heading, a note on what the rates are, and one table per grouping that a
        rate-spread test or a group rule measured: the group, its cases (from the first
        battery test of the grouping; a dash when only rules measured it), then each rate
        with its numerator / denominator and interval. Each column's heading names the
        rate, its interval and the test it is from.
    """
    columns = _columns(tests)
    if not columns:
        return ""
    parts = [
        '<h2 id="groups">Per-group rates</h2>'
        '<p class="small muted">Each rate the record holds for a group, over cases with a '
        "prediction: the battery's rates with their 95% Wilson intervals, and each group "
        "rule's rate with the Clopper-Pearson interval it decides on. A rate that no test "
        "or rule measured is not in the record and is not shown.</p>"
    ]
    for cols in columns.values():
        first = cols[0][0]
        parts.append(f"<h3>{first['grouping'].show('items', tag='span')}</h3>")
        parts.append(_table(cols))
    return "".join(parts)
