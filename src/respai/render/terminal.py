"""The terminal summary of a fairness run, drawn with Rich.

The console is created with markup, emoji and highlighting off: group names and column
names are data and are shown exactly as they are (control characters never reach this
point; the load gate refuses them).
"""

from __future__ import annotations

from typing import IO

from rich.console import Console
from rich.table import Table
from rich.text import Text

from respai.evaluate import Evaluation
from respai.fairness import FairnessResult
from respai.rules import RuleResult
from respai.tables import METRICS, GroupRow, Measure
from respai.types import Interval, Verdict

__all__ = ["print_fairness", "render_evaluation", "render_fairness"]

_STYLE = {
    Verdict.PASS: "bold green",
    Verdict.FAIL: "bold red",
    Verdict.INSUFFICIENT_EVIDENCE: "bold yellow",
    Verdict.MANUAL_REVIEW: "bold cyan",
}
#: The per-group table's short column names, from the metric registry.
_SHORT = {key: rate.short for key, rate in METRICS.items()}


def _iv(iv: Interval | None) -> str:
    return "—" if iv is None else f"[{iv.lo:.3f}, {iv.hi:.3f}]"


def _rate(x: float | None) -> str:
    return "—" if x is None else f"{x:.3f}"


def _verdict(v: Verdict) -> Text:
    return Text(v.value, style=_STYLE[v])


def _rule_table(r: RuleResult) -> Table:
    table = Table(show_edge=False, pad_edge=False, box=None, header_style="bold")
    for col, justify in (
        ("group", "left"),
        ("n", "right"),
        ("events", "right"),
        ("no pred.", "right"),
        ("rate", "right"),
        (f"interval ({1 - r.alpha_per_group:.4g} each)", "left"),
        ("", "left"),
    ):
        table.add_column(col, justify=justify)  # type: ignore[arg-type]
    for g in r.groups:
        note = (
            Text(f"INSUFFICIENT_EVIDENCE: under min_cell {r.min_cell}", style="yellow")
            if g.small
            else Text("")
        )
        table.add_row(
            g.label,
            str(g.cases),
            str(g.events),
            str(g.missing),
            _rate(g.rate),
            _iv(g.interval),
            note,
        )
    return table


def _measure(m: Measure) -> str:
    if m.value is None:
        return f"— (0/{m.denominator})"
    return f"{m.value:.3f} {m.numerator}/{m.denominator} {_iv(m.interval)}"


def _long_group_table(title: str, rows: tuple[GroupRow, ...]) -> Table:
    """One line per group and rate: fits an 80-column terminal."""
    table = Table(
        title=title,
        title_justify="left",
        show_edge=False,
        box=None,
        header_style="bold",
        pad_edge=False,
    )
    for col, justify in (
        ("group", "left"),
        ("count", "right"),
        ("no pred.", "right"),
        ("rate", "left"),
        ("value", "right"),
        ("num/den", "right"),
        ("95% Wilson", "left"),
    ):
        table.add_column(col, justify=justify)  # type: ignore[arg-type]
    for row in rows:
        for i, (metric, short) in enumerate(_SHORT.items()):
            m = row.metrics[metric]
            table.add_row(
                row.label if i == 0 else "",
                str(row.count) if i == 0 else "",
                str(row.missing_prediction) if i == 0 else "",
                short,
                _rate(m.value),
                f"{m.numerator}/{m.denominator}",
                _iv(m.interval),
            )
    return table


def _group_table(name: str, rows: tuple[GroupRow, ...], left_out: int, width: int) -> Table:
    title = f"{name}: per-group table (rates over cases with a prediction, 95% Wilson)"
    if left_out:
        title += f"; {left_out} case(s) not in a declared group"
    if width < 150:
        return _long_group_table(title, rows)
    table = Table(
        title=title,
        title_justify="left",
        show_edge=False,
        box=None,
        header_style="bold",
        pad_edge=False,
    )
    table.add_column("group")
    table.add_column("count", justify="right")
    table.add_column("no pred.", justify="right")
    for short in _SHORT.values():
        table.add_column(short)
    for row in rows:
        table.add_row(
            row.label,
            str(row.count),
            str(row.missing_prediction),
            *(_measure(row.metrics[m]) for m in _SHORT),
        )
    return table


def render_fairness(result: FairnessResult, console: Console) -> None:
    """Draw the fairness summary: rules first, then tables, calibration, assumptions."""
    spec = result.spec
    console.print(
        Text.assemble(
            ("respai fairness", "bold"),
            f" · {spec.name} · ",
            f"{result.counts.total} cases from {result.source}",
        )
    )
    console.print(
        Text.assemble("verdict: ", _verdict(result.verdict), f" (exit {result.exit_code})")
    )
    if not result.rules:
        console.print(Text("No rule is declared: nothing can PASS.", style="yellow"))
    for r in result.rules:
        console.print()
        head = Text.assemble(
            _verdict(r.verdict),
            "  ",
            (r.rule.id, "bold"),
            f"  {r.rule.rate.value} rate by {r.rule.group_label}, ",
        )
        if r.rule.max_group_gap is not None:
            head.append(f"max_group_gap {r.rule.max_group_gap}")
        elif r.rule.worst_min is not None:
            head.append(f"worst_group min {r.rule.worst_min}")
        else:
            head.append(f"worst_group max {r.rule.worst_max}")
        if r.rule.threshold_source != "spec":
            head.append(f" (from {r.rule.threshold_source})")
        console.print(head)
        console.print(Text(f"  why: {r.reason}."))
        left = sum(r.left_out.values())
        if left:
            reasons = ", ".join(f"{k}: {v}" for k, v in r.left_out.items())
            console.print(
                Text(
                    f"  left out: {left} ({r.left_out_share:.1%}; limit "
                    f"{r.max_left_out:.0%}) — {reasons}"
                )
            )
        else:
            console.print(Text("  left out: none"))
        console.print(_rule_table(r))
    for grouping in result.counts.groupings.values():
        console.print()
        console.print(
            _group_table(
                grouping.name, result.tables[grouping.name], grouping.left_out_total, console.width
            )
        )
    if result.calibration:
        console.print()
        console.print(
            Text(
                "calibration (expected calibration error, "
                f"{spec.calibration_bins} equal-width bins; reported, never "
                "decides)",
                style="bold",
            )
        )
        for name, rows in result.calibration.items():
            parts = ", ".join(
                f"{row.label} {_rate(row.ece)} (n={row.with_probability})" for row in rows
            )
            console.print(Text(f"  {name}: {parts}"))
    console.print()
    console.print(Text("assumptions", style="bold"))
    for line in result.assumptions:
        console.print(Text(f"  - {line}"))


def print_fairness(
    result: FairnessResult, file: IO[str] | None = None, width: int | None = None
) -> None:
    """Print the summary to ``file`` (default: standard error)."""
    console = Console(
        file=file,
        stderr=file is None,
        markup=False,
        emoji=False,
        highlight=False,
        width=width,
        soft_wrap=False,
    )
    render_fairness(result, console)


def render_evaluation(
    e: Evaluation, console: Console, *, record_path: str | None = None, key_id: str | None = None
) -> None:
    """Draw the evaluate summary: verdict, battery table, group rules, the record."""
    console.print(
        Text.assemble(
            ("respai evaluate", "bold"),
            f" · {e.fairness.spec.name} · {e.counts.total} cases from {e.fairness.source}",
        )
    )
    console.print(Text.assemble("verdict: ", _verdict(e.verdict), f" (exit {e.exit_code})"))
    console.print()
    table = Table(show_edge=False, box=None, header_style="bold", pad_edge=False)
    for col, justify in (
        ("test", "left"),
        ("value", "right"),
        ("95% interval", "left"),
        ("threshold", "left"),
        ("verdict", "left"),
    ):
        table.add_column(col, justify=justify)  # type: ignore[arg-type]
    for t in e.battery:
        threshold = (
            "—"
            if t.threshold is None
            else (
                f"{t.threshold.comparison} {t.threshold.value:g}"
                + (" (interval)" if t.threshold.decision.value == "interval" else "")
            )
        )
        verdict = _verdict(t.verdict)
        if t.uncertain:
            verdict.append(" uncertain", style="yellow")
        table.add_row(t.key, _rate(t.value), _iv(t.interval), threshold, verdict)
    for r in e.rules:
        table.add_row(f"rule:{r.rule.id}", "", "", r.rule.kind, _verdict(r.verdict))
    console.print(table)
    notes = [t for t in e.battery if t.value is None or t.uncertain]
    for t in notes:
        console.print(Text(f"  {t.key}: {t.reason}"))
    for r in e.rules:
        console.print(Text(f"  rule:{r.rule.id}: {r.reason}"))
    sources = sorted(
        {t.threshold.source.split(": ")[0] for t in e.battery if t.threshold is not None}
    )
    console.print()
    console.print(Text("thresholds: " + "; ".join(sources)))
    if e.ll144 is not None:
        from respai.ll144.terminal import render_ll144

        console.print()
        console.print(
            Text(
                "ll144: every category's impact ratio is a test record with verdict "
                "MANUAL_REVIEW (the law sets no pass mark; an auditor judges the findings)."
            )
        )
        render_ll144(e.ll144, console)
        console.print()
    if record_path:
        console.print(
            Text(f"signed record: {record_path}" + (f" (key {key_id})" if key_id else ""))
        )
