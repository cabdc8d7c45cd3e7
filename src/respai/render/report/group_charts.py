"""The per-group charts of a test: rate spreads, group rules and AUC by group.

Each reads one kind of test details from the record and draws it with
:func:`respai.render.report.chart.dot_chart`, with a caption that says what the marks are.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from respai.battery import TestId
from respai.render.report.chart import ChartRow, dot_chart, interval_pair
from respai.render.report.fields import as_dict, as_list, as_str, is_number
from respai.render.report.values import count_text, number, plain

__all__ = ["auc_charts", "rule_chart", "spread_chart"]


def spread_chart(rec: Mapping[str, Any]) -> str:
    """The per-group rates of a rate-spread test (impact ratio, differences) as a chart.

    Each group has its rate, its 95% Wilson interval and its simultaneous interval; the
    dashed line is where the lowest group must be for the test to meet its threshold.

    Returns an empty string when the details hold no groups.
    """
    details = as_dict(rec.get("details"))
    groups = [as_dict(g) for g in as_list(details.get("groups"))]
    if not groups:
        return ""
    test_id = as_str(rec.get("test_id"))
    low, high = details.get("min_group"), details.get("max_group")
    rows = []
    level: object = None
    for g in groups:
        rate = g.get("rate")
        simultaneous = as_dict(g.get("interval_simultaneous"))
        level = simultaneous.get("confidence", level)
        name = as_str(g.get("group"), "?")
        rows.append(
            ChartRow(
                label=name,
                value=float(rate) if is_number(rate) else None,
                inner=interval_pair(g.get("interval_95")),
                outer=interval_pair(simultaneous),
                note=f"{count_text(g.get('numerator'))} / {count_text(g.get('denominator'))}",
                extreme=name in (low, high),
            )
        )
    rates = [r.value for r in rows if r.value is not None]
    threshold = as_dict(rec.get("threshold"))
    t, comparison = threshold.get("value"), threshold.get("comparison")
    limit: tuple[float, str] | None = None
    limit_note = ""
    if rates and is_number(t):
        top = max(rates)
        if test_id == TestId.IMPACT_RATIO and comparison == ">=":
            limit = (top * float(t), f"{plain(t)} × highest = {top * float(t):.4f}")
            limit_note = (
                f" The dashed line is {plain(t)} times the highest rate: the impact ratio "
                "meets its threshold when the lowest group is at or to the right of it."
            )
        elif comparison == "<=" and top - float(t) >= 0:
            limit = (top - float(t), f"highest − {plain(t)} = {top - float(t):.4f}")
            limit_note = (
                f" The dashed line is the highest rate minus {plain(t)}: the difference "
                "meets its threshold when the lowest group is at or to the right of it."
            )
    what = as_str(details.get("rate"), "rate")
    grouping = " × ".join(str(a) for a in as_list(rec.get("grouping")))
    conf = f"{float(level) * 100:.4g}%" if is_number(level) else "simultaneous"
    caption = (
        f"{what.capitalize()} by {grouping}, over cases with a prediction. Numbers on the "
        "right: the rate, then cases counted / cases it is over." + limit_note
    )
    return dot_chart(
        rows,
        title=f"{what} by {grouping}",
        caption=caption,
        legend=[
            ("dot", "rate"),
            ("open", "lowest and highest group"),
            ("bar", "95% Wilson interval"),
            ("whisker", f"simultaneous interval ({conf} each), which the test's bounds use"),
        ]
        + ([("limit", "the line the lowest group must reach")] if limit else []),
        limit=limit,
    )


def rule_chart(rec: Mapping[str, Any]) -> str:
    """A group rule's rate per group with its Clopper-Pearson interval, and the limit.

    Returns an empty string when the details hold no groups.
    """
    details = as_dict(rec.get("details"))
    groups = [as_dict(g) for g in as_list(details.get("groups"))]
    if not groups:
        return ""
    rows = []
    level: object = None
    for g in groups:
        rate = g.get("rate")
        iv = as_dict(g.get("interval"))
        level = iv.get("confidence", level)
        missing = g.get("missing_prediction")
        note = f"{count_text(g.get('events'))} / {count_text(g.get('with_prediction'))}"
        if isinstance(missing, int) and not isinstance(missing, bool) and missing:
            note += f" · {missing:,} no pred."
        if g.get("small_cell") is True:
            note += " · small cell"
        rows.append(
            ChartRow(
                label=as_str(g.get("group"), "?"),
                value=float(rate) if is_number(rate) else None,
                inner=interval_pair(iv),
                outer=None,
                note=note,
            )
        )
    threshold = as_dict(details.get("threshold")) or as_dict(rec.get("threshold"))
    limit: tuple[float, str] | None = None
    for key, word in (("worst_group_max", "maximum"), ("worst_group_min", "minimum")):
        if is_number(threshold.get(key)):
            limit = (float(threshold[key]), f"{word} {plain(threshold[key])}")
    rate_name = as_str(details.get("rate"), "rate").replace("_", " ")
    grouping = " × ".join(str(a) for a in as_list(rec.get("grouping")))
    conf = f"{float(level) * 100:.4g}%" if is_number(level) else "Clopper-Pearson"
    bounds = as_dict(details.get("gap_bounds"))
    gap = ""
    if is_number(bounds.get("lo")) and is_number(bounds.get("hi")):
        gap = (
            f" The largest gap between two groups lies between {number(bounds['lo'])} and "
            f"{number(bounds['hi'])}"
            + (
                f"; the rule allows {plain(threshold['max_group_gap'])}."
                if is_number(threshold.get("max_group_gap"))
                else "."
            )
        )
    caption = (
        f"{rate_name.capitalize()} rate by {grouping}. Bars: Clopper-Pearson intervals at "
        f"{conf} each (Bonferroni over the groups), with cases without a prediction counted "
        f"at their worst. Numbers on the right: the rate, then events / cases with a "
        f"prediction." + gap
    )
    return dot_chart(
        rows,
        title=f"{rate_name} rate by {grouping}",
        caption=caption,
        legend=[("dot", "rate"), ("bar", f"Clopper-Pearson interval ({conf} each)")]
        + ([("limit", "the rule's limit for every group")] if limit else []),
        limit=limit,
    )


def auc_charts(rec: Mapping[str, Any]) -> str:
    """One chart per grouping of the AUC by group, with the all-cases AUC first."""
    details = as_dict(rec.get("details"))
    per_group = as_dict(details.get("per_group"))
    threshold = as_dict(rec.get("threshold"))
    t = threshold.get("value")
    overall = as_dict(details.get("overall"))
    out = []
    for grouping, entries in per_group.items():
        rows = [
            ChartRow(
                label="all cases",
                value=float(overall["value"]) if is_number(overall.get("value")) else None,
                inner=interval_pair(overall.get("interval")),
                outer=None,
                note=f"{count_text(overall.get('positives'))} "
                f"pos. / {count_text(overall.get('negatives'))} neg.",
                extreme=True,
            )
        ]
        for g in (as_dict(x) for x in as_list(entries)):
            value = g.get("value")
            rows.append(
                ChartRow(
                    label=as_str(g.get("group"), "?"),
                    value=float(value) if is_number(value) else None,
                    inner=interval_pair(g.get("interval")),
                    outer=None,
                    note=f"{count_text(g.get('positives'))} pos. / "
                    f"{count_text(g.get('negatives'))} neg.",
                )
            )
        out.append(
            dot_chart(
                rows,
                title=f"AUC by {grouping}",
                caption=(
                    f"AUC by {grouping}, with 95% DeLong intervals; the open dot is the "
                    "whole file, which the verdict reads. Numbers on the right: the AUC, "
                    "then cases labelled 1 / labelled 0 with a score."
                ),
                legend=[
                    ("dot", "AUC of a group"),
                    ("open", "AUC of all cases"),
                    ("bar", "95% DeLong interval"),
                    ("limit", "threshold"),
                ],
                limit=(float(t), f"threshold {plain(t)}") if is_number(t) else None,
            )
        )
    return "".join(out)
