"""The monitoring section of a ``respai monitor`` record's report: per rule a chart and a table.

A monitoring run holds one ``monitor_rule`` test record per rule per look it added, and in
``run_start.monitor.history`` a copy of the test record of every earlier look of its
stream, each naming the earlier run and record it is copied from (``respai verify
--ledger`` checks each copy against its original). For each rule the section draws the
whole stream, the earlier looks first, from those records only:

- a **rates chart**: per group and look, the batch's own rate (a dot) with its one-off
  Clopper-Pearson interval (a bar), and the band of the cumulative rate's confidence
  sequence; a worst-group rule's limit as a dashed line; a vertical line at the look a
  change detector raised its alarm;
- for a gap rule, a **gap chart**: the band of the bounds on the largest gap at each look,
  with the rule's ``max_group_gap`` as the dashed line, and the same alarm line;
- a **per-look table**: the batch counts, the batch rate with its interval, the
  cumulative rate with its sequence, the change statistics and the look's verdict.

An earlier look's dots and bars are drawn open (class ``earlier``), and its table row
names the run it is from.

Every text is bound to the record (:mod:`respai.render.report.bind`), and every mark
carries the JSON Pointer of the value it is drawn at: the SVG carries its scale
(``data-series="lo hi y-bottom y-top first-look last-look x0 x1"``), a dot its value
(``data-y``), a bar its two ends (``data-y1``, ``data-y2``), a band the ends at every look
(``data-lo``, ``data-hi``), the limit line the threshold it is drawn at (``data-limit``)
and the alarm line the alarm look (``data-alarm``). Each mark's look is the look of the
test record (or copied look) its pointer is in. ``report_assets/bind.js`` checks every
mark against the signed payload, that every batch of the rule is drawn (the earlier looks'
open, the run's own filled), and that the limit and alarm lines are drawn where the
record puts them.
"""

from __future__ import annotations

from collections.abc import Sequence

from respai.render.escape import html_text
from respai.render.report.bind import At
from respai.render.report.chart import axis_domain, interval_pair
from respai.render.report.fields import is_number
from respai.render.report.verdict_words import badge

__all__ = [
    "COLOURS",
    "MONITOR_ICONS",
    "monitoring_section",
    "series_offset",
]

#: The number of series colours (classes ``s0`` ... ``s5``), reused in turn.
COLOURS = 6
_W, _X0, _X1, _TOP, _BOTTOM = 780, 64, 740, 28, 250
_H = _BOTTOM + 46

#: The legend icons of a monitoring chart (by kind, as :data:`chart._ICONS` holds them).
MONITOR_ICONS = {
    **{
        f"series{k}": f'<polygon class="band s{k}" points="2,2 20,2 20,10 2,10"/>'
        f'<line class="bar s{k}" x1="11" y1="1" x2="11" y2="11"/>'
        f'<circle class="point s{k}" cx="11" cy="6" r="3.5"/>'
        for k in range(COLOURS)
    },
    "gapband": '<polygon class="band gap" points="2,2 20,2 20,10 2,10"/>',
    "alarm": '<line class="alarm" x1="11" y1="0" x2="11" y2="12"/>',
    "hlimit": '<line class="limit" x1="1" y1="6" x2="21" y2="6"/>',
    "earlier": '<circle class="point key-earlier" cx="11" cy="6" r="3.5"/>',
}
#: The legend's words for the open marks of looks copied from earlier runs.
_EARLIER_KEY = "open marks: looks from earlier runs of the stream"


def series_offset(j: int, groups: int) -> float:
    """How far right of its look group ``j``'s dot and bar are drawn (groups side by side)."""
    spacing = min(8.0, 36.0 / max(groups, 1))
    return (j - (groups - 1) / 2) * spacing


def _rule_records(history: Sequence[At], tests: Sequence[At]) -> dict[str, list[At]]:
    """Per rule of the run's tests, its copied earlier looks, then its own looks."""
    rules: dict[str, list[At]] = {}
    for rec in tests:
        rule = rec["details"].get("rule")
        if isinstance(rule, str):
            rules.setdefault(rule, []).append(rec)
    for rule, records in rules.items():
        stream = records[-1]["details"].get("stream")
        earlier = [  # copies of the same kind of test (monitor_rule), rule and stream
            h
            for h in history
            if h.get("test_id") == records[-1].get("test_id")
            and h["details"].get("rule") == rule
            and h["details"].get("stream") == stream
        ]
        rules[rule] = earlier + records
    return rules


def _earlier(rec: At) -> bool:
    """Whether the look is a copy from an earlier run (in ``run_start.monitor.history``)."""
    return "history" in rec.path


def _looks(records: Sequence[At]) -> list[int]:
    return [int(look) for r in records if (look := _look(r)) is not None] or [1]


class _Frame:
    """The scale of one chart: rates on y, looks on x."""

    def __init__(self, values: list[float], first: int, last: int) -> None:
        self.lo, self.hi, self.step = axis_domain(values)
        self.first, self.last = first, last

    def x(self, look: float) -> float:
        return _X0 + (look - self.first + 0.5) / (self.last - self.first + 1) * (_X1 - _X0)

    def y(self, v: float) -> float:
        v = min(max(v, self.lo), self.hi)
        return _BOTTOM - (v - self.lo) / (self.hi - self.lo) * (_BOTTOM - _TOP)

    def scale(self) -> str:
        return f"{self.lo!r} {self.hi!r} {_BOTTOM} {_TOP} {self.first} {self.last} {_X0} {_X1}"

    def axes(self, records: Sequence[At], y_title: str) -> list[str]:
        parts = []
        digits = 2 if self.step < 0.1 or self.step == 0.25 else 1
        for i in range(round((self.hi - self.lo) / self.step) + 1):
            t = self.lo + i * self.step
            ty = self.y(t)
            parts.append(
                f'<line class="grid" x1="{_X0}" y1="{ty:.1f}" x2="{_X1}" y2="{ty:.1f}"/>'
                f'<text class="tick" x="{_X0 - 6}" y="{ty + 4:.1f}" text-anchor="end">'
                f"{t:.{digits}f}</text>"
            )
        parts.append(
            f'<line class="axis" x1="{_X0}" y1="{_BOTTOM}" x2="{_X1}" y2="{_BOTTOM}"/>'
            f'<line class="axis" x1="{_X0}" y1="{_TOP - 8}" x2="{_X0}" y2="{_BOTTOM}"/>'
        )
        for rec in records:
            look = rec["details"]["look"]
            if is_number(look.value):
                parts.append(
                    look.show(
                        "plain",
                        tag="text",
                        cls="xtick",
                        attrs=f'x="{self.x(float(look.value)):.1f}" y="{_BOTTOM + 18}" '
                        'text-anchor="middle"',
                    )
                )
        parts.append(
            f'<text class="axis-title" x="{(_X0 + _X1) / 2:.1f}" y="{_BOTTOM + 38}" '
            'text-anchor="middle">look (one batch each)</text>' + y_title
        )
        return parts


def _limit(frame: _Frame, last: At) -> str:
    value = last["threshold"]["value"]
    if not is_number(value.value) or not frame.lo <= float(value.value) <= frame.hi:
        return ""
    ly = frame.y(float(value.value))
    return (
        f'<line class="limit" x1="{_X0}" y1="{ly:.1f}" x2="{_X1}" y2="{ly:.1f}" '
        f'data-limit="{html_text(value.json_pointer)}"/>'
        + last.show(
            "mon_limit",
            tag="text",
            cls="limit-label",
            attrs=f'x="{_X1 - 4}" y="{ly - 5:.1f}" text-anchor="end"',
        )
    )


def _alarm(frame: _Frame, last: At) -> str:
    change = last["details"]["change"]
    look = change["alarm_look"]
    if not is_number(look.value) or not frame.first <= float(look.value) <= frame.last:
        return ""
    ax = frame.x(float(look.value)) - (frame.x(frame.first + 1) - frame.x(frame.first)) / 2
    anchor = "end" if ax > (_X0 + _X1) / 2 else "start"
    shift = -4 if anchor == "end" else 4
    return (
        f'<line class="alarm" x1="{ax:.1f}" y1="{_TOP - 8}" x2="{ax:.1f}" y2="{_BOTTOM}" '
        f'data-alarm="{html_text(look.json_pointer)}"/>'
        + change.show(
            "mon_alarm",
            tag="text",
            cls="alarm-label",
            attrs=f'x="{ax + shift:.1f}" y="{_TOP - 12}" text-anchor="{anchor}"',
        )
    )


def _band(frame: _Frame, ivs: Sequence[tuple[float, At, At]], cls: str) -> str:
    """A band through the intervals ``(look, lo, hi)`` of consecutive looks."""
    if not ivs:
        return ""
    top = [f"{frame.x(look):.1f},{frame.y(float(hi.value)):.1f}" for look, _, hi in ivs]
    bottom = [f"{frame.x(look):.1f},{frame.y(float(lo.value)):.1f}" for look, lo, _ in ivs]
    points = " ".join(top + bottom[::-1])
    los = " ".join(html_text(lo.json_pointer) for _, lo, _ in ivs)
    his = " ".join(html_text(hi.json_pointer) for _, _, hi in ivs)
    return f'<polygon class="{cls}" points="{points}" data-lo="{los}" data-hi="{his}"/>'


def _look(rec: At) -> float | None:
    look = rec["details"].get("look")
    return float(look) if isinstance(look, int) and not isinstance(look, bool) else None


def _rates_chart(records: Sequence[At]) -> str:
    last = records[-1]
    looks = _looks(records)
    frame_values: list[float] = []
    names = last["details"]["groups"].elements()
    groups = len(names)
    for rec in records:
        for g in rec["details"]["groups"].elements():
            for iv in (g["interval"].value, g["batch"]["interval"].value):
                pair = interval_pair(iv)
                if pair is not None:
                    frame_values.extend(pair)
            if is_number(g["batch"].get("rate")):
                frame_values.append(float(g["batch"].get("rate")))
    if last["threshold"].get("comparison") in ("worst_max", "worst_min") and is_number(
        last["threshold"].get("value")
    ):
        frame_values.append(float(last["threshold"].get("value")))
    frame = _Frame(frame_values, min(looks), max(looks))
    y_title = last["details"]["rate"].show(
        "rate_name", tag="text", cls="axis-title", attrs=f'x="{_X0 - 40}" y="{_TOP - 14}"'
    )
    parts = [
        f'<svg viewBox="0 0 {_W} {_H}" role="img" xmlns="http://www.w3.org/2000/svg" '
        f'data-series="{frame.scale()}">',
        last.show("mon_title", tag="title"),
        *frame.axes(records, y_title),
    ]
    for j in range(groups):
        ivs = []
        for rec in records:
            g, look = rec["details"]["groups"][j], _look(rec)
            if look is not None and interval_pair(g["interval"].value) is not None:
                ivs.append((look, g["interval"]["lo"], g["interval"]["hi"]))
        parts.append(_band(frame, ivs, f"band s{j % COLOURS}"))
    if last["threshold"].get("comparison") in ("worst_max", "worst_min"):
        parts.append(_limit(frame, last))
    parts.append(_alarm(frame, last))
    for rec in records:
        look = rec["details"].get("look")
        if not is_number(look):
            continue
        for j, g in enumerate(rec["details"]["groups"].elements()):
            batch = g["batch"]
            cx = frame.x(float(look)) + series_offset(j, groups)
            cls = f"s{j % COLOURS}" + (" earlier" if _earlier(rec) else "")
            pair = interval_pair(batch["interval"].value)
            if pair is not None:
                parts.append(
                    f'<line class="bar {cls}" x1="{cx:.1f}" y1="{frame.y(pair[0]):.1f}" '
                    f'x2="{cx:.1f}" y2="{frame.y(pair[1]):.1f}" '
                    f'data-y1="{html_text(batch["interval"]["lo"].json_pointer)}" '
                    f'data-y2="{html_text(batch["interval"]["hi"].json_pointer)}"/>'
                )
            if is_number(batch.get("rate")):
                parts.append(
                    f'<circle class="point {cls}" cx="{cx:.1f}" '
                    f'cy="{frame.y(float(batch.get("rate"))):.1f}" r="4" '
                    f'data-y="{html_text(batch["rate"].json_pointer)}"/>'
                )
    parts.append("</svg>")
    legend = [(f"series{j % COLOURS}", names[j]["group"].show("short")) for j in range(groups)]
    if any(_earlier(r) for r in records):
        legend.append(("earlier", _EARLIER_KEY))
    if last["threshold"].get("comparison") in ("worst_max", "worst_min"):
        legend.append(("hlimit", last.show("mon_limit")))
    if is_number(last["details"]["change"].get("alarm_look")):
        legend.append(("alarm", last["details"]["change"].show("mon_alarm")))
    return _figure(parts, last.show("mon_caption"), legend)


def _gap_chart(records: Sequence[At]) -> str:
    last = records[-1]
    looks = _looks(records)
    values = [max(float(v), 0.0) for r in records for v in _gap_pair(r) if v is not None]
    if is_number(last["threshold"].get("value")):
        values.append(float(last["threshold"].get("value")))
    frame = _Frame(values, min(looks), max(looks))
    y_title = '<text class="axis-title" x="24" y="14">largest gap</text>'
    ivs = [
        (look, r["details"]["gap_bounds"]["lo"], r["details"]["gap_bounds"]["hi"])
        for r in records
        if (look := _look(r)) is not None and interval_pair(r["details"].get("gap_bounds"))
    ]
    parts = [
        f'<svg viewBox="0 0 {_W} {_H}" role="img" xmlns="http://www.w3.org/2000/svg" '
        f'data-series="{frame.scale()}">',
        last.show("gap_title", tag="title"),
        *frame.axes(records, y_title),
        _band(frame, ivs, "band gap"),
        _limit(frame, last),
        _alarm(frame, last),
        "</svg>",
    ]
    legend = [("gapband", "bounds on the largest gap"), ("hlimit", last.show("mon_limit"))]
    if is_number(last["details"]["change"].get("alarm_look")):
        legend.append(("alarm", last["details"]["change"].show("mon_alarm")))
    return _figure(parts, last.show("gap_caption"), legend)


def _gap_pair(rec: At) -> tuple[float | None, float | None]:
    pair = interval_pair(rec["details"].get("gap_bounds"))
    return (None, None) if pair is None else pair


def _figure(parts: Sequence[str], caption: str, legend: Sequence[tuple[str, str]]) -> str:
    keys = "".join(
        f'<span><svg class="key" viewBox="0 0 22 12" width="22" height="12">'
        f"{MONITOR_ICONS[kind]}</svg>{text}</span>"
        for kind, text in legend
    )
    return (
        f'<figure class="chart">{"".join(parts)}'
        f'<figcaption>{caption}<div class="legend">{keys}</div></figcaption></figure>'
    )


def _at(g: At, key: str | None) -> At:
    return g if key is None else g[key]


def _table(records: Sequence[At]) -> str:
    rows = []
    for rec in records:
        d = rec["details"]
        groups = d["groups"].elements()

        def lines(fmt: str, key: str | None, gs: list[At] = groups) -> str:
            return "<br>".join(
                g["group"].show(fmt) if key is None and fmt == "short" else _at(g, key).show(fmt)
                for g in gs
            )

        changed = ""
        if isinstance(d.get("changed_from"), str):
            changed = '<span class="small muted"> was ' + d["changed_from"].show() + "</span>"
        if _earlier(rec):
            changed += "<br>" + rec["from"]["run_id"].show("mon_from", cls="small muted")
        earlier = ' class="earlier"' if _earlier(rec) else ""
        rows.append(
            f'<tr{earlier} data-record="{html_text(rec.json_pointer)}">'
            f'<td class="num">{d["look"].show("plain")}</td>'
            f"<td>{lines('short', None)}</td>"
            f'<td class="num">{lines("mon_counts", "batch")}</td>'
            f"<td>{lines('rate_iv', 'batch')}</td>"
            f"<td>{lines('rate_iv', None)}</td>"
            f'<td class="reason">{d["change"].show("mon_change")}</td>'
            f"<td>{badge(rec['verdict'])}{changed}</td>"
            "</tr>"
        )
    return (
        '<table class="looks"><thead><tr><th class="num">Look</th><th>Group</th>'
        '<th class="num">Batch events / decided</th><th>Batch rate [one-off interval]</th>'
        "<th>Cumulative rate [sequence]</th><th>Change statistics</th><th>Verdict</th>"
        f"</tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )


def monitoring_section(predicate: At, tests: Sequence[At]) -> str:
    """The monitoring section: the stream, then per rule its charts and per-look table.

    Parameters
    ----------
    predicate
        The record's predicate (a monitoring run's).
    tests
        Its ``monitor_rule`` test records, in chain order (the monitor's record kind,
        :mod:`respai.monitor.kind`, calls this with its own records).
    """
    start = predicate["records"][0]
    monitor = start["monitor"]
    out = [
        '<h2 class="first" id="monitoring">Monitoring stream</h2>',
        f"<p>{monitor['stream'].show(cls='mono')} · {monitor.show('mon_looks')}</p>",
        f'<p class="small">{monitor.show("mon_guarantee")}</p>',
    ]
    history = monitor["history"].elements()
    for records in _rule_records(history, tests).values():
        last = records[-1]
        out.append(f"<h3>Rule {last['details']['rule'].show()}</h3>")
        out.append(_rates_chart(records))
        if last["threshold"].get("comparison") == "max_group_gap":
            out.append(_gap_chart(records))
        out.append(_table(records))
    return "".join(out)
