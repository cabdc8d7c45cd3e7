"""The per-group charts of a test: rate spreads, group rules and AUC by group.

Each reads one kind of test details from the record and draws it with
:func:`respai.render.report.chart.dot_chart`, with a caption that says what the marks are;
every text is bound to the record through :mod:`respai.render.report.formats`.
"""

from __future__ import annotations

from respai.render.extremes import each_end, extremes
from respai.render.report.bind import At
from respai.render.report.chart import ChartRow, dot_chart
from respai.render.report.fields import is_number
from respai.render.report.formats import rule_limit, spread_limit

__all__ = ["auc_charts", "rule_chart", "spread_chart"]


def _capped(entries: list[At], key: str) -> tuple[list[At], int]:
    """The groups a chart draws and how many lowest and highest (0: all of them)."""
    each = each_end(len(entries))
    if not each:
        return entries, 0
    return [entries[i] for i in extremes([e.get(key) for e in entries], each)], each


def _drawn_note(groups: At, each: int) -> str:
    """The bound sentence under a chart that leaves groups out, or nothing."""
    return " " + groups.show("drawn", str(each)) if each else ""


def spread_chart(rec: At) -> str:
    """The per-group rates of a rate-spread test (impact ratio, differences) as a chart.

    Each group has its rate, its 95% Wilson interval and its simultaneous interval; the
    dashed line is where the lowest group must be for the test to meet its threshold.

    Returns an empty string when the details hold no groups.
    """
    details = rec["details"]
    groups, each = _capped(details["groups"].elements(), "rate")
    if not groups:
        return ""
    low, high = details.get("min_group"), details.get("max_group")
    rows = [
        ChartRow(
            row=g,
            label=g["group"],
            value=g["rate"],
            inner=g["interval_95"],
            outer=g["interval_simultaneous"],
            note=(g, "n_over_d", None),
            extreme=g.get("group") in (low, high) and isinstance(g.get("group"), str),
        )
        for g in groups
    ]
    found = spread_limit(rec.mapping())
    level = details.show("spread_level")
    return dot_chart(
        rows,
        title=rec.show("spread_title", tag="title"),
        caption=rec.show("spread_caption") + _drawn_note(details["groups"], each),
        legend=[
            ("dot", "rate"),
            ("open", "lowest and highest group"),
            ("bar", "95% Wilson interval"),
            ("whisker", f"simultaneous interval ({level} each), which the test's bounds use"),
        ]
        + ([("limit", "the line the lowest group must reach")] if found else []),
        limit=(found[0], rec, "spread_limit") if found else None,
    )


def rule_chart(rec: At) -> str:
    """A group rule's rate per group with its Clopper-Pearson interval, and the limit.

    Returns an empty string when the details hold no groups.
    """
    details = rec["details"]
    groups, each = _capped(details["groups"].elements(), "rate")
    if not groups:
        return ""
    rows = [
        ChartRow(
            row=g,
            label=g["group"],
            value=g["rate"],
            inner=g["interval"],
            outer=None,
            note=(g, "rule_note", None),
        )
        for g in groups
    ]
    found = rule_limit(rec.mapping())
    level = details.show("rule_level")
    return dot_chart(
        rows,
        title=rec.show("rule_title", tag="title"),
        caption=rec.show("rule_caption") + _drawn_note(details["groups"], each),
        legend=[("dot", "rate"), ("bar", f"Clopper-Pearson interval ({level} each)")]
        + ([("limit", "the rule's limit for every group")] if found else []),
        limit=(found[0], rec, "rule_limit") if found else None,
    )


def auc_charts(rec: At) -> str:
    """One chart per grouping of the AUC by group, with the all-cases AUC first."""
    details = rec["details"]
    threshold = rec["threshold"]["value"]
    overall = details["overall"]
    out = []
    for _, entries in details["per_group"].items():  # noqa: PERF102 (At.items)
        groups, each = _capped(entries.elements(), "value")
        rows = [
            ChartRow(
                row=overall,
                label="all cases",
                value=overall["value"],
                inner=overall["interval"],
                outer=None,
                note=(overall, "pos_neg", None),
                extreme=True,
            )
        ]
        rows.extend(
            ChartRow(
                row=g,
                label=g["group"],
                value=g["value"],
                inner=g["interval"],
                outer=None,
                note=(g, "pos_neg", None),
            )
            for g in groups
        )
        out.append(
            dot_chart(
                rows,
                title=entries.show_key("auc_title", tag="title"),
                caption=entries.show_key("auc_caption") + _drawn_note(entries, each),
                legend=[
                    ("dot", "AUC of a group"),
                    ("open", "AUC of all cases"),
                    ("bar", "95% interval"),
                    ("limit", "threshold"),
                ],
                limit=(float(threshold.value), threshold, "auc_limit")
                if is_number(threshold.value)
                else None,
            )
        )
    return "".join(out)
