"""What each kind of test details adds below its test: charts, counts, a rule's settings.

The battery's registry names the details kind of every test id; :data:`_EXTRAS` maps the
kind to its renderer, so a new kind of details needs one entry here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from respai.battery import REGISTRY, DetailsKind, TestId
from respai.render.report.bind import At
from respai.render.report.group_charts import auc_charts, rule_chart, spread_chart

__all__ = ["details_extras", "rule_rows"]


def rule_rows(rec: At) -> list[tuple[str, str]]:
    """A group rule's own settings: rate, groups, error budget, minimum cell, left out."""
    details = rec["details"]
    rows = [
        ("Rate", details["rate"].show("rate_name")),
        ("Groups", details["attribute"].show("items")),
        ("Error budget", details.show("error_budget")),
        ("Minimum cell", f"{details['min_cell'].show('plain')} cases"),
        ("Left out", details["left_out"].show("left_out")),
    ]
    if details["small_cells"].elements():
        rows.append(("Small cells", details["small_cells"].show("small_cells")))
    if details.has("weights"):  # data.weight: the rule was decided on the weighted rates
        rows.append(("Weighted rates", _weighted_groups(details)))
    return rows


def _weighted_groups(details: At) -> str:
    """Each group's weighted rate, interval and effective size, every number bound."""
    body = "".join(
        "<tr>"
        f"{group['group'].show(tag='td')}"
        f"{group['weighted']['rate'].show('number', '3', tag='td', cls='num')}"
        f"{group['weighted'].show('interval_cell', tag='td', cls='num')}"
        f"{group['weighted']['n_eff'].show('number', '1', tag='td', cls='num')}"
        f"{group['cases'].show('count', tag='td', cls='num')}"
        "</tr>"
        for group in details["groups"].elements()
    )
    return (
        '<table class="small compact"><thead><tr><th>Group</th><th class="num">Weighted rate'
        '</th><th class="num">Interval</th><th class="num">Effective size</th>'
        f'<th class="num">Cases</th></tr></thead><tbody>{body}</tbody></table>'
        f"{details['weights']['conditions'].show(tag='p', cls='small muted')}"
    )


def _line(body: str) -> str:
    return f'<p class="small muted">{body}</p>'


def _auc_extras(rec: At) -> str:
    details = rec["details"]
    overall = details["overall"]
    line = (
        f"{overall['positives'].show('count')} cases labelled 1 and "
        f"{overall['negatives'].show('count')} labelled 0; "
        f"{details['cases_without_score'].show('count')} without a score."
    )
    return _line(line) + auc_charts(rec)


def _matches_extras(rec: At) -> str:
    details = rec["details"]
    return _line(
        f"{details['correct'].show('count')} of {details['with_prediction'].show('count')}"
        " cases with a prediction match the label; "
        f"{details['missing_prediction'].show('count')} case(s) have no prediction."
    )


def _labels_extras(rec: At) -> str:
    details = rec["details"]
    return _line(
        f"{details['labelled_1'].show('count')} cases labelled 1, "
        f"{details['labelled_0'].show('count')} labelled 0."
    )


def _cells_extras(rec: At) -> str:
    details = rec["details"]
    body = "".join(
        f'<tr>{v.show_key(tag="td", cls="mono")}<td class="num">{v.show("count")}</td></tr>'
        for _, v in details["empty_by_column"].items()
    )
    line = _line(
        f"{details['empty_cells'].show('count')} empty of {details['cells'].show('count')}"
        f" cells over {details['columns'].show('count')} columns."
    )
    table = (
        '<table class="small compact"><thead><tr><th>Column</th>'
        '<th class="num">Empty cells</th>'
        f"</tr></thead><tbody>{body}</tbody></table>"
        if body
        else ""
    )
    return line + table


#: How each kind of battery details is shown below its test (the registry names the kind).
_EXTRAS: Mapping[DetailsKind, Callable[[At], str]] = {
    DetailsKind.GROUP_RATES: spread_chart,
    DetailsKind.RANKS: _auc_extras,
    DetailsKind.MATCHES: _matches_extras,
    DetailsKind.LABELS: _labels_extras,
    DetailsKind.CELLS: _cells_extras,
}


def details_extras(rec: At) -> str:
    """What goes below a test's facts: its chart or counts, by the kind of its details.

    A group rule gets its rule chart; any other test id the renderer of the details kind
    the registry names for it; an id the registry does not know gets nothing.
    """
    test_id = rec.get("test_id")
    if test_id == TestId.GROUP_RULE:
        return rule_chart(rec)
    entry = REGISTRY.get(test_id) if isinstance(test_id, str) else None
    show = _EXTRAS.get(entry.details) if entry is not None else None
    return show(rec) if show is not None else ""
