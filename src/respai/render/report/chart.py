"""The report's one kind of chart: a value and its intervals per row, as inline SVG.

A row is a group (or all cases): a dot at its value, a bar for its inner interval, a
whisker for its outer one, its label on the left and a note on the right; an optional
dashed line marks the limit the test compares with. The axis fits the values shown.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from respai.render.escape import html_text
from respai.render.report.fields import as_dict, is_number
from respai.render.report.values import number

__all__ = ["ChartRow", "dot_chart", "interval_pair"]


@dataclass(frozen=True, slots=True)
class ChartRow:
    """One row of a chart: a group, or all cases.

    Attributes
    ----------
    label
        The row's name, shown on the left (shortened to 30 characters, in full on hover).
    value
        Where the dot goes, or ``None``: the row then says "undefined".
    inner, outer
        The bar and the whisker, as ``(lo, hi)``, or ``None`` for none.
    note
        The text on the right, after the value (counts, flags).
    extreme
        Draw the dot open: the lowest or highest group, or the all-cases row.
    """

    label: str
    value: float | None
    inner: tuple[float, float] | None
    outer: tuple[float, float] | None
    note: str
    extreme: bool = False


def interval_pair(iv: object) -> tuple[float, float] | None:
    """An interval mapping as ``(lo, hi)``, or ``None`` when either end is not a number."""
    d = as_dict(iv)
    lo, hi = d.get("lo"), d.get("hi")
    if is_number(lo) and is_number(hi):
        return float(lo), float(hi)
    return None


def _domain(values: Iterable[float]) -> tuple[float, float, float]:
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


def _truncate(text: str, limit: int = 30) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


_ICONS = {
    "dot": '<circle class="dot" cx="11" cy="6" r="4"/>',
    "open": '<circle class="dot extreme" cx="11" cy="6" r="3.5"/>',
    "bar": '<line class="inner" x1="2" y1="6" x2="20" y2="6"/>',
    "whisker": '<line class="outer" x1="2" y1="6" x2="20" y2="6"/>'
    '<line class="outer" x1="2" y1="2" x2="2" y2="10"/>'
    '<line class="outer" x1="20" y1="2" x2="20" y2="10"/>',
    "limit": '<line class="limit" x1="11" y1="0" x2="11" y2="12"/>',
}


def dot_chart(
    rows: Sequence[ChartRow],
    *,
    title: str,
    caption: str,
    legend: Sequence[tuple[str, str]],
    limit: tuple[float, str] | None = None,
) -> str:
    """A dot-and-interval chart, one row per group, as inline SVG with a caption."""
    width, label_w, x0, x1, note_x = 780, 200, 210, 560, 574
    row_h, top = 26, 26
    height = top + row_h * len(rows) + 30
    values: list[float] = []
    for r in rows:
        if r.value is not None:
            values.append(r.value)
        for pair in (r.inner, r.outer):
            if pair is not None:
                values.extend(pair)
    if limit is not None:
        values.append(limit[0])
    lo, hi, step = _domain(values)

    def x(v: float) -> float:
        return x0 + (min(max(v, lo), hi) - lo) / (hi - lo) * (x1 - x0)

    parts = [
        f'<svg viewBox="0 0 {width} {height}" role="img" xmlns="http://www.w3.org/2000/svg">',
        f"<title>{html_text(title)}</title>",
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
        parts.append(
            f'<text x="{label_w}" y="{cy + 4:.1f}" text-anchor="end">'
            f"<title>{html_text(r.label)}</title>{html_text(_truncate(r.label))}</text>"
        )
        if r.outer is not None:
            a, b = x(r.outer[0]), x(r.outer[1])
            parts.append(
                f'<line class="outer" x1="{a:.1f}" y1="{cy:.1f}" x2="{b:.1f}" y2="{cy:.1f}"/>'
                f'<line class="outer" x1="{a:.1f}" y1="{cy - 5:.1f}" x2="{a:.1f}" '
                f'y2="{cy + 5:.1f}"/><line class="outer" x1="{b:.1f}" y1="{cy - 5:.1f}" '
                f'x2="{b:.1f}" y2="{cy + 5:.1f}"/>'
            )
        if r.inner is not None:
            a, b = x(r.inner[0]), x(r.inner[1])
            parts.append(
                f'<line class="inner" x1="{a:.1f}" y1="{cy:.1f}" x2="{max(b, a + 1):.1f}" '
                f'y2="{cy:.1f}"/>'
            )
        if r.value is not None:
            cls = "dot extreme" if r.extreme else "dot"
            parts.append(f'<circle class="{cls}" cx="{x(r.value):.1f}" cy="{cy:.1f}" r="4.5"/>')
        else:
            parts.append(f'<text class="undefined" x="{x0 + 4}" y="{cy + 4:.1f}">undefined</text>')
        shown = number(r.value) if r.value is not None else "—"
        parts.append(
            f'<text class="rate" x="{note_x}" y="{cy + 4:.1f}">{html_text(shown)}</text>'
            f'<text class="size" x="{note_x + 54}" y="{cy + 4:.1f}">{html_text(r.note)}</text>'
        )
    if limit is not None and lo <= limit[0] <= hi:
        lx = x(limit[0])
        anchor = "end" if lx > (x0 + x1) / 2 else "start"
        shift = -4 if anchor == "end" else 4
        parts.append(
            f'<line class="limit" x1="{lx:.1f}" y1="{top - 8}" x2="{lx:.1f}" y2="{bottom}"/>'
            f'<text class="limit-label" x="{lx + shift:.1f}" y="{top - 12}" '
            f'text-anchor="{anchor}">{html_text(limit[1])}</text>'
        )
    parts.append("</svg>")
    legend_html = "".join(
        f'<span><svg class="key" viewBox="0 0 22 12" width="22" height="12">{_ICONS[kind]}</svg>'
        f"{html_text(text)}</span>"
        for kind, text in legend
    )
    return (
        f'<figure class="chart">{"".join(parts)}'
        f'<figcaption>{html_text(caption)}<div class="legend">{legend_html}</div>'
        "</figcaption></figure>"
    )
