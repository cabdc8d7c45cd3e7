"""Results in a notebook: the ``_repr_html_`` of a fairness result and of an evaluation.

A small HTML fragment (no script, no style sheet): the verdict and exit code, the battery
tests and the group rules with their values and verdicts. Every string from a spec, a
data file or a result goes through :func:`respai.render.escape.html_text`.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from respai.render.escape import html_text
from respai.render.gap import GAP_LABEL, gap_text

if TYPE_CHECKING:
    from respai.results import Evaluation, FairnessResult

__all__ = ["evaluation_html", "fairness_html"]


def _number(value: float | None) -> str:
    return "null" if value is None else f"{value:.4f}"


def _table(head: Sequence[str], rows: Iterable[Sequence[str]]) -> str:
    cells = "".join(f"<th>{html_text(h)}</th>" for h in head)
    body = "".join(
        "<tr>" + "".join(f"<td>{html_text(c)}</td>" for c in row) + "</tr>" for row in rows
    )
    return f"<table><thead><tr>{cells}</tr></thead><tbody>{body}</tbody></table>"


def _rules(res: FairnessResult) -> str:
    if not res.rules:
        return "<p>No group rule is declared.</p>"
    rows = []
    for r in res.rules:
        gap = gap_text(r.gap_bounds) or "—"  # the terminal's text; a floor rule has no gap
        rows.append(
            (r.rule.id, r.rule.rate.value, " × ".join(r.rule.attributes), gap, r.verdict.value)
        )
    return _table(("rule", "rate", "attribute", GAP_LABEL, "verdict"), rows)


def fairness_html(res: FairnessResult) -> str:
    """The notebook view of a :class:`~respai.results.FairnessResult`."""
    head = (
        f"<p><strong>{html_text(res.verdict.value)}</strong> (exit {res.exit_code}): "
        f"{res.counts.total} cases from {html_text(res.source)}</p>"
        f"<p>{html_text(res.spec.orientation_line)}</p>"
    )
    tables = ", ".join(html_text(name) for name in res.tables)
    return (
        f'<div class="respai-result">{head}{_rules(res)}'
        f"<p>Per-group tables: {tables} (<code>result.by_group()</code>).</p></div>"
    )


def _blocks_html(e: Evaluation) -> str:
    """The notebook view of a run without a ``fairness:`` block: each block's verdicts."""
    from respai.blocks import block_named

    rows = (
        (name, ", ".join(v.value for v in block_named(name).verdicts(result)) or "none")
        for name, result in e.blocks.items()
    )
    record = "" if e.sealed is None else f"<p>Record: {html_text(e.sealed.record_path)}</p>"
    return (
        f'<div class="respai-result"><p><strong>{html_text(e.verdict.value)}</strong> '
        f"(exit {e.exit_code}): {e.cases} cases; no fairness: block</p>"
        f"{_table(('block', 'verdicts'), rows)}{record}</div>"
    )


def evaluation_html(e: Evaluation) -> str:
    """The notebook view of an :class:`~respai.results.Evaluation`."""
    if not e.has_fairness:  # regression:, ranking: ... alone: each block's verdicts
        return _blocks_html(e)
    head = (
        f"<p><strong>{html_text(e.verdict.value)}</strong> (exit {e.exit_code}): "
        f"{e.counts.total} cases</p>"
        f"<p>{html_text(e.fairness.spec.orientation_line)}</p>"
    )
    battery = _table(
        ("test", "value", "interval", "verdict"),
        (
            (
                t.key,
                _number(t.value),
                "null" if t.interval is None else f"[{t.interval.lo:.4f}, {t.interval.hi:.4f}]",
                t.verdict.value,
            )
            for t in e.battery
        ),
    )
    record = "" if e.sealed is None else f"<p>Record: {html_text(e.sealed.record_path)}</p>"
    return (
        f'<div class="respai-result">{head}{battery}{_rules(e.fairness)}{record}'
        f"<p>Per-group tables: <code>result.by_group()</code>.</p></div>"
    )
