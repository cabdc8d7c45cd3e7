"""The terminal view of an LL144 audit, drawn with Rich on standard error.

The console must be created with markup, emoji and highlighting off: category names,
spellings and explanations are data and are shown as they are, except that control,
escape and bidi characters are shown escaped
(:func:`respai.render.escape.terminal_text`) wherever a line or a cell is built from
them.
"""

from __future__ import annotations

from rich.console import Console
from rich.table import Table
from rich.text import Text

from respai.eeo1 import AXIS_TITLES
from respai.ll144.audit import LL144Result, family_note
from respai.ll144.diagnosis import Cutoff
from respai.ll144.tables import LINE, TABLES, CategoryRow, CategoryTable
from respai.render.escape import terminal_text

__all__ = ["render_ll144"]


def _num(x: float | None) -> str:
    return "—" if x is None else f"{x:.3f}"


def _worst_text(worst: tuple[str, float] | None) -> str:
    return "—" if worst is None else f"{worst[1]:.3f} ({terminal_text(worst[0])})"


def _note(row: CategoryRow, table: CategoryTable) -> str:
    if row.count == 0:
        return "no applicants"
    if row.excluded and row.share is not None:
        return f"under min_share ({row.share:.2%})"
    if row.category == table.best:
        return "top"
    return ""


def _table(res: LL144Result, table: CategoryTable) -> Table:
    grid = Table(show_edge=False, pad_edge=False, box=None, header_style="bold")
    count = "selected" if res.ll144.kind == "selection" else "above median"
    for col, justify in (
        ("category", "left"),
        ("applicants", "right"),
        (count, "right"),
        ("rate", "right"),
        ("95% interval", "left"),
        ("ratio", "right"),
        ("", "left"),
    ):
        grid.add_column(
            col,
            justify=justify,  # type: ignore[arg-type]
            no_wrap=col not in ("category", ""),
        )
    for r in table.rows:
        iv = "—" if r.interval is None else f"[{r.interval.lo:.3f}, {r.interval.hi:.3f}]"
        if r.impact_ratio is not None:
            style = "bold red" if r.ratio_below(LINE) else ""
            ratio = Text(_num(r.impact_ratio), style=style)
        else:
            ratio = Text("excluded" if r.excluded else "—")
        grid.add_row(
            terminal_text(r.category),
            str(r.count),
            str(r.selected),
            _num(r.rate),
            iv,
            ratio,
            _note(r, table),
        )
    return grid


def _cutoff_line(c: Cutoff) -> str:
    sign = ">" if c.rule == "above" else ">="
    worst = "; ".join(f"{AXIS_TITLES[name]}: {_worst_text(c.worst[name])}" for name in TABLES)
    return (
        f"  {terminal_text(c.label)} (score {sign} {c.threshold:g}, admits {c.admitted}, "
        f"{c.share_admitted:.1%}): worst ratio {worst}"
    )


def render_ll144(res: LL144Result, console: Console) -> None:
    """Print the audit: header, warnings, the three tables, findings and diagnosis."""
    ll, spec, rec = res.ll144, res.spec, res.data.reconciliation
    name = " ".join(x for x in (spec.system.name, spec.system.version) if x) or "the tool"
    name = terminal_text(name)
    console.print(
        Text(
            f"LL144 bias audit · {name} · {ll.kind} tool · {rec.applicants} "
            f"applicants from {terminal_text(res.data.description)}",
            style="bold",
        )
    )
    console.print(
        f"audit date {ll.audit_date or 'not set'} · distribution date "
        f"{ll.distribution_date or 'not set'} · data: {terminal_text(spec.data.source)} · "
        f"one-year rule checked on {res.checked_on}"
    )
    if res.median is not None:
        console.print(f"median score of the full sample (unknowns included): {res.median!r}")
    for warning in res.warnings:
        console.print(Text(terminal_text(warning), style="bold red"))
    for table_name in TABLES:
        table = res.tables[table_name]
        console.print()
        console.print(
            Text(f"{table.title} (unknown: {table.unknown}, known: {table.known})", style="bold")
        )
        if table.undefined is not None:
            console.print(
                Text(
                    f"impact ratios undefined: {terminal_text(table.undefined.reason)}",
                    style="yellow",
                )
            )
        console.print(_table(res, table))
    excluded = [(res.tables[n], r) for n in TABLES for r in res.tables[n].excluded]
    if excluded:
        console.print()
        console.print(
            Text("excluded from the impact ratios (count and rate still reported):", style="bold")
        )
        for t, r in excluded:
            console.print(
                f"  {t.title}: {terminal_text(r.category)}, {r.count} "
                f"applicant{'' if r.count == 1 else 's'}, rate "
                f"{_num(r.rate)}"
            )
        console.print(f"  justification: {terminal_text(ll.exclusion_justification)}")
    console.print()
    console.print(Text("findings (stated, not gated: the law sets no pass mark)", style="bold"))
    console.print(f"  {terminal_text(family_note(res))}")
    if not res.findings:
        console.print(f"  no kept category has an impact ratio under {0.8 + ll.margin:g}")
    for f in res.findings:
        console.print(
            f"  - {terminal_text(f.category)} ({res.tables[f.table].title}, against "
            f"{terminal_text(f.compared_with)}): {terminal_text(f.gap.sentence)}"
        )
    if res.sensitivity is not None:
        s = res.sensitivity
        console.print()
        console.print(Text("cutoff sensitivity", style="bold"))
        for c in (s.median, *s.cutoffs):
            console.print(_cutoff_line(c))
        curve = Table(show_edge=False, pad_edge=False, box=None, header_style="bold")
        for col in ("top share", "threshold", *(f"worst {res.tables[n].title}" for n in TABLES)):
            curve.add_column(col)
        for p in s.curve:
            curve.add_row(
                f"{p.top_share:.0%}",
                f"{p.threshold:g}",
                *(_worst_text(p.worst[n]) for n in TABLES),
            )
        console.print(curve)
    if res.funnel is not None:
        fun = res.funnel
        console.print()
        console.print(
            Text(
                "funnel (stage rate among those who reached it; cumulative among all applicants)",
                style="bold",
            )
        )
        grid = Table(show_edge=False, pad_edge=False, box=None, header_style="bold")
        for col in (
            "stage",
            "table",
            "reached",
            "passed",
            "worst at the stage",
            "worst cumulative",
        ):
            grid.add_column(col)
        for st in fun.stages:
            for i, n in enumerate(TABLES):
                grid.add_row(
                    terminal_text(st.name) if i == 0 else "",
                    res.tables[n].title,
                    str(st.reached) if i == 0 else "",
                    str(st.passed) if i == 0 else "",
                    _worst_text(st.worst_conditional[n]),
                    _worst_text(st.worst_cumulative[n]),
                )
        console.print(grid)
        for n in TABLES:
            first = fun.first_below[n]
            console.print(
                f"  {res.tables[n].title}: "
                + (
                    f"the worst ratio first drops under {fun.line:g} at stage "
                    f"'{terminal_text(first)}'"
                    if first
                    else f"no stage has a ratio under {fun.line:g}"
                )
            )
    console.print()
    console.print(Text("row reconciliation", style="bold"))
    for file in rec.files:
        console.print(
            f"  {file.role}: {terminal_text(file.path)}, {file.rows} rows, sha256 "
            f"{file.fingerprint.get('sha256')}"
        )
    if rec.joined is not None:
        console.print(
            f"  joined {rec.joined}; decisions without self-ID "
            f"{rec.decisions_unmatched}; self-ID without a decision "
            f"{rec.demographics_unmatched}"
        )
    console.print(
        f"  applicants {rec.applicants}; sex known {rec.sex_known}; race/ethnicity "
        f"known {rec.race_known}; both known {rec.both_known}"
    )
    console.print()
    console.print(Text("interpretation choices", style="bold"))
    for item in res.interpretation:
        console.print(f"  - {terminal_text(item)}")
