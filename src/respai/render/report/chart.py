"""The report's one kind of chart: a value and its intervals per row, as inline SVG.

A row is a group (or all cases): a dot at its value, a bar for its inner interval, a
whisker for its outer one, its label on the left and a note on the right; an optional
dashed line marks the limit the test compares with. The axis fits the values shown.

The texts of a chart (group names, rates, notes, title, caption, the limit's label) are
bound to the record (:mod:`respai.render.report.bind`), and so are its marks: the SVG
carries its scale (``data-scale="lo hi x0 x1"``), each dot, bar and whisker the JSON
Pointer of the value or interval end it is drawn at (``data-x``, ``data-x1``,
``data-x2``) and of its row (``data-row``), the limit line the record it is computed
from (``data-limit``). The page's script checks that every mark sits where its value
puts it on that scale, that every tick label is the value at its place, and that a row's
marks and texts share one line.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from respai.render.escape import html_text
from respai.render.report.bind import At
from respai.render.report.fields import as_dict, is_number

__all__ = [
    "LEGEND_ICONS",
    "TICK_LABELS",
    "ChartRow",
    "axis_domain",
    "dot_chart",
    "icon_marks",
    "interval_pair",
]

#: Every text an axis tick can have: the multiples of 0.01 in [0, 1] to two decimals and
#: of 0.1 to one (the tick steps of :func:`axis_domain`).
TICK_LABELS = frozenset(
    [f"{i / 100:.2f}" for i in range(101)] + [f"{i / 10:.1f}" for i in range(11)]
)


@dataclass(frozen=True, slots=True)
class ChartRow:
    """One row of a chart: a group, or all cases.

    Attributes
    ----------
    row
        The group (or the all-cases entry) in the record that the row draws.
    label
        The row's name in the record, shown on the left (shortened to 30 characters, in
        full on hover), or a fixed label of the renderer.
    value
        The row's value in the record: where the dot goes and the number on the right;
        a value that is not a number gives no dot and "undefined".
    inner, outer
        The intervals (objects with ``lo`` and ``hi``) drawn as the bar and the whisker,
        or ``None`` for none.
    note
        The text on the right, after the value (counts, flags): its value in the record,
        its format and the format's argument.
    extreme
        Draw the dot open: the lowest or highest group, or the all-cases row.
    """

    row: At
    label: At | str
    value: At
    inner: At | None
    outer: At | None
    note: tuple[At, str, str | None]
    extreme: bool = False

    @property
    def number(self) -> float | None:
        """The value as a float, or ``None`` when it is not a finite number."""
        v = self.value.value
        return float(v) if is_number(v) else None


def interval_pair(iv: object) -> tuple[float, float] | None:
    """An interval mapping as ``(lo, hi)``, or ``None`` when either end is not a number."""
    d = as_dict(iv)
    lo, hi = d.get("lo"), d.get("hi")
    if is_number(lo) and is_number(hi):
        return float(lo), float(hi)
    return None


def axis_domain(values: Iterable[float]) -> tuple[float, float, float]:
    """An axis over ``values`` within [0, 1]: ``(lo, hi, step)``, at most eight steps."""
    found = [v for v in values if math.isfinite(v)]
    lo, hi = (min(found), max(found)) if found else (0.0, 1.0)
    pad = max((hi - lo) * 0.06, 0.01)
    lo, hi = max(0.0, lo - pad), min(1.0, hi + pad)
    step = next((s for s in (0.01, 0.02, 0.05, 0.1, 0.2, 0.25) if (hi - lo) / s <= 8), 0.25)
    lo = max(0.0, math.floor(lo / step + 1e-9) * step)
    hi = min(1.0, math.ceil(hi / step - 1e-9) * step)
    if hi <= lo:
        lo, hi = max(0.0, lo - step), min(1.0, hi + step)
    return lo, hi, step


_ICONS = {
    "dot": '<circle class="dot" cx="11" cy="6" r="4"/>',
    "open": '<circle class="dot extreme" cx="11" cy="6" r="3.5"/>',
    "bar": '<line class="inner" x1="2" y1="6" x2="20" y2="6"/>',
    "whisker": '<line class="outer" x1="2" y1="6" x2="20" y2="6"/>'
    '<line class="outer" x1="2" y1="2" x2="2" y2="10"/>'
    '<line class="outer" x1="20" y1="2" x2="20" y2="10"/>',
    "limit": '<line class="limit" x1="11" y1="0" x2="11" y2="12"/>',
}


def icon_marks(icon: str) -> list[list[object]]:
    """A legend icon's elements with their attributes, as the page's script compares them."""
    return [
        [tag, [list(a) for a in re.findall(r'([a-z0-9-]+)="([^"]*)"', attrs)]]
        for tag, attrs in re.findall(r"<([a-z]+) ([^>]*?)/>", icon)
    ]


#: Each legend icon as the page's script checks it: its elements, each with its attributes
#: (the dot charts' here, the monitoring charts' from
#: :data:`respai.render.report.monitoring.MONITOR_ICONS`).
LEGEND_ICONS = {kind: icon_marks(icon) for kind, icon in _ICONS.items()}


def _pair(iv: At | None) -> tuple[float, float] | None:
    return interval_pair(iv.value) if iv is not None else None


def _ends(iv: At) -> tuple[str, str]:
    """The escaped JSON Pointers of an interval's two ends."""
    return html_text(iv["lo"].json_pointer), html_text(iv["hi"].json_pointer)


def dot_chart(
    rows: Sequence[ChartRow],
    *,
    title: str,
    caption: str,
    legend: Sequence[tuple[str, str]],
    limit: tuple[float, At, str] | None = None,
) -> str:
    """A dot-and-interval chart, one row per group, as inline SVG with a caption.

    Parameters
    ----------
    rows
        The groups, top to bottom.
    title
        The SVG's bound ``<title>`` element (HTML).
    caption, legend
        The caption and each legend entry's text (HTML, bound where it holds the record's
        values); a legend entry's kind is one of ``dot``, ``open``, ``bar``, ``whisker``,
        ``limit``.
    limit
        Where the dashed line goes, and the record's value and format of its label.
    """
    width, label_w, x0, x1, note_x = 780, 200, 210, 560, 574
    row_h, top = 26, 26
    height = top + row_h * len(rows) + 30
    values: list[float] = []
    for r in rows:
        if r.number is not None:
            values.append(r.number)
        for pair in (_pair(r.inner), _pair(r.outer)):
            if pair is not None:
                values.extend(pair)
    if limit is not None:
        values.append(limit[0])
    lo, hi, step = axis_domain(values)

    def x(v: float) -> float:
        return x0 + (min(max(v, lo), hi) - lo) / (hi - lo) * (x1 - x0)

    parts = [
        f'<svg viewBox="0 0 {width} {height}" role="img" xmlns="http://www.w3.org/2000/svg" '
        f'data-scale="{lo!r} {hi!r} {x0} {x1}">',
        title,
    ]
    bottom = top + row_h * len(rows)
    digits = 2 if step < 0.1 or step == 0.25 else 1
    ticks = round((hi - lo) / step)
    for i in range(ticks + 1):
        t = lo + i * step
        tx = x(t)
        parts.append(
            f'<line class="grid" x1="{tx:.1f}" y1="{top - 6}" x2="{tx:.1f}" y2="{bottom}"/>'
            f'<text class="tick" x="{tx:.1f}" y="{bottom + 16}" text-anchor="middle">'
            f"{t:.{digits}f}</text>"
        )
    parts.append(f'<line class="axis" x1="{x0}" y1="{bottom}" x2="{x1}" y2="{bottom}"/>')
    for i, r in enumerate(rows):
        cy = top + row_h * i + row_h / 2
        row = f'data-row="{html_text(r.row.json_pointer)}"'
        anchor = f'x="{label_w}" y="{cy + 4:.1f}" text-anchor="end" {row}'
        if isinstance(r.label, str):
            parts.append(f"<text {anchor}>{html_text(r.label)}</text>")
        else:
            parts.append(
                f"<g>{r.label.show('textq', tag='title')}"
                f"{r.label.show('short', tag='text', attrs=anchor)}</g>"
            )
        outer = _pair(r.outer)
        if r.outer is not None and outer is not None:
            a, b = x(outer[0]), x(outer[1])
            lo_at, hi_at = _ends(r.outer)
            parts.append(
                f'<line class="outer" x1="{a:.1f}" y1="{cy:.1f}" x2="{b:.1f}" y2="{cy:.1f}" '
                f'{row} data-x1="{lo_at}" data-x2="{hi_at}"/>'
                f'<line class="outer" x1="{a:.1f}" y1="{cy - 5:.1f}" x2="{a:.1f}" '
                f'y2="{cy + 5:.1f}" {row} data-x1="{lo_at}" data-x2="{lo_at}"/>'
                f'<line class="outer" x1="{b:.1f}" y1="{cy - 5:.1f}" '
                f'x2="{b:.1f}" y2="{cy + 5:.1f}" {row} data-x1="{hi_at}" data-x2="{hi_at}"/>'
            )
        inner = _pair(r.inner)
        if r.inner is not None and inner is not None:
            a, b = x(inner[0]), x(inner[1])
            lo_at, hi_at = _ends(r.inner)
            parts.append(
                f'<line class="inner" x1="{a:.1f}" y1="{cy:.1f}" x2="{max(b, a + 1):.1f}" '
                f'y2="{cy:.1f}" {row} data-x1="{lo_at}" data-x2="{hi_at}"/>'
            )
        if r.number is not None:
            cls = "dot extreme" if r.extreme else "dot"
            parts.append(
                f'<circle class="{cls}" cx="{x(r.number):.1f}" cy="{cy:.1f}" r="4.5" {row} '
                f'data-x="{html_text(r.value.json_pointer)}"/>'
            )
        else:
            parts.append(f'<text class="undefined" x="{x0 + 4}" y="{cy + 4:.1f}">undefined</text>')
        note, fmt, arg = r.note
        parts.append(
            r.value.show(
                "number", tag="text", cls="rate", attrs=f'x="{note_x}" y="{cy + 4:.1f}" {row}'
            )
            + note.show(
                fmt,
                arg,
                tag="text",
                cls="size",
                attrs=f'x="{note_x + 54}" y="{cy + 4:.1f}" {row}',
            )
        )
    if limit is not None and lo <= limit[0] <= hi:
        lx = x(limit[0])
        anchor = "end" if lx > (x0 + x1) / 2 else "start"
        shift = -4 if anchor == "end" else 4
        parts.append(
            f'<line class="limit" x1="{lx:.1f}" y1="{top - 8}" x2="{lx:.1f}" y2="{bottom}" '
            f'data-limit="{html_text(limit[1].json_pointer)}" data-limit-fmt="{limit[2]}"/>'
            + limit[1].show(
                limit[2],
                tag="text",
                cls="limit-label",
                attrs=f'x="{lx + shift:.1f}" y="{top - 12}" text-anchor="{anchor}"',
            )
        )
    parts.append("</svg>")
    legend_html = "".join(
        f'<span><svg class="key" viewBox="0 0 22 12" width="22" height="12">{_ICONS[kind]}</svg>'
        f"{text}</span>"
        for kind, text in legend
    )
    return (
        f'<figure class="chart">{"".join(parts)}'
        f'<figcaption>{caption}<div class="legend">{legend_html}</div>'
        "</figcaption></figure>"
    )
