"""The per-group tables: every grouping's groups with all six rates, from the signed counts.

The record holds each group's confusion counts (``predicate.counts.groupings``); the
table shows, for every grouping the run counted and each of its groups, the cases, how
many have a prediction and how many do not, then every rate of the terminal's per-group
table (selection, TPR, FPR, FNR, error, precision, :data:`respai.tables.METRICS`) with
its numerator / denominator and 95% Wilson interval, or ``undefined`` with the reason
when no case is in its denominator: the same text the terminal prints
(:mod:`respai.render.report.group_rates`).

Every cell is bound to its group's counts object, with the format ``table_count`` or
``table_rate`` and the column's key as argument, so the page's script recomputes each
cell from the signed counts. It also checks the table's shape (``groupTableProblems`` in
``report_assets/bind.js``): the headings are the columns in order, each cell of a column
has that column's format and key, every cell of a row is one group of the table's
grouping, the rows are every group (or those at each end that the note names), and every
grouping the record counts has its table.
"""

from __future__ import annotations

from respai.render.extremes import each_end, extremes
from respai.render.report.bind import At
from respai.render.report.group_rates import COLUMN_HEADINGS, COUNT_COLUMNS, cell_of
from respai.tables import METRICS

__all__ = ["group_tables"]

_NOTE = (
    "Every group of every grouping the run counted, from the signed counts: its cases, "
    "how many have a prediction and how many do not, then each rate over the cases with a "
    "prediction, as value numerator/denominator [95% Wilson interval], the same text as "
    "the terminal's per-group table. A rate whose denominator is 0 is undefined, with the "
    "reason. The page recomputes every cell from the counts in the signed record."
)


def _cases(group: At) -> int | None:
    cell = cell_of(group.value)
    return None if cell is None else cell.n


def _table(grouping: At) -> str:
    """One grouping's table: a row per group (those at each end when there are many)."""
    groups = grouping["groups"].elements()
    each = each_end(len(groups))
    if each:
        groups = [groups[i] for i in extremes([_cases(g) for g in groups], each)]
    heads = "".join(
        f'<th class="num">{h}</th>' if 0 < i <= len(COUNT_COLUMNS) else f"<th>{h}</th>"
        for i, h in enumerate(COLUMN_HEADINGS)
    )
    rows = []
    for g in groups:
        cells = [g["key"].show("items", tag="td")]
        cells += [g.show("table_count", key, tag="td", cls="num") for key in COUNT_COLUMNS]
        cells += [g.show("table_rate", key, tag="td", cls="interval") for key in METRICS]
        rows.append(f"<tr>{''.join(cells)}</tr>")
    note = ""
    if each:
        note = f'<p class="small muted">{grouping["groups"].show("listed", str(each))}</p>'
    return (
        f'<table class="per-group small"><thead><tr>{heads}</tr></thead>'
        f"<tbody>{''.join(rows)}</tbody></table>{note}"
    )


def group_tables(predicate: At) -> str:
    """Every grouping's per-group table, under one heading (HTML; empty without counts).

    Parameters
    ----------
    predicate
        The record's predicate; the tables read ``counts.groupings``.

    Returns
    -------
    str
        A heading, a note on what the cells are, and for each grouping of the record's
        counts (in the record's order) its name and its table.
    """
    groupings = [
        g
        for _, g in predicate["counts"]["groupings"].items()
        if isinstance(g.value, dict) and g["groups"].elements()
    ]
    if not groupings:
        return ""
    parts = [f'<h2 id="groups">Per-group rates</h2><p class="small muted">{_NOTE}</p>']
    for g in groupings:
        parts.append(f"<h3>{g['attributes'].show('items', tag='span')}</h3>")
        parts.append(_table(g))
    return "".join(parts)
