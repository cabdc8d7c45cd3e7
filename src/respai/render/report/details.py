"""What each kind of test details adds below its test: charts, counts, a rule's settings.

The battery's registry names the details kind of every test id; :data:`_EXTRAS` maps the
kind to its renderer, so a new kind of details needs one entry here.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from respai.battery import REGISTRY, DetailsKind, TestId
from respai.render.escape import html_text
from respai.render.report.fields import as_dict, as_list, as_str, is_number
from respai.render.report.group_charts import auc_charts, rule_chart, spread_chart
from respai.render.report.values import count_text, plain, significant

__all__ = ["details_extras", "rule_rows"]


def rule_rows(rec: Mapping[str, Any]) -> list[tuple[str, str]]:
    """A group rule's own settings: rate, groups, error budget, minimum cell, left out."""
    details = as_dict(rec.get("details"))
    left = as_dict(details.get("left_out"))
    reasons = as_dict(left.get("by_reason"))
    left_text = (
        f"{count_text(left.get('total'))} case(s)"
        + (
            f" ({float(left['share']) * 100:.1f}% of the file)"
            if is_number(left.get("share"))
            else ""
        )
        + (
            ": " + "; ".join(f"{html_text(k)}: {count_text(v)}" for k, v in reasons.items())
            if reasons
            else ""
        )
    )
    small = [
        f"{as_str(as_dict(c).get('group'), '?')} ({count_text(as_dict(c).get('with_prediction'))} "
        "with a prediction)"
        for c in as_list(details.get("small_cells"))
    ]
    rows = [
        ("Rate", html_text(as_str(details.get("rate"), "—").replace("_", " "))),
        ("Groups", html_text(" × ".join(str(a) for a in as_list(details.get("attribute"))))),
        (
            "Error budget",
            html_text(
                f"alpha {plain(details.get('alpha'))}, "
                f"{significant(details.get('alpha_per_group'))} per group"
            ),
        ),
        ("Minimum cell", html_text(f"{plain(details.get('min_cell'))} cases")),
        ("Left out", left_text),
    ]
    if small:
        rows.append(("Small cells", html_text(", ".join(small))))
    return rows


def _auc_extras(rec: Mapping[str, Any]) -> str:
    details = as_dict(rec.get("details"))
    overall = as_dict(details.get("overall"))
    line = (
        f"{count_text(overall.get('positives'))} cases labelled 1 and "
        f"{count_text(overall.get('negatives'))} labelled 0; "
        f"{count_text(details.get('cases_without_score'))} without a score."
    )
    return f'<p class="small muted">{html_text(line)}</p>' + auc_charts(rec)


def _matches_extras(rec: Mapping[str, Any]) -> str:
    details = as_dict(rec.get("details"))
    line = (
        f"{count_text(details.get('correct'))} of {count_text(details.get('with_prediction'))}"
        " cases with a prediction match the label; "
        f"{count_text(details.get('missing_prediction'))} case(s) have no prediction."
    )
    return f'<p class="small muted">{html_text(line)}</p>'


def _labels_extras(rec: Mapping[str, Any]) -> str:
    details = as_dict(rec.get("details"))
    line = (
        f"{count_text(details.get('labelled_1'))} cases labelled 1, "
        f"{count_text(details.get('labelled_0'))} labelled 0."
    )
    return f'<p class="small muted">{html_text(line)}</p>'


def _cells_extras(rec: Mapping[str, Any]) -> str:
    details = as_dict(rec.get("details"))
    cols = as_dict(details.get("empty_by_column"))
    body = "".join(
        f'<tr><td class="mono">{html_text(k)}</td><td class="num">{count_text(v)}</td></tr>'
        for k, v in cols.items()
    )
    line = (
        f"{count_text(details.get('empty_cells'))} empty of {count_text(details.get('cells'))}"
        f" cells over {count_text(details.get('columns'))} columns."
    )
    table = (
        '<table class="small compact"><thead><tr><th>Column</th>'
        '<th class="num">Empty cells</th>'
        f"</tr></thead><tbody>{body}</tbody></table>"
        if body
        else ""
    )
    return f'<p class="small muted">{html_text(line)}</p>{table}'


#: How each kind of battery details is shown below its test (the registry names the kind).
_EXTRAS: Mapping[DetailsKind, Callable[[Mapping[str, Any]], str]] = {
    DetailsKind.GROUP_RATES: spread_chart,
    DetailsKind.RANKS: _auc_extras,
    DetailsKind.MATCHES: _matches_extras,
    DetailsKind.LABELS: _labels_extras,
    DetailsKind.CELLS: _cells_extras,
}


def details_extras(rec: Mapping[str, Any]) -> str:
    """What goes below a test's facts: its chart or counts, by the kind of its details.

    A group rule gets its rule chart; any other test id the renderer of the details kind
    the registry names for it; an id the registry does not know gets nothing.
    """
    test_id = as_str(rec.get("test_id"))
    if test_id == TestId.GROUP_RULE:
        return rule_chart(rec)
    entry = REGISTRY.get(test_id)
    show = _EXTRAS.get(entry.details) if entry is not None else None
    return show(rec) if show is not None else ""
