"""The evidence report: one self-contained HTML file that checks its own signature.

:func:`render_report` turns a signed record (the DSSE envelope of ``record.json``) into a
single HTML page: the verdict first, a table of the tests, then one section per test with
its per-group chart (inline SVG), the fingerprints and run identity, the hash chain, the
control mapping, the claims and the caveats. The page embeds the envelope, the raw
Ed25519 public key and the display name of every test id (from the battery's registry)
as JSON and, on load, re-checks in the browser (WebCrypto) the
signature, the canonical payload, every record id and the chain, then sets
``<html data-verified="true|false|unsupported" data-failed="...">``.

The page loads nothing: CSS and JS are inline (allowed by a Content-Security-Policy that
names their SHA-256 hashes and nothing else), charts are inline SVG. Every string taken
from the record is HTML-escaped; the embedded JSON escapes ``<``, ``>``, ``&`` and the
line separators, so it cannot close its ``<script>`` element.
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import html
import json
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any, TypeGuard

from respai.battery import REGISTRY, TEST_NAMES, DetailsKind, TestId
from respai.record.canonical import loads_strict
from respai.record.dsse import b64decode_any
from respai.record.errors import RecordError
from respai.record.keys import load_public_key, public_key_raw

__all__ = [
    "asset_text",
    "csp_hash",
    "embed_json",
    "render_report",
    "render_report_file",
]

VERDICTS = ("PASS", "FAIL", "INSUFFICIENT_EVIDENCE", "MANUAL_REVIEW")
_VERDICT_WORDS = {
    "PASS": "PASS",
    "FAIL": "FAIL",
    "INSUFFICIENT_EVIDENCE": "INSUFFICIENT EVIDENCE",
    "MANUAL_REVIEW": "MANUAL REVIEW",
}
_VERDICT_SENTENCES = {
    "PASS": "Every test met its threshold.",
    "FAIL": "At least one test did not meet its threshold.",
    "INSUFFICIENT_EVIDENCE": (
        "No test failed, but at least one could not be decided from this data."
    ),
    "MANUAL_REVIEW": "No test failed or was undecided; at least one is left to a person.",
}
_FRAMEWORK_SHORT = {
    "iso42001": "ISO/IEC 42001",
    "eu_ai_act": "EU AI Act",
    "nist_ai_rmf": "NIST AI RMF",
    "nyc_dcwp": "NYC DCWP (LL144)",
    "eeoc_ugesp": "EEOC UGESP",
    "colorado": "Colorado SB 24-205",
}
_RULE_LIMITS = ("max_group_gap", "worst_group_min", "worst_group_max")


# -- small helpers --------------------------------------------------------------------


def _e(value: object) -> str:
    """HTML-escape ``value`` as text, for element content and quoted attributes."""
    return html.escape(str(value), quote=True)


def _is_num(value: object) -> TypeGuard[int | float]:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _num(value: object, digits: int = 4) -> str:
    """A rate or value to ``digits`` decimals (``1`` as ``1.0000``), else a dash."""
    if not _is_num(value):
        return "—"
    return f"{float(value):.{digits}f}"


def _plain(value: object) -> str:
    """A threshold-like number as written (0.8, not 0.8000)."""
    if _is_num(value):
        return repr(value) if isinstance(value, float) else str(value)
    return "—" if value is None else str(value)


def _int_text(value: object) -> str:
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return "—"


def _dict(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _list(value: object) -> list[Any]:
    return list(value) if isinstance(value, list) else []


def _str(value: object, default: str = "") -> str:
    return value if isinstance(value, str) else default


def _ops(text: str) -> str:
    return text.replace(">=", "≥").replace("<=", "≤")


def _framework(value: object) -> str:
    name = _str(value, "?")
    return _FRAMEWORK_SHORT.get(name, name)


def _verdict_class(verdict: object) -> str:
    return f"v-{verdict}" if verdict in VERDICTS else "v-unknown"


def _badge(verdict: object) -> str:
    word = _VERDICT_WORDS.get(str(verdict), str(verdict) if verdict is not None else "—")
    return f'<span class="badge {_verdict_class(verdict)}">{_e(word)}</span>'


def _interval_text(iv: object) -> str:
    d = _dict(iv)
    if not (_is_num(d.get("lo")) and _is_num(d.get("hi"))):
        return "—"
    return f"[{_num(d['lo'])}, {_num(d['hi'])}]"


def asset_text(package: str, name: str) -> str:
    """Return the text of a file shipped inside ``respai.render.<package>``."""
    return (resources.files("respai.render") / package / name).read_text(encoding="utf-8")


def csp_hash(text: str) -> str:
    """The CSP source expression allowing one inline script or style: ``'sha256-…'``.

    Examples
    --------
    >>> csp_hash("")
    "'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='"
    """
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return f"'sha256-{base64.b64encode(digest).decode('ascii')}'"


def embed_json(value: Any) -> str:
    r"""JSON text that is safe inside ``<script type="application/json">``.

    ASCII only, with ``<``, ``>`` and ``&`` written as ``\u003c``, ``\u003e`` and
    ``\u0026`` (they can only occur inside strings), so the text can never close the
    element or open a comment; U+2028 and U+2029 are escaped by ``ensure_ascii``.

    Examples
    --------
    >>> embed_json({"a": "</script><b>&"})
    '{"a": "\\u003c/script\\u003e\\u003cb\\u003e\\u0026"}'
    """
    text = json.dumps(value, ensure_ascii=True, allow_nan=False, sort_keys=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


# -- charts -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Row:
    label: str
    value: float | None
    inner: tuple[float, float] | None
    outer: tuple[float, float] | None
    note: str
    extreme: bool = False


def _pair(iv: object) -> tuple[float, float] | None:
    d = _dict(iv)
    lo, hi = d.get("lo"), d.get("hi")
    if _is_num(lo) and _is_num(hi):
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


def _chart(
    rows: Sequence[_Row],
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
        f"<title>{_e(title)}</title>",
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
            f"<title>{_e(r.label)}</title>{_e(_truncate(r.label))}</text>"
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
        shown = _num(r.value) if r.value is not None else "—"
        parts.append(
            f'<text class="rate" x="{note_x}" y="{cy + 4:.1f}">{_e(shown)}</text>'
            f'<text class="size" x="{note_x + 54}" y="{cy + 4:.1f}">{_e(r.note)}</text>'
        )
    if limit is not None and lo <= limit[0] <= hi:
        lx = x(limit[0])
        anchor = "end" if lx > (x0 + x1) / 2 else "start"
        shift = -4 if anchor == "end" else 4
        parts.append(
            f'<line class="limit" x1="{lx:.1f}" y1="{top - 8}" x2="{lx:.1f}" y2="{bottom}"/>'
            f'<text class="limit-label" x="{lx + shift:.1f}" y="{top - 12}" '
            f'text-anchor="{anchor}">{_e(limit[1])}</text>'
        )
    parts.append("</svg>")
    legend_html = "".join(
        f'<span><svg class="key" viewBox="0 0 22 12" width="22" height="12">{_ICONS[kind]}</svg>'
        f"{_e(text)}</span>"
        for kind, text in legend
    )
    return (
        f'<figure class="chart">{"".join(parts)}'
        f'<figcaption>{_e(caption)}<div class="legend">{legend_html}</div></figcaption></figure>'
    )


def _spread_chart(rec: Mapping[str, Any]) -> str:
    details = _dict(rec.get("details"))
    groups = [_dict(g) for g in _list(details.get("groups"))]
    if not groups:
        return ""
    test_id = _str(rec.get("test_id"))
    low, high = details.get("min_group"), details.get("max_group")
    rows = []
    level: object = None
    for g in groups:
        rate = g.get("rate")
        simultaneous = _dict(g.get("interval_simultaneous"))
        level = simultaneous.get("confidence", level)
        name = _str(g.get("group"), "?")
        rows.append(
            _Row(
                label=name,
                value=float(rate) if _is_num(rate) else None,
                inner=_pair(g.get("interval_95")),
                outer=_pair(simultaneous),
                note=f"{_int_text(g.get('numerator'))} / {_int_text(g.get('denominator'))}",
                extreme=name in (low, high),
            )
        )
    rates = [r.value for r in rows if r.value is not None]
    threshold = _dict(rec.get("threshold"))
    t, comparison = threshold.get("value"), threshold.get("comparison")
    limit: tuple[float, str] | None = None
    limit_note = ""
    if rates and _is_num(t):
        top = max(rates)
        if test_id == TestId.IMPACT_RATIO and comparison == ">=":
            limit = (top * float(t), f"{_plain(t)} × highest = {top * float(t):.4f}")
            limit_note = (
                f" The dashed line is {_plain(t)} times the highest rate: the impact ratio "
                "meets its threshold when the lowest group is at or to the right of it."
            )
        elif comparison == "<=" and top - float(t) >= 0:
            limit = (top - float(t), f"highest − {_plain(t)} = {top - float(t):.4f}")
            limit_note = (
                f" The dashed line is the highest rate minus {_plain(t)}: the difference "
                "meets its threshold when the lowest group is at or to the right of it."
            )
    what = _str(details.get("rate"), "rate")
    grouping = " × ".join(str(a) for a in _list(rec.get("grouping")))
    conf = f"{float(level) * 100:.4g}%" if _is_num(level) else "simultaneous"
    caption = (
        f"{what.capitalize()} by {grouping}, over cases with a prediction. Numbers on the "
        "right: the rate, then cases counted / cases it is over." + limit_note
    )
    return _chart(
        rows,
        title=f"{what} by {grouping}",
        caption=caption,
        legend=[
            ("dot", "rate"),
            ("open", "lowest and highest group"),
            ("bar", "95% Wilson interval"),
            ("whisker", f"simultaneous interval ({conf} each), which the test's bounds use"),
        ]
        + ([("limit", "the line the lowest group must reach")] if limit else []),
        limit=limit,
    )


def _rule_chart(rec: Mapping[str, Any]) -> str:
    details = _dict(rec.get("details"))
    groups = [_dict(g) for g in _list(details.get("groups"))]
    if not groups:
        return ""
    rows = []
    level: object = None
    for g in groups:
        rate = g.get("rate")
        iv = _dict(g.get("interval"))
        level = iv.get("confidence", level)
        missing = g.get("missing_prediction")
        note = f"{_int_text(g.get('events'))} / {_int_text(g.get('with_prediction'))}"
        if isinstance(missing, int) and not isinstance(missing, bool) and missing:
            note += f" · {missing:,} no pred."
        if g.get("small_cell") is True:
            note += " · small cell"
        rows.append(
            _Row(
                label=_str(g.get("group"), "?"),
                value=float(rate) if _is_num(rate) else None,
                inner=_pair(iv),
                outer=None,
                note=note,
            )
        )
    threshold = _dict(details.get("threshold")) or _dict(rec.get("threshold"))
    limit: tuple[float, str] | None = None
    for key, word in (("worst_group_max", "maximum"), ("worst_group_min", "minimum")):
        if _is_num(threshold.get(key)):
            limit = (float(threshold[key]), f"{word} {_plain(threshold[key])}")
    rate_name = _str(details.get("rate"), "rate").replace("_", " ")
    grouping = " × ".join(str(a) for a in _list(rec.get("grouping")))
    conf = f"{float(level) * 100:.4g}%" if _is_num(level) else "Clopper-Pearson"
    bounds = _dict(details.get("gap_bounds"))
    gap = ""
    if _is_num(bounds.get("lo")) and _is_num(bounds.get("hi")):
        gap = (
            f" The largest gap between two groups lies between {_num(bounds['lo'])} and "
            f"{_num(bounds['hi'])}"
            + (
                f"; the rule allows {_plain(threshold['max_group_gap'])}."
                if _is_num(threshold.get("max_group_gap"))
                else "."
            )
        )
    caption = (
        f"{rate_name.capitalize()} rate by {grouping}. Bars: Clopper-Pearson intervals at "
        f"{conf} each (Bonferroni over the groups), with cases without a prediction counted "
        f"at their worst. Numbers on the right: the rate, then events / cases with a "
        f"prediction." + gap
    )
    return _chart(
        rows,
        title=f"{rate_name} rate by {grouping}",
        caption=caption,
        legend=[("dot", "rate"), ("bar", f"Clopper-Pearson interval ({conf} each)")]
        + ([("limit", "the rule's limit for every group")] if limit else []),
        limit=limit,
    )


def _auc_charts(rec: Mapping[str, Any]) -> str:
    details = _dict(rec.get("details"))
    per_group = _dict(details.get("per_group"))
    threshold = _dict(rec.get("threshold"))
    t = threshold.get("value")
    overall = _dict(details.get("overall"))
    out = []
    for grouping, entries in per_group.items():
        rows = [
            _Row(
                label="all cases",
                value=float(overall["value"]) if _is_num(overall.get("value")) else None,
                inner=_pair(overall.get("interval")),
                outer=None,
                note=f"{_int_text(overall.get('positives'))} "
                f"pos. / {_int_text(overall.get('negatives'))} neg.",
                extreme=True,
            )
        ]
        for g in (_dict(x) for x in _list(entries)):
            value = g.get("value")
            rows.append(
                _Row(
                    label=_str(g.get("group"), "?"),
                    value=float(value) if _is_num(value) else None,
                    inner=_pair(g.get("interval")),
                    outer=None,
                    note=f"{_int_text(g.get('positives'))} pos. / "
                    f"{_int_text(g.get('negatives'))} neg.",
                )
            )
        out.append(
            _chart(
                rows,
                title=f"AUC by {grouping}",
                caption=(
                    f"AUC by {grouping}, with 95% DeLong intervals; the open dot is the "
                    "whole file, which the verdict reads. Numbers on the right: the AUC, "
                    "then cases labelled 1 / labelled 0 with a score."
                ),
                legend=[
                    ("dot", "AUC of a group"),
                    ("open", "AUC of all cases"),
                    ("bar", "95% DeLong interval"),
                    ("limit", "threshold"),
                ],
                limit=(float(t), f"threshold {_plain(t)}") if _is_num(t) else None,
            )
        )
    return "".join(out)


# -- the page ---------------------------------------------------------------------------


def _tests(predicate: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return [
        _dict(r) for r in _list(predicate.get("records")) if _dict(r).get("record_type") == "test"
    ]


def _first_tamper_index(tests: Sequence[Mapping[str, Any]]) -> int | None:
    """The test the in-page Tamper button edits: the first one with a numeric value."""
    return next(
        (
            i
            for i, t in enumerate(tests)
            if isinstance(t.get("value"), int | float) and not isinstance(t.get("value"), bool)
        ),
        None,
    )


def _test_name(rec: Mapping[str, Any]) -> tuple[str, str]:
    """The test's display name and its grouping or rule id."""
    test_id = _str(rec.get("test_id"), "test")
    name = TEST_NAMES.get(test_id, test_id)
    if test_id == TestId.GROUP_RULE:
        key = _str(rec.get("test_key"))
        return name, key.removeprefix("rule:")
    grouping = _list(rec.get("grouping"))
    return name, " × ".join(str(g) for g in grouping)


def _value_html(rec: Mapping[str, Any], tamper: bool) -> str:
    text = _num(rec.get("value"))
    attr = ' data-tamper-target=""' if tamper else ""
    return f'<span class="value"{attr}>{_e(text)}</span>'


def _threshold_main(threshold: Mapping[str, Any]) -> str:
    comparison = _str(threshold.get("comparison"))
    if _is_num(threshold.get("value")):
        return f"{_ops(comparison)} {_plain(threshold['value'])}".strip()
    for key in _RULE_LIMITS:
        if _is_num(threshold.get(key)):
            return f"{_ops(comparison)} {_plain(threshold[key])}".strip()
    return _ops(comparison) or "—"


def _interval_cell(rec: Mapping[str, Any]) -> str:
    if rec.get("interval") is not None:
        return _e(_interval_text(rec.get("interval")))
    bounds = _dict(_dict(rec.get("details")).get("gap_bounds"))
    if _is_num(bounds.get("lo")) and _is_num(bounds.get("hi")):
        return f"gap in [{_num(bounds['lo'])}, {_num(bounds['hi'])}]"
    return "—"


def _facts(rows: Sequence[tuple[str, str]]) -> str:
    """A definition grid; values are already-escaped HTML."""
    body = "".join(f"<div><dt>{_e(k)}</dt><dd>{v}</dd></div>" for k, v in rows)
    return f'<dl class="facts">{body}</dl>'


def _kv(rows: Sequence[tuple[str, str]]) -> str:
    body = "".join(f"<dt>{_e(k)}</dt><dd>{v}</dd>" for k, v in rows)
    return f'<dl class="kv">{body}</dl>'


def _size(value: object) -> str:
    if not isinstance(value, int) or isinstance(value, bool):
        return ""
    for unit, factor in (("MB", 1_000_000), ("kB", 1_000)):
        if value >= factor:
            return f"{value / factor:.1f} {unit}"
    return f"{value} bytes"


def _short_hash(text: str) -> str:
    """``sha256:`` and the first 16 hex digits, for the summary; the full one is below."""
    body = text.removeprefix("sha256:")
    return f"sha256:{body[:16]}…" if len(body) > 16 else text


def _when(stamp: object) -> str:
    """An RFC 3339 UTC time as ``1 December 2026, 15:47:33 UTC``, or the text as given."""
    if not isinstance(stamp, str):
        return "—"
    try:
        at = dt.datetime.fromisoformat(stamp.replace("Z", "+00:00"))
    except ValueError:
        return stamp
    if at.utcoffset() != dt.timedelta(0):
        return stamp
    return f"{at.day} {at:%B %Y}, {at:%H:%M:%S} UTC"


def _verdict_counts(tests: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    counts = dict.fromkeys(VERDICTS, 0)
    for t in tests:
        v = t.get("verdict")
        if isinstance(v, str) and v in counts:
            counts[v] += 1
    return counts


def _head(predicate: Mapping[str, Any]) -> str:
    system = _dict(predicate.get("system"))
    name = _str(system.get("name"), "unnamed system")
    version = _str(system.get("version"))
    tests = _tests(predicate)
    verdict = predicate.get("verdict")
    counts = _verdict_counts(tests)
    dataset = _dict(_dict(predicate.get("fingerprints")).get("dataset"))
    engine = _dict(predicate.get("engine"))
    cases = _dict(predicate.get("counts")).get("cases")
    sha = _str(dataset.get("sha256"))
    dataset_html = _e(_str(dataset.get("name"), "—"))
    if sha:
        dataset_html += f' <span class="mono muted">{_e(_short_hash(sha))}</span>'
    extra = [
        (label, _e(system[key]))
        for key, label in (
            ("owner", "Owner"),
            ("jurisdiction", "Jurisdiction"),
            ("first_distributed", "First distributed"),
        )
        if isinstance(system.get(key), str)
    ]
    python = engine.get("python")
    facts = [
        ("System", _e(f"{name} {version}".strip())),
        ("Use case", _e(_str(system.get("use_case"), "—"))),
        *extra,
        ("Dataset", dataset_html),
        (
            "Cases",
            _e(
                " · ".join(
                    b
                    for b in (
                        _int_text(cases) if isinstance(cases, int) else "",
                        _size(dataset.get("size_bytes")),
                    )
                    if b
                )
                or "—"
            ),
        ),
        ("Evaluated", _e(_when(predicate.get("timestamp")))),
        ("Run id", f'<span class="mono">{_e(_str(predicate.get("run_id"), "—"))}</span>'),
        (
            "Engine",
            _e(
                f"{_str(engine.get('name'), '?')} {_str(engine.get('version'))}"
                + (f", Python {python}" if isinstance(python, str) else "")
            ),
        ),
        (
            "Signing key",
            f'<span class="mono">{_e(_short_hash(_str(predicate.get("key_id"), "—")))}</span>',
        ),
    ]
    count_html = "".join(
        f'<span class="count {_verdict_class(v)}"><b>{counts[v]}</b> {_e(_VERDICT_WORDS[v])}'
        "</span>"
        for v in VERDICTS
    )
    sentence = _VERDICT_SENTENCES.get(str(verdict), "The record's verdict is not one of the four.")
    word = _VERDICT_WORDS.get(str(verdict), str(verdict))
    return (
        '<header class="doc-head"><div>'
        '<div class="eyebrow">respai evidence report</div>'
        f"<h1>{_e(name)}{(' ' + _e(version)) if version else ''}</h1>"
        f'<div class="muted">{_e(_str(system.get("use_case")))}</div></div>'
        f'<div class="when">{_e(_when(predicate.get("timestamp")))}<br>'
        f"record format {_e(_str(predicate.get('schema_version'), '?'))}</div>"
        "</header>"
        f'<section class="banner {_verdict_class(verdict)}" id="verdict" aria-label="verdict">'
        f'<div class="label">Verdict</div><div class="word">{_e(word)}</div>'
        f'<div class="why"><p>{_e(sentence)} The run\'s verdict is the worst over its '
        f"{len(tests)} tests.</p>"
        f'<div class="counts">{count_html}</div>'
        '<p class="scope">It concerns these defined measurements on this data only: not '
        "safety, fairness or compliance in general.</p></div>"
        "</section>" + _facts(facts)
    )


def _verification_box(has_key: bool) -> str:
    key_note = (
        "The signature is checked against the public key embedded in this page: compare its "
        "key id with the one the signer publishes."
        if has_key
        else "No public key was embedded, so the signature cannot be checked here."
    )
    return (
        '<section class="verify" id="verification" data-state="pending" aria-live="polite">'
        '<div class="verify-head"><span class="dot"></span>'
        '<strong id="verify-title">Checking the signature and the hash chain…</strong></div>'
        '<p id="verify-summary" class="small"></p>'
        '<ul id="verify-chips" class="chips"></ul>'
        '<details id="verify-details"><summary>What each check found</summary>'
        '<ul id="verify-checks" class="small"></ul></details>'
        f'<p class="small muted">{_e(key_note)} The checks run in this browser with '
        "WebCrypto; nothing is sent anywhere.</p>"
        '<p class="small print-only">Printed copy: these checks ran in the browser when '
        "the page was printed. Paper cannot be verified; the signed record.json can.</p>"
        "<noscript><p>Verification needs JavaScript. Without it, check the record with "
        "<code>respai verify record.json --key public_key.pem</code>.</p></noscript>"
        '<div class="tamper-controls no-print">'
        '<button type="button" id="tamper">Tamper with a value</button>'
        '<button type="button" id="reset" disabled>Reset</button>'
        '<span id="tamper-note"></span></div>'
        "</section>"
    )


def _tests_table(tests: Sequence[Mapping[str, Any]], tamper: int | None) -> str:
    rows = []
    previous = None
    for i, rec in enumerate(tests):
        name, sub = _test_name(rec)
        test_id = rec.get("test_id")
        cls = ' class="group-break"' if previous is not None and test_id != previous else ""
        previous = test_id
        uncertain = '<span class="flag">uncertain</span>' if rec.get("uncertain") is True else ""
        threshold = _dict(rec.get("threshold"))
        label = f"{name} · {sub}" if sub else name
        rows.append(
            f"<tr{cls}>"
            f'<td class="test"><a href="#test-{i + 1}">{_e(label)}</a>'
            f'<span class="key mono">{_e(_str(rec.get("test_key")))}</span></td>'
            f'<td class="num">{_value_html(rec, i == tamper)}</td>'
            f'<td class="interval">{_interval_cell(rec)}</td>'
            f'<td class="num">{_e(_threshold_main(threshold))}</td>'
            f"<td>{_badge(rec.get('verdict'))}{uncertain}</td>"
            f'<td class="reason">{_e(_str(rec.get("reason")))}</td>'
            "</tr>"
        )
    return (
        '<table class="tests"><thead><tr><th>Test</th><th class="num">Value</th>'
        '<th>Interval</th><th class="num">Threshold</th><th>Verdict</th><th>Reason</th>'
        f"</tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )


def _supports_line(rec: Mapping[str, Any]) -> str:
    clauses = [_dict(c) for c in _list(rec.get("supports"))]
    if not clauses:
        return ""
    by_framework: dict[str, list[str]] = {}
    for c in clauses:
        framework = _str(c.get("framework"), "?")
        by_framework.setdefault(framework, []).append(_str(c.get("clause"), "?"))
    items = " · ".join(
        f"<b>{_e(_FRAMEWORK_SHORT.get(k, k))}</b> {_e(', '.join(v))}"
        for k, v in by_framework.items()
    )
    return (
        f'<p class="supports">Supports {len(clauses)} clause(s): {items}. '
        '<a href="#controls">What “supports” means.</a></p>'
    )


def _sig(value: object) -> str:
    return f"{float(value):.4g}" if _is_num(value) else "—"


def _rule_rows(rec: Mapping[str, Any]) -> list[tuple[str, str]]:
    """A group rule's own settings: rate, groups, error budget, minimum cell, left out."""
    details = _dict(rec.get("details"))
    left = _dict(details.get("left_out"))
    reasons = _dict(left.get("by_reason"))
    left_text = (
        f"{_int_text(left.get('total'))} case(s)"
        + (
            f" ({float(left['share']) * 100:.1f}% of the file)"
            if _is_num(left.get("share"))
            else ""
        )
        + (
            ": " + "; ".join(f"{_e(k)}: {_int_text(v)}" for k, v in reasons.items())
            if reasons
            else ""
        )
    )
    small = [
        f"{_str(_dict(c).get('group'), '?')} ({_int_text(_dict(c).get('with_prediction'))} "
        "with a prediction)"
        for c in _list(details.get("small_cells"))
    ]
    rows = [
        ("Rate", _e(_str(details.get("rate"), "—").replace("_", " "))),
        ("Groups", _e(" × ".join(str(a) for a in _list(details.get("attribute"))))),
        (
            "Error budget",
            _e(
                f"alpha {_plain(details.get('alpha'))}, "
                f"{_sig(details.get('alpha_per_group'))} per group"
            ),
        ),
        ("Minimum cell", _e(f"{_plain(details.get('min_cell'))} cases")),
        ("Left out", left_text),
    ]
    if small:
        rows.append(("Small cells", _e(", ".join(small))))
    return rows


def _auc_extras(rec: Mapping[str, Any]) -> str:
    details = _dict(rec.get("details"))
    overall = _dict(details.get("overall"))
    line = (
        f"{_int_text(overall.get('positives'))} cases labelled 1 and "
        f"{_int_text(overall.get('negatives'))} labelled 0; "
        f"{_int_text(details.get('cases_without_score'))} without a score."
    )
    return f'<p class="small muted">{_e(line)}</p>' + _auc_charts(rec)


def _matches_extras(rec: Mapping[str, Any]) -> str:
    details = _dict(rec.get("details"))
    line = (
        f"{_int_text(details.get('correct'))} of {_int_text(details.get('with_prediction'))}"
        " cases with a prediction match the label; "
        f"{_int_text(details.get('missing_prediction'))} case(s) have no prediction."
    )
    return f'<p class="small muted">{_e(line)}</p>'


def _labels_extras(rec: Mapping[str, Any]) -> str:
    details = _dict(rec.get("details"))
    line = (
        f"{_int_text(details.get('labelled_1'))} cases labelled 1, "
        f"{_int_text(details.get('labelled_0'))} labelled 0."
    )
    return f'<p class="small muted">{_e(line)}</p>'


def _cells_extras(rec: Mapping[str, Any]) -> str:
    details = _dict(rec.get("details"))
    cols = _dict(details.get("empty_by_column"))
    body = "".join(
        f'<tr><td class="mono">{_e(k)}</td><td class="num">{_int_text(v)}</td></tr>'
        for k, v in cols.items()
    )
    line = (
        f"{_int_text(details.get('empty_cells'))} empty of {_int_text(details.get('cells'))}"
        f" cells over {_int_text(details.get('columns'))} columns."
    )
    table = (
        '<table class="small compact"><thead><tr><th>Column</th>'
        '<th class="num">Empty cells</th>'
        f"</tr></thead><tbody>{body}</tbody></table>"
        if body
        else ""
    )
    return f'<p class="small muted">{_e(line)}</p>{table}'


#: How each kind of battery details is shown below its test (the registry names the kind).
_EXTRAS: Mapping[DetailsKind, Callable[[Mapping[str, Any]], str]] = {
    DetailsKind.GROUP_RATES: _spread_chart,
    DetailsKind.RANKS: _auc_extras,
    DetailsKind.MATCHES: _matches_extras,
    DetailsKind.LABELS: _labels_extras,
    DetailsKind.CELLS: _cells_extras,
}


def _test_extras(rec: Mapping[str, Any]) -> str:
    test_id = _str(rec.get("test_id"))
    if test_id == TestId.GROUP_RULE:
        return _rule_chart(rec)
    entry = REGISTRY.get(test_id)
    show = _EXTRAS.get(entry.details) if entry is not None else None
    return show(rec) if show is not None else ""


def _test_section(i: int, rec: Mapping[str, Any], tamper: bool) -> str:
    name, sub = _test_name(rec)
    threshold = _dict(rec.get("threshold"))
    iv = _dict(rec.get("interval"))
    interval_note = ""
    if iv:
        level = iv.get("confidence")
        interval_note = _str(iv.get("method")) + (
            f", {float(level) * 100:.4g}%" if _is_num(level) else ""
        )
    elif _dict(_dict(rec.get("details")).get("gap_bounds")):
        interval_note = "bounds on the largest gap"
    decision = _str(threshold.get("decision"))
    source = _str(threshold.get("source"))
    if "uncertain" in rec:
        uncertain = (
            '<span class="flag">uncertain</span>: the interval crosses the threshold'
            if rec.get("uncertain") is True
            else "no: the interval lies on one side of the threshold"
            if iv
            else "no: there is no interval"
        )
    else:
        uncertain = "not applicable: a group rule is decided from its intervals"
    value_note = _str(rec.get("value_meaning"))
    strip = (
        '<div class="strip">'
        f'<div><span class="k">Value</span><span class="v">{_value_html(rec, tamper)}</span>'
        f'<span class="n">{_e(value_note)}</span></div>'
        f'<div><span class="k">Interval</span><span class="v">{_interval_cell(rec)}</span>'
        f'<span class="n">{_e(interval_note)}</span></div>'
        f'<div><span class="k">Threshold</span><span class="v">'
        f"{_e(_threshold_main(threshold))}</span>"
        f'<span class="n">{_e(("decided on the " + decision) if decision else "")}</span></div>'
        f'<div><span class="k">Verdict</span><span class="v">{_badge(rec.get("verdict"))}</span>'
        f'<span class="n">{"uncertain" if rec.get("uncertain") is True else ""}</span></div>'
        "</div>"
    )
    rows = [
        ("Reason", _e(_str(rec.get("reason"), "—"))),
        ("Threshold source", _e(source or "—")),
        ("Uncertain", uncertain),
        ("Method", _e(_str(rec.get("method"), "—"))),
    ]
    undefined = rec.get("undefined_reason")
    if isinstance(undefined, str) and undefined != rec.get("reason"):
        rows.insert(1, ("Undefined", _e(undefined)))
    if rec.get("test_id") == TestId.GROUP_RULE:
        rows.extend(_rule_rows(rec))
    title = f"{i}. {name}" + (f" · {sub}" if sub else "")
    return (
        f'<section class="test-section" id="test-{i}">'
        f'<div class="title"><h3>{_e(title)}</h3>'
        f'<span class="key mono small">{_e(_str(rec.get("test_key")))}</span></div>'
        f"{strip}{_kv(rows)}{_test_extras(rec)}{_supports_line(rec)}</section>"
    )


def _fingerprints(predicate: Mapping[str, Any], statement: Mapping[str, Any]) -> str:
    fps = _dict(predicate.get("fingerprints"))
    records = [_dict(r) for r in _list(predicate.get("records"))]
    start = records[0] if records else {}
    rows: list[tuple[str, str]] = []
    dataset = _dict(fps.get("dataset"))
    if dataset:
        rows.append(
            (
                "Dataset",
                _e(
                    f"{_str(dataset.get('name'), '—')} · {_str(dataset.get('media_type'))} · "
                    f"{_size(dataset.get('size_bytes'))}"
                )
                + f'<br><span class="mono hash">sha256:{_e(_str(dataset.get("sha256")))}</span>',
            )
        )
    model = fps.get("model")
    if model is None:
        rows.append(("Model", "none: model access is not part of this evaluation"))
    else:
        m = _dict(model)
        rows.append(
            (
                "Model",
                _e(_str(m.get("name"), "model"))
                + f'<br><span class="mono hash">sha256:{_e(_str(m.get("sha256")))}</span>',
            )
        )
    code = _dict(fps.get("engine_code"))
    if code:
        git = ""
        if isinstance(code.get("git_commit"), str):
            dirty = " (uncommitted changes)" if code.get("git_dirty") is True else ""
            git = f'<br>git commit <span class="mono">{_e(code["git_commit"])}</span>{_e(dirty)}'
        rows.append(
            (
                "Engine code",
                _e(f"version {_str(code.get('version'), '?')}")
                + f" · {_int_text(code.get('files'))} files"
                + f'<br><span class="mono hash">sha256:{_e(_str(code.get("sha256")))}</span>{git}',
            )
        )
    spec = _dict(start.get("spec"))
    if spec:
        rows.append(
            (
                "Spec",
                _e(_str(spec.get("name"), "—"))
                + f'<br><span class="mono hash">sha256:{_e(_str(spec.get("sha256"), "—"))}</span>',
            )
        )
    policy = start.get("policy")
    policy_d = _dict(policy)
    rows.append(
        (
            "Policy",
            "none: default thresholds"
            if policy is None
            else _e(_str(policy_d.get("name"), "—"))
            + f'<br><span class="mono hash">sha256:{_e(_str(policy_d.get("sha256"), "—"))}</span>',
        )
    )
    settings = _dict(start.get("settings"))
    if settings:
        sources = _dict(settings.get("sources"))

        def with_source(key: str) -> str:
            src = sources.get(key)
            return _e(_plain(settings.get(key))) + (
                f' <span class="muted small">({_e(src)})</span>' if isinstance(src, str) else ""
            )

        rows.extend(
            [
                ("alpha", with_source("alpha")),
                ("Minimum cell", with_source("min_cell")),
                ("Max left out", with_source("max_left_out")),
                ("Score column", _e(_plain(settings.get("score")))),
                ("Unit column", _e(_plain(settings.get("unit")))),
            ]
        )
    subjects = ", ".join(_e(_str(_dict(s).get("name"))) for s in _list(statement.get("subject")))
    rows.append(("Statement subjects", subjects or "—"))
    rows.append(
        (
            "Run identity",
            _e(
                f"run {_str(predicate.get('run_id'), '—')} at "
                f"{_str(predicate.get('timestamp'), '—')}, schema_version "
                f"{_str(predicate.get('schema_version'), '?')}"
            ),
        )
    )
    rows.append(
        ("Key id", f'<span class="mono hash">{_e(_str(predicate.get("key_id"), "—"))}</span>')
    )
    return _kv(rows)


def _chain_table(predicate: Mapping[str, Any]) -> str:
    records = [_dict(x) for x in _list(predicate.get("records"))]
    rows = [
        f'<tr><td class="num">{_e(_plain(r.get("seq")))}</td>'
        f"<td>{_e(_str(r.get('record_type'), '—'))}</td>"
        f'<td class="mono">{_e(_str(r.get("test_key")))}</td>'
        f'<td class="mono hash small">{_e(_str(r.get("record_id"), "—"))}</td></tr>'
        for r in records
    ]
    genesis = _str(records[0].get("prev_record_id"), "—") if records else "—"
    return (
        '<p class="small">Each record\'s id is the SHA-256 of its canonical JSON without the '
        "id; each record holds the id of the one before it, and the run_end record lists "
        "every id of the run. Editing, dropping or reordering a record breaks the chain. "
        f'The first record links to <span class="mono hash">{_e(genesis)}</span>.</p>'
        '<table class="small"><thead><tr><th class="num">seq</th><th>type</th><th>test</th>'
        f"<th>record_id</th></tr></thead><tbody>{''.join(rows)}</tbody></table>"
    )


def _controls(predicate: Mapping[str, Any], tests: Sequence[Mapping[str, Any]]) -> str:
    mapping = _dict(predicate.get("control_mapping"))
    frameworks = _dict(mapping.get("frameworks"))
    relation = _str(mapping.get("relation"), "supports")
    intro = (
        f'<div class="callout">Each test <b>{_e(relation)}</b> the clauses listed with it: '
        "the clause calls for the kind of measurement the test makes. Whether an obligation "
        "is met depends on evidence beyond any one test, on context and on judgment that "
        "belongs to the organisation, its auditor or, where one is required, a notified "
        "body.</div>"
    )
    facts = _kv(
        [
            ("Mapping version", _e(_str(mapping.get("version"), "—"))),
            ("Review status", _e(_str(mapping.get("review_status"), "—"))),
            ("Relation", _e(relation)),
            (
                "Frameworks",
                "<br>".join(
                    f"{_e(_FRAMEWORK_SHORT.get(str(k), str(k)))}: {_e(v)}"
                    for k, v in frameworks.items()
                )
                or "—",
            ),
        ]
    )
    by_test: dict[str, list[Mapping[str, Any]]] = {}
    keys: dict[str, list[str]] = {}
    for rec in tests:
        test_id = _str(rec.get("test_id"), "?")
        keys.setdefault(test_id, []).append(_str(rec.get("test_key")))
        by_test.setdefault(test_id, [_dict(c) for c in _list(rec.get("supports"))])
    blocks = []
    for test_id, clauses in by_test.items():
        if not clauses:
            continue
        body = "".join(
            "<tr>"
            f"<td>{_e(_framework(c.get('framework')))}</td>"
            f"<td>{_e(_str(c.get('clause')))}</td>"
            f"<td>{_e(_str(c.get('title')))}"
            f'<div class="muted small">{_e(_str(c.get("note")))}</div></td></tr>'
            for c in clauses
        )
        records = ", ".join(keys[test_id])
        blocks.append(
            f'<h4>{_e(TEST_NAMES.get(test_id, test_id))} <span class="muted small">'
            f"({_e(records)}) {_e(relation)}:</span></h4>"
            '<table class="small clauses"><colgroup><col class="fw"><col class="cl"><col>'
            "</colgroup><thead><tr><th>Framework</th><th>Clause</th>"
            f"<th>Title and note</th></tr></thead><tbody>{body}</tbody></table>"
        )
    return intro + facts + "".join(blocks)


def _claims(predicate: Mapping[str, Any]) -> str:
    claims = _dict(predicate.get("claims"))

    def items(values: object) -> str:
        return "".join(f"<li>{_e(v)}</li>" for v in _list(values)) or "<li>—</li>"

    caveats = "".join(f"<li>{_e(c)}</li>" for c in _list(predicate.get("caveats")))
    return (
        '<div class="claims">'
        f"<div><h3>This record states</h3><ul>{items(claims.get('states'))}</ul></div>"
        f"<div><h3>This record does not state</h3><ul>{items(claims.get('does_not_state'))}"
        "</ul></div></div>"
        f'<h3 class="caveats-head">Caveats</h3><ul class="caveats">{caveats or "<li>—</li>"}</ul>'
    )


def _body(envelope: Mapping[str, Any], has_key: bool) -> str:
    try:
        payload = b64decode_any(envelope.get("payload"))
        statement_any = loads_strict(payload)
    except RecordError as exc:
        return (
            '<header class="doc-head"><div><div class="eyebrow">respai evidence report</div>'
            "<h1>The record cannot be read</h1></div></header>"
            f"<p>{_e(exc.message)}</p>" + _verification_box(has_key)
        )
    statement = _dict(statement_any)
    predicate = _dict(statement.get("predicate"))
    tests = _tests(predicate)
    tamper = _first_tamper_index(tests)
    sections = "".join(_test_section(i + 1, rec, i == tamper) for i, rec in enumerate(tests))
    return (
        _head(predicate) + _verification_box(has_key) + '<h2 class="first" id="tests">Tests</h2>'
        '<p class="small muted">Values are estimates from the evaluation data; intervals '
        "are 95% unless stated. A verdict marked uncertain is one whose interval crosses "
        "its threshold.</p>"
        + _tests_table(tests, tamper)
        + '<h2 id="details">Test details and per-group charts</h2>'
        + sections
        + '<h2 id="fingerprints">Fingerprints and run identity</h2>'
        '<p class="small">The record holds SHA-256 fingerprints of what was tested, never '
        "the rows themselves.</p>"
        + _fingerprints(predicate, statement)
        + '<h2 id="chain">Hash chain</h2>'
        + _chain_table(predicate)
        + '<h2 id="controls">Control mapping</h2>'
        + _controls(predicate, tests)
        + '<h2 id="claims">What this record states, and what it does not</h2>'
        + _claims(predicate)
        + "<footer>This page embeds the signed record (record.json) and re-checks it in "
        "your browser. To check it independently: "
        "<code>respai verify record.json --key public_key.pem</code>, or recompute the "
        "signature, record ids and chain as described in the record format. A printed copy "
        "is a copy: only the signed record can be verified.</footer>"
    )


def render_report(
    envelope: Mapping[str, Any],
    public_key_raw: bytes | None,
    *,
    title: str | None = None,
) -> str:
    """Return the evidence report for a signed record as one self-contained HTML page.

    Parameters
    ----------
    envelope
        The DSSE envelope (the parsed ``record.json``).
    public_key_raw
        The raw 32-byte Ed25519 public key the page checks the signature with, or
        ``None``: the page then shows the record but reports the signature as not
        checked (``data-verified="false"``, ``data-failed`` naming ``signature``).
    title
        The document title; by default ``"<system> <version> · respai evidence report"``.

    Returns
    -------
    str
        The HTML text. It makes no network request; the verification runs on load.
    """
    try:
        body = _body(envelope, public_key_raw is not None)
    except Exception as exc:  # a hostile record must still give a page that verifies
        body = (
            '<header class="doc-head"><div><div class="eyebrow">respai evidence report</div>'
            "<h1>The record cannot be displayed</h1></div></header>"
            f"<p>{_e(type(exc).__name__)}: {_e(exc)}</p>"
            + _verification_box(public_key_raw is not None)
        )
    if title is None:
        try:
            predicate = _dict(
                _dict(loads_strict(b64decode_any(envelope.get("payload")))).get("predicate")
            )
        except (RecordError, AttributeError):
            predicate = {}
        system = _dict(predicate.get("system"))
        name = f"{_str(system.get('name'), 'record')} {_str(system.get('version'))}".strip()
        title = f"{name} · respai evidence report"
    key_json: dict[str, str] | None = None
    if public_key_raw is not None:
        key_json = {
            "raw_b64": base64.b64encode(public_key_raw).decode("ascii"),
            "key_id": "sha256:" + hashlib.sha256(public_key_raw).hexdigest(),
        }
    css = asset_text("report_assets", "report.css")
    script = (
        asset_text("report_assets", "core.js") + "\n" + asset_text("report_assets", "report.js")
    )
    csp = (
        f"default-src 'none'; script-src {csp_hash(script)}; style-src {csp_hash(css)}; "
        "img-src data:; base-uri 'none'; form-action 'none'"
    )
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en" data-verified="pending" data-failed="">\n<head>\n'
        '<meta charset="utf-8">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{_e(csp)}">\n'
        '<meta name="referrer" content="no-referrer">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        '<meta name="generator" content="respai">\n'
        f"<title>{_e(title)}</title>\n"
        f"<style>{css}</style>\n</head>\n<body>\n<main>\n{body}\n</main>\n"
        '<script type="application/json" id="respai-envelope">'
        f"{embed_json(dict(envelope))}</script>\n"
        '<script type="application/json" id="respai-public-key">'
        f"{embed_json(key_json)}</script>\n"
        '<script type="application/json" id="respai-test-names">'
        f"{embed_json(dict(TEST_NAMES))}</script>\n"
        f"<script>{script}</script>\n</body>\n</html>\n"
    )


def render_report_file(
    record: str | Path,
    public_key: str | Path | None = None,
    *,
    title: str | None = None,
) -> str:
    """Read ``record.json`` (and its public key) and return :func:`render_report`'s page.

    Parameters
    ----------
    record
        The signed record, a DSSE envelope in JSON.
    public_key
        The signer's SPKI PEM public key. By default ``public_key.pem`` beside the
        record, when there is one; otherwise the page cannot check the signature.
    title
        Passed to :func:`render_report`.

    Raises
    ------
    respai.record.RecordError
        If the record is not a JSON object.
    respai.record.KeyMaterialError
        If the public key file cannot be read or is not Ed25519.
    """
    path = Path(record)
    try:
        envelope = loads_strict(path.read_bytes())
    except OSError as exc:
        raise RecordError(f"Cannot read the record {path}: {exc.strerror or exc}.") from None
    if not isinstance(envelope, dict):
        raise RecordError(f"{path} is not a JSON object (a DSSE envelope).")
    key_path = Path(public_key) if public_key is not None else path.parent / "public_key.pem"
    raw = None
    if public_key is not None or key_path.is_file():
        raw = public_key_raw(load_public_key(key_path))
    return render_report(envelope, raw, title=title)
