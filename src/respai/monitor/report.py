"""The HTML page of a monitoring stream: each group's rate and sequence over the looks.

A self-contained page (inline SVG, no script): per rule, one chart with a line per group
for the cumulative rate and a band for its confidence sequence, and a table of every look's
verdict. Every name from the spec or data is HTML-escaped (:func:`respai.render.escape.html_text`).
The page is a view: the signed record beside it is what proves the numbers.
"""

from __future__ import annotations

from respai.monitor.run import MonitorResult
from respai.render.escape import html_text

__all__ = ["monitor_html"]

_COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#17becf")
_W, _H, _PAD = 640, 260, 40


def _x(i: int, n: int) -> float:
    return _PAD + (_W - 2 * _PAD) * (i / max(n - 1, 1))


def _y(v: float) -> float:
    return _H - _PAD - (_H - 2 * _PAD) * v


def _chart(res: MonitorResult, rule_id: str) -> str:
    n = len(res.looks)
    groups: dict[str, list[tuple[int, float | None, float, float]]] = {}
    for i, look in enumerate(res.looks):
        rule = next(r for r in look.rules if r.id == rule_id)
        for g in rule.groups:
            groups.setdefault(g.group, []).append((i, g.rate, g.interval.lo, g.interval.hi))
    parts = [
        f'<svg viewBox="0 0 {_W} {_H}" width="{_W}" height="{_H}" role="img" '
        f'aria-label="rate and confidence sequence per group over the looks">',
        f'<line x1="{_PAD}" y1="{_y(0)}" x2="{_W - _PAD}" y2="{_y(0)}" stroke="#888"/>',
        f'<line x1="{_PAD}" y1="{_y(0)}" x2="{_PAD}" y2="{_y(1)}" stroke="#888"/>',
    ]
    parts.extend(
        f'<text x="{_PAD - 6}" y="{_y(tick) + 4:.1f}" font-size="10" '
        f'text-anchor="end">{tick:.2f}</text>'
        for tick in (0.0, 0.25, 0.5, 0.75, 1.0)
    )
    for i, look in enumerate(res.looks):
        parts.append(
            f'<text x="{_x(i, n):.1f}" y="{_H - _PAD + 14}" font-size="10" '
            f'text-anchor="middle">{look.look}</text>'
        )
    for k, (group, points) in enumerate(groups.items()):
        colour = _COLOURS[k % len(_COLOURS)]
        top = " ".join(f"{_x(i, n):.1f},{_y(hi):.1f}" for i, _, _, hi in points)
        bottom = " ".join(f"{_x(i, n):.1f},{_y(lo):.1f}" for i, _, lo, _ in reversed(points))
        parts.append(f'<polygon points="{top} {bottom}" fill="{colour}" fill-opacity="0.15"/>')
        line = " ".join(f"{_x(i, n):.1f},{_y(r):.1f}" for i, r, _, _ in points if r is not None)
        parts.append(f'<polyline points="{line}" fill="none" stroke="{colour}" stroke-width="2"/>')
        parts.append(
            f'<text x="{_W - _PAD + 4}" y="{_PAD + 14 * k}" font-size="11" '
            f'fill="{colour}">{html_text(group)}</text>'
        )
    parts.append("</svg>")
    return "\n".join(parts)


def monitor_html(res: MonitorResult) -> str:
    """The stream's page: one chart and one verdict table per rule."""
    title = html_text(res.spec.system.name or "monitoring stream")
    out = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{title}: monitoring</title>",
        "<style>body{font-family:system-ui,sans-serif;margin:2rem;max-width:60rem}"
        "table{border-collapse:collapse}td,th{padding:.2rem .6rem;border-bottom:1px solid #ddd;"
        "text-align:left}</style></head><body>",
        f"<h1>{title}: monitoring stream</h1>",
        f"<p>Stream <code>{html_text(res.stream)}</code>, {len(res.looks)} look(s). Each band is "
        "a group's confidence sequence: it holds at every look at once with at least "
        f"{1 - res.fairness.alpha:.0%} confidence (Bonferroni over the groups). The line is the "
        "group's cumulative rate. The signed record.json beside this page is what proves "
        "the numbers; verify it with <code>respai verify</code>.</p>",
    ]
    for rule in res.fairness.rules:
        out.append(f"<h2>Rule {html_text(rule.id)} ({html_text(rule.rate.value)})</h2>")
        out.append(_chart(res, rule.id))
        out.append("<table><tr><th>look</th><th>batch</th><th>verdict</th><th>why</th></tr>")
        for look in res.looks:
            r = next(x for x in look.rules if x.id == rule.id)
            changed = "" if r.changed_from is None else f" (was {r.changed_from.value})"
            out.append(
                f"<tr><td>{look.look}</td><td>{html_text(str(look.batch.get('name', '')))}</td>"
                f"<td>{r.verdict.value}{changed}</td><td>{html_text(r.reason)}</td></tr>"
            )
        out.append("</table>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"
