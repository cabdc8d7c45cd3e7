"""The terminal summary of a fairness run, drawn with Rich.

The console is created with markup, emoji and highlighting off: group names and column
names are data and are shown as they are, except that control, escape and bidi
characters are shown escaped: every value from a spec, a data file or a record goes
through :func:`respai.render.escape.terminal_text` where a ``Text`` or a table cell is
built from it, and :class:`TerminalConsole` escapes whatever else reaches the terminal.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from typing import IO, Any

from rich.console import Console, ConsoleOptions, RenderableType
from rich.segment import Segment
from rich.text import Text

from respai.battery import TestResult
from respai.decision import GroupRate
from respai.render.aligned import AlignedTable, Justify
from respai.render.escape import terminal_text
from respai.render.extremes import ALL_UP_TO, each_end, extremes
from respai.render.gap import GAP_LABEL, gap_text
from respai.results import BatteryResult, Evaluation, FairnessResult
from respai.rules import RuleResult, guarantee_line
from respai.tables import METRICS, GroupRow, Measure
from respai.types import Interval, Verdict
from respai.weights import WeightedGroupRate

__all__ = [
    "LOG_WIDTH",
    "TerminalConsole",
    "print_fairness",
    "render_battery",
    "render_evaluation",
    "render_fairness",
    "render_rule_lines",
]

#: The width a console renders at when its stream is not a terminal (a file, a pipe, a
#: CI log) and ``COLUMNS`` is not set: no line is wrapped or cut at rich's fallback of 80.
LOG_WIDTH = 1_000_000

_STYLE = {
    Verdict.PASS: "bold green",
    Verdict.FAIL: "bold red",
    Verdict.INSUFFICIENT_EVIDENCE: "bold yellow",
    Verdict.MANUAL_REVIEW: "bold cyan",
}
#: The per-group table's short column names, from the metric registry.
_SHORT = {key: rate.short for key, rate in METRICS.items()}


class TerminalConsole(Console):
    r"""A rich console whose printed text has its control characters shown escaped.

    Every text segment is passed through :func:`respai.render.escape.terminal_text`
    (line breaks kept), so an escape sequence or a bidi control in a value that was not
    escaped where it was put into a ``Text`` is still shown as ``\x1b`` or
    ``\u202e``; rich's own control segments (cursor moves it makes itself) are kept.
    Create it like :class:`rich.console.Console`, with markup, emoji and highlighting
    off.
    """

    def render(
        self, renderable: RenderableType, options: ConsoleOptions | None = None
    ) -> Iterable[Segment]:
        """Render ``renderable`` as rich does, its text segments escaped."""
        for segment in super().render(renderable, options):
            if segment.control or segment.text.isprintable():
                yield segment
            else:
                text = terminal_text(segment.text, keep_newlines=True)
                yield Segment(text, segment.style, segment.control)

    def on_broken_pipe(self) -> None:
        """Let a closed pipe reach :func:`respai.cli.main` (exit 141), not rich's exit 1."""
        self.quiet = True
        raise BrokenPipeError

    #: The width that chooses a layout (the narrow or the wide per-group table): the
    #: console's own width, except for a log, which is laid out as rich would lay it
    #: out (80 columns) but rendered at :data:`LOG_WIDTH`, so nothing is cut.
    layout_width: int | None = None


def terminal_console(**options: Any) -> TerminalConsole:
    """A :class:`TerminalConsole` with markup, emoji and highlighting off.

    Parameters
    ----------
    **options
        Further :class:`rich.console.Console` options (``file``, ``stderr``, ``width``).

    Without a ``width``, a console whose stream is not a terminal (a file, a pipe, a CI
    log) renders at :data:`LOG_WIDTH`, so a long group name or a verdict column is never
    wrapped or cut at rich's fallback of 80 columns; its layout stays the one rich's width
    chooses (:attr:`TerminalConsole.layout_width`). ``COLUMNS``, when set, still wins, and
    a terminal is drawn as before.
    """
    console = TerminalConsole(markup=False, emoji=False, highlight=False, **options)
    if options.get("width") is None and not _columns_set() and not _is_terminal(console.file):
        console.layout_width = console.width
        console.width = LOG_WIDTH
    return console


def _columns_set() -> bool:
    columns = os.environ.get("COLUMNS")
    return columns is not None and columns.isdigit()


def _is_terminal(stream: IO[str]) -> bool:
    """Whether ``stream`` itself is a terminal (not rich's test, which ``FORCE_COLOR`` passes)."""
    isatty = getattr(stream, "isatty", None)
    try:
        return bool(isatty()) if isatty is not None else False
    except (ValueError, OSError):  # a closed or detached stream
        return False


def _layout_width(console: Console) -> int:
    if isinstance(console, TerminalConsole) and console.layout_width is not None:
        return console.layout_width
    return console.width


def _iv(iv: Interval | None) -> str:
    return "—" if iv is None else f"[{iv.lo:.3f}, {iv.hi:.3f}]"


def _rate(x: float | None) -> str:
    return "—" if x is None else f"{x:.3f}"


def _verdict(v: Verdict) -> Text:
    return Text(v.value, style=_STYLE[v])


def _shown_groups(count: int, shown: int, each: int, by: str) -> Text:
    """The line under a table that lists only the groups at each end."""
    return Text(
        f"  {count - shown} of {count} groups are not listed: past {ALL_UP_TO} groups, the "
        f"table lists the {each} with the lowest and the {each} with the highest {by} (a "
        "group without one is left out); --json has every group."
    )


def _rule_groups(r: RuleResult) -> tuple[list[GroupRate], int]:
    each = each_end(len(r.groups))
    return [r.groups[i] for i in extremes([g.rate for g in r.groups], each)], each


def _table_rows(rows: tuple[GroupRow, ...]) -> tuple[list[GroupRow], int]:
    each = each_end(len(rows))
    return [rows[i] for i in extremes([row.count for row in rows], each)], each


def weighted_lines(r: RuleResult) -> list[str]:
    """A weighted rule's groups in a few words each, for ``respai evaluate``'s lines."""
    if not r.weighted:
        return []
    shown, _ = _rule_groups(r)
    out = []
    for g in shown:
        if not isinstance(g, WeightedGroupRate):
            continue
        n_eff = "—" if g.n_eff is None else f"{g.n_eff:.1f}"
        out.append(
            f"{terminal_text(g.label)} {_rate(g.rate)} {_iv(g.interval)} n_eff {n_eff} "
            f"(unweighted {_rate(g.plain_rate)} of {g.cases})"
        )
    return out


def _rule_table(r: RuleResult, groups: list[GroupRate]) -> AlignedTable:
    """A rule's groups; a weighted rule's show the weighted rate, n_eff and KG interval too."""
    weighted = [g for g in groups if isinstance(g, WeightedGroupRate)]
    both = r.weighted and len(weighted) == len(groups)
    each = f"({1 - r.alpha_per_group:.4g} each)"
    table = AlignedTable(
        (
            ("group", "left"),
            ("n", "right"),
            ("events", "right"),
            ("no pred.", "right"),
            ("rate", "right"),
            *((("weighted", "right"), ("n_eff", "right")) if both else ()),
            (f"KG interval {each}" if both else f"interval {each}", "left"),
            ("", "left"),
        )
    )
    for g in groups:
        note = (
            Text(f"INSUFFICIENT_EVIDENCE: under min_cell {r.min_cell}", style="yellow")
            if g.small
            else Text("")
        )
        shown: tuple[str, ...] = (_rate(g.rate),)
        if both and isinstance(g, WeightedGroupRate):  # the unweighted rate, then weighted
            n_eff = "—" if g.n_eff is None else f"{g.n_eff:.1f}"
            shown = (_rate(g.plain_rate), _rate(g.rate), n_eff)
        table.add_row(
            terminal_text(g.label),
            str(g.cases),
            str(g.events),
            str(g.missing),
            *shown,
            _iv(g.interval),
            note,
        )
    return table


def _measure(m: Measure) -> str:
    if m.value is None:
        return f"— (0/{m.denominator})"
    return f"{m.value:.3f} {m.numerator}/{m.denominator} {_iv(m.interval)}"


def _long_group_table(title: str, rows: list[GroupRow]) -> AlignedTable:
    """One line per group and rate: fits an 80-column terminal."""
    table = AlignedTable(
        (
            ("group", "left"),
            ("count", "right"),
            ("no pred.", "right"),
            ("rate", "left"),
            ("value", "right"),
            ("num/den", "right"),
            ("95% Wilson", "left"),
        ),
        title,
    )
    for row in rows:
        for i, (metric, short) in enumerate(_SHORT.items()):
            m = row.metrics[metric]
            table.add_row(
                terminal_text(row.label) if i == 0 else "",
                str(row.count) if i == 0 else "",
                str(row.missing_prediction) if i == 0 else "",
                short,
                _rate(m.value),
                f"{m.numerator}/{m.denominator}",
                _iv(m.interval),
            )
    return table


def _group_table(name: str, rows: list[GroupRow], left_out: int, width: int) -> AlignedTable:
    title = (
        f"{terminal_text(name)}: per-group table (rates over cases with a prediction, 95% Wilson)"
    )
    if left_out:
        title += f"; {left_out} case(s) not in a declared group"
    if width < 150:
        return _long_group_table(title, rows)
    columns: list[tuple[str, Justify]] = [("group", "left"), ("count", "right")]
    columns += [("no pred.", "right"), *((short, "left") for short in _SHORT.values())]
    table = AlignedTable(columns, title)
    for row in rows:
        table.add_row(
            terminal_text(row.label),
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
            f" · {terminal_text(spec.name)} · ",
            f"{result.counts.total} cases from {terminal_text(result.source)}",
        )
    )
    console.print(
        Text.assemble(
            "verdict: ",
            _verdict(result.verdict),
            f" (exit {result.exit_code}{_accepted_note(result.accepted)})",
        )
    )
    console.print(Text(terminal_text(spec.orientation_line)))
    if not result.rules:
        console.print(Text("No rule is declared: nothing can PASS.", style="yellow"))
    for r in result.rules:
        console.print()
        head = Text.assemble(
            _verdict(r.verdict),
            "  ",
            (terminal_text(r.rule.id), "bold"),
            f"  {r.rule.rate_name} rate by {terminal_text(r.rule.group_label)}, ",
        )
        if r.rule.max_group_gap is not None:
            head.append(f"max_group_gap {r.rule.max_group_gap}")
        elif r.rule.min_group_ratio is not None:
            head.append(f"min_group_ratio {r.rule.min_group_ratio}")
        elif r.rule.worst_min is not None:
            head.append(f"worst_group min {r.rule.worst_min}")
        else:
            head.append(f"worst_group max {r.rule.worst_max}")
        if r.rule.reference_label is not None:
            head.append(f" against {terminal_text(r.rule.reference_label)}")
        if r.rule.threshold_source != "spec":
            head.append(f" (from {terminal_text(r.rule.threshold_source)})")
        console.print(head)
        console.print(Text(f"  why: {terminal_text(r.reason)}."))
        if (gap := gap_text(r.gap_bounds)) is not None:
            console.print(Text(f"  {GAP_LABEL}: {gap}"))
        console.print(Text(f"  guarantee: {guarantee_line(r)}.", style="dim"))
        left = sum(r.left_out.values())
        if left:
            reasons = ", ".join(f"{terminal_text(k)}: {v}" for k, v in r.left_out.items())
            console.print(
                Text(
                    f"  left out: {left} ({r.left_out_share:.1%}; limit "
                    f"{r.max_left_out:.0%}) — {reasons}"
                )
            )
        else:
            console.print(Text("  left out: none"))
        shown, each = _rule_groups(r)
        console.print(_rule_table(r, shown))
        if each:
            console.print(_shown_groups(len(r.groups), len(shown), each, "rate"))
    for grouping in result.counts.groupings.values():
        console.print()
        listed, each = _table_rows(result.tables[grouping.name])
        console.print(
            _group_table(grouping.name, listed, grouping.left_out_total, _layout_width(console))
        )
        if each:
            count = len(result.tables[grouping.name])
            console.print(_shown_groups(count, len(listed), each, "count"))
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
                f"{terminal_text(row.label)} {_rate(row.ece)} (n={row.with_probability})"
                for row in rows
            )
            console.print(Text(f"  {terminal_text(name)}: {parts}"))
    console.print()
    console.print(Text("assumptions", style="bold"))
    for line in result.assumptions:
        console.print(Text(f"  - {terminal_text(line)}"))


def print_fairness(
    result: FairnessResult, file: IO[str] | None = None, width: int | None = None
) -> None:
    """Print the summary to ``file`` (default: standard error)."""
    console = terminal_console(file=file, stderr=file is None, width=width, soft_wrap=False)
    render_fairness(result, console)


def _fail_inside(t: TestResult) -> bool:
    """Whether a FAIL's shown interval reaches its threshold.

    Such a FAIL was proven with the missing decisions counted against the test, which its
    reason says, so the reason is shown.
    """
    if t.verdict is not Verdict.FAIL or t.interval is None or t.threshold is None:
        return False
    return t.threshold.holds(t.interval.lo) or t.threshold.holds(t.interval.hi)


def _verdict_table(level: str = "95%") -> AlignedTable:
    return AlignedTable(
        (
            ("test", "left"),
            ("value", "right"),
            (f"{level} interval", "left"),
            ("threshold", "left"),
            ("verdict", "left"),
        )
    )


def render_battery(result: BatteryResult, console: Console) -> None:
    """Draw the battery: one row per test, the notes of its undecided tests, the sources."""
    console.print()
    # the intervals' level: 1 - alpha (95% by default), 1 - alpha / m under familywise
    levels = sorted({t.interval.confidence for t in result.tests if t.interval is not None})
    level = "/".join(f"{c * 100:.4g}%" for c in levels) or "95%"
    table = _verdict_table(level)
    for t in result.tests:
        threshold = (
            "—"
            if t.threshold is None
            else (
                f"{terminal_text(t.threshold.comparison)} {t.threshold.value:g}"
                # the estimate rule is a screening verdict with no error guarantee
                + (" (estimate: screening)" if t.threshold.decision.value == "estimate" else "")
            )
        )
        verdict = _verdict(t.verdict)
        if t.uncertain:
            verdict.append(" uncertain", style="yellow")
        table.add_row(terminal_text(t.key), _rate(t.value), _iv(t.interval), threshold, verdict)
    console.print(table)
    for t in result.tests:
        if t.value is None or t.uncertain or _fail_inside(t):
            console.print(Text(f"  {terminal_text(t.key)}: {terminal_text(t.reason)}"))
    line = _source_line(
        "battery thresholds",
        [(t.key.split(":")[0], t.threshold.source) for t in result.tests if t.threshold],
        "test",
    )
    if line:
        console.print(Text(line))


def _source_line(what: str, used: Sequence[tuple[str, str]], noun: str) -> str | None:
    """Where each threshold came from, saying which ones when the sources differ.

    ``used`` is ``(test or rule id, source)``; a battery default's source reads
    ``respai default: <why>``, a policy's ``policy <file> sha256:<digest>``, a rule's own
    ``spec``. One source: ``battery thresholds: respai default, for every test``; more:
    each source with the ids it set, so "respai default" is printed only for the
    thresholds it really set.

    Examples
    --------
    >>> _source_line("battery thresholds", [("auc", "respai default: floor")], "test")
    'battery thresholds: respai default, for every test'
    >>> _source_line("rule thresholds", [("a", "spec"), ("b", "policy p.yaml")], "rule")
    'rule thresholds: spec: a; policy p.yaml: b'
    """
    by_source: dict[str, list[str]] = {}
    for name, source in used:
        ids = by_source.setdefault(source.split(": ")[0], [])
        if name not in ids:
            ids.append(name)
    if not by_source:
        return None
    if len(by_source) == 1:
        return f"{what}: {terminal_text(next(iter(by_source)))}, for every {noun}"
    return f"{what}: " + "; ".join(
        f"{terminal_text(source)}: {', '.join(terminal_text(i) for i in ids)}"
        for source, ids in by_source.items()
    )


def render_rule_lines(rules: tuple[RuleResult, ...], console: Console) -> None:
    """Draw the group rules: one row per rule with its kind and verdict, then its reason."""
    if not rules:
        return
    console.print()
    table = AlignedTable((("rule", "left"), ("kind", "left"), ("verdict", "left")))
    for r in rules:
        table.add_row(f"rule:{terminal_text(r.rule.id)}", r.rule.kind, _verdict(r.verdict))
    console.print(table)
    for r in rules:
        console.print(Text(f"  rule:{terminal_text(r.rule.id)}: {terminal_text(r.reason)}"))
        if (gap := gap_text(r.gap_bounds)) is not None:
            console.print(Text(f"    {GAP_LABEL}: {gap}"))
        weighted = weighted_lines(r)
        if weighted:
            head = "    weighted rates (data.weight, Korn-Graubard): "
            console.print(Text(head + "; ".join(weighted)))
        console.print(Text(f"    guarantee: {guarantee_line(r)}.", style="dim"))
    sources = [(r.rule.id, r.rule.threshold_source) for r in rules]
    line = _source_line(
        "rule thresholds", [(i, "the spec" if s == "spec" else s) for i, s in sources], "rule"
    )
    if line:
        console.print(Text(line))


def _accepted_note(accepted: Sequence[Verdict]) -> str:
    """``; accepted: MANUAL_REVIEW`` after the exit code when ``--accept`` was given."""
    return f"; accepted: {', '.join(v.value for v in accepted)}" if accepted else ""


#: The line that replaces the orientation in the summary of a run without ``fairness:``.
NO_FAIRNESS_LINE = (
    "no fairness: block: no group rules of binary decisions and no battery; "
    "the blocks below decide the verdict"
)


def _run_name(e: Evaluation) -> str:
    """What a run without a ``fairness:`` block is called: the system's name, else the spec's."""
    if e.spec.system.name:
        return e.spec.system.name
    return e.spec.path.name if e.spec.path is not None else "spec"


def render_evaluation(
    e: Evaluation, console: Console, *, record_path: str | None = None, key_id: str | None = None
) -> None:
    """Draw the evaluate summary: the verdict, each block's lines, the record."""
    name = e.fairness.spec.name if e.has_fairness else _run_name(e)
    source = e.fairness.source if e.has_fairness else e.source or "the cases"
    console.print(
        Text.assemble(
            ("respai evaluate", "bold"),
            f" · {terminal_text(name)} · {e.cases} cases from {terminal_text(source)}",
        )
    )
    console.print(
        Text.assemble(
            "verdict: ", _verdict(e.verdict), f" (exit {e.exit_code}{_accepted_note(e.accepted)})"
        )
    )
    if e.has_fairness:
        console.print(Text(terminal_text(e.fairness.spec.orientation_line)))
    else:
        console.print(Text(NO_FAIRNESS_LINE))
    family = e.familywise
    if family is not None:  # familywise: bonferroni, every verdict-deciding test at alpha / m
        outside = ", ".join(str(o["test"]) for o in family["outside"])
        level = (1 - family["alpha_per_test"]) * 100
        console.print(
            Text(
                terminal_text(
                    f"{family['guarantee']}; their intervals are shown at {level:.4g}%"
                    + (f"; outside the family: {outside}" if outside else "")
                )
            )
        )
    from respai.blocks import block_named

    for name, result in e.blocks.items():  # each block's own lines, in registry order
        block_named(name).terminal(result, console)
    if record_path:
        console.print(
            Text(
                f"signed record: {terminal_text(record_path)}"
                + (f" (key {key_id})" if key_id else "")
            )
        )
