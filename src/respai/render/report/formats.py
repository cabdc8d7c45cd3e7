"""The named formats of the report's bound text: each turns one JSON value into the page's text.

A format is a pure function of the value at the element's ``data-bind`` path and the
element's ``data-arg``. ``report_assets/report.js`` implements every format of
:data:`FORMATS` under the same name, and the page's script compares its result with the
text the page shows; ``tests/browser/test_report.py`` runs both implementations over the
same values and requires equal text. A format takes its default (``—``, ``?``) from its
name, never from the page, and an argument may only change how much is shown (digits,
which verdict is counted), never make the text say something the record does not.

Text from the record is shown with its control, format (bidi) and separator characters
escaped (:func:`shown`, the rule of :func:`respai.render.escape.terminal_text`).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Mapping
from typing import Any

from respai.battery import TestId
from respai.blocks import test_names
from respai.record.canonical import canonical_bytes
from respai.render.escape import terminal_text
from respai.render.gap import shown_gap_bounds
from respai.render.report.fields import as_dict, as_list, is_number
from respai.render.report.group_rates import count_text_of, rate_text
from respai.render.report.verdict_words import VERDICT_SENTENCES, VERDICT_WORDS

__all__ = [
    "FORMATS",
    "FRAMEWORK_NAMES",
    "count_text",
    "es_number",
    "fixed",
    "interval_text",
    "js_order",
    "plain",
    "shown",
    "significant",
    "size_text",
    "threshold_text",
    "when",
]

DASH = "—"

FRAMEWORK_NAMES = {
    "iso42001": "ISO/IEC 42001",
    "eu_ai_act": "EU AI Act",
    "nist_ai_rmf": "NIST AI RMF",
    "nyc_dcwp": "NYC DCWP (LL144)",
    "eeoc_ugesp": "EEOC UGESP",
    "colorado": "Colorado SB 24-205",
}

_RULE_LIMITS = ("max_group_gap", "min_group_ratio", "worst_group_min", "worst_group_max")
_STAMP = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.[0-9]{1,9})?Z"
)
_MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]

Format = Callable[[Any, str | None], str]


def shown(text: str) -> str:
    r"""Record text as the page shows it: control, bidi and separator characters escaped.

    >>> shown("admin\u202eexe")
    'admin\\u202eexe'
    """
    return terminal_text(text)


def _str(value: object, default: str = DASH) -> str:
    """A non-empty string shown escaped, else ``default``."""
    return shown(value) if isinstance(value, str) and value else default


def js_order(mapping: Mapping[str, Any]) -> list[str]:
    """An object's keys in the order JavaScript lists them: array indexes first, ascending."""
    index = [k for k in mapping if re.fullmatch("0|[1-9][0-9]*", k) and int(k) < 2**32 - 1]
    return sorted(index, key=int) + [k for k in mapping if k not in index]


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def es_number(value: int | float) -> str:
    """A number as ECMAScript's ``String(x)`` writes it (``0.8``, ``1``, ``1e-7``)."""
    return canonical_bytes(value).decode("ascii")


def fixed(value: object, digits: int = 4) -> str:
    """A number to ``digits`` decimals (``1`` as ``1.0000``, ties to even), else a dash."""
    return f"{float(value):.{digits}f}" if is_number(value) else DASH


def plain(value: object) -> str:
    """A threshold-like number as written (``0.8``, not ``0.8000``), a string, or a dash."""
    if is_number(value):
        return es_number(value)
    return shown(value) if isinstance(value, str) else DASH


def count_text(value: object) -> str:
    """A count with thousands separators (``12,345``), else a dash."""
    return f"{value:,}" if _is_int(value) else DASH


def significant(value: object) -> str:
    """A number to four significant digits (``0.0125``), else a dash."""
    return f"{float(value):.4g}" if is_number(value) else DASH


def interval_text(iv: object) -> str:
    """An interval as ``[lo, hi]`` to four decimals, else a dash."""
    d = as_dict(iv)
    if not (is_number(d.get("lo")) and is_number(d.get("hi"))):
        return DASH
    return f"[{fixed(d['lo'])}, {fixed(d['hi'])}]"


def size_text(value: object) -> str:
    """A size in bytes as ``12.3 MB``, ``4.5 kB`` or ``12 bytes``; empty if not an int."""
    if not isinstance(value, int) or isinstance(value, bool):
        return ""
    for unit, factor in (("MB", 1_000_000), ("kB", 1_000)):
        if value >= factor:
            return f"{value / factor:.1f} {unit}"
    return f"{value} bytes"


def when(stamp: object) -> str:
    """An RFC 3339 UTC time (``...Z``) as ``1 December 2026, 15:47:33 UTC``, else as given."""
    if not isinstance(stamp, str):
        return DASH
    m = _STAMP.fullmatch(stamp)
    if m is None:
        return shown(stamp)
    y, mo, d, h, mi, s = (int(g) for g in m.groups())
    try:
        dt.datetime(y, mo, d, h, mi, s)
    except ValueError:
        return shown(stamp)
    return f"{d} {_MONTHS[mo - 1]} {y:04d}, {h:02d}:{mi:02d}:{s:02d} UTC"


def _operators(text: str) -> str:
    return text.replace(">=", "≥").replace("<=", "≤")


def threshold_text(threshold: object) -> str:
    """A threshold as ``≥ 0.8``: its comparison and value, or a group rule's limit."""
    t = as_dict(threshold)
    comparison = shown(t["comparison"]) if isinstance(t.get("comparison"), str) else ""
    for key in ("value", *_RULE_LIMITS):
        if is_number(t.get(key)):
            return f"{_operators(comparison)} {plain(t[key])}".strip()
    return _operators(comparison) or DASH


def _percent(value: object) -> str:
    return f"{float(value) * 100:.4g}%" if is_number(value) else ""


def _items(value: object) -> str:
    """The elements of a list joined by ``×``: strings shown, anything else as ``?``."""
    return " × ".join(shown(g) if isinstance(g, str) else "?" for g in as_list(value))


def _test_name(value: object, _arg: str | None) -> str:
    if isinstance(value, str):
        return test_names().get(value, shown(value))
    return "test"


def _verdict(value: object, _arg: str | None) -> str:
    if isinstance(value, str):
        return VERDICT_WORDS.get(value, shown(value))
    return DASH


def _tests(records: object) -> list[Mapping[str, Any]]:
    return [as_dict(r) for r in as_list(records) if as_dict(r).get("record_type") == "test"]


def _verdict_count(records: object, arg: str | None) -> str:
    verdict = arg if arg in VERDICT_WORDS else "PASS"
    n = sum(1 for t in _tests(records) if t.get("verdict") == verdict)
    return f"{n} {VERDICT_WORDS[verdict]}"


def _test_number(records: object, arg: str | None) -> str:
    """The page number (from 1) of the test at records[arg] among the test records."""
    items = as_list(records)
    index = int(arg) if arg is not None and re.fullmatch("[0-9]{1,9}", arg) else -1
    if not 0 <= index < len(items) or as_dict(items[index]).get("record_type") != "test":
        return "?"
    return str(sum(1 for r in items[:index] if as_dict(r).get("record_type") == "test") + 1)


def _sub(rec: object, _arg: str | None) -> str:
    """A test's grouping (``sex × age_band``), or a group rule's id."""
    r = as_dict(rec)
    if r.get("test_id") == TestId.GROUP_RULE:
        key = r.get("test_key")
        return shown(key.removeprefix("rule:")) if isinstance(key, str) else ""
    return _items(r.get("grouping"))


def _interval_cell(rec: object, _arg: str | None) -> str:
    r = as_dict(rec)
    if r.get("interval") is not None:
        return interval_text(r.get("interval"))
    bounds = shown_gap_bounds(as_dict(r.get("details")).get("gap_bounds"))
    if bounds is not None:  # a gap is never negative: its lower bound is shown as max(lo, 0)
        return f"gap in [{fixed(bounds[0])}, {fixed(bounds[1])}]"
    return DASH


def _interval_note(rec: object, _arg: str | None) -> str:
    r = as_dict(rec)
    iv = as_dict(r.get("interval"))
    if iv:
        method = shown(iv["method"]) if isinstance(iv.get("method"), str) else ""
        level = iv.get("confidence")
        return method + (f", {_percent(level)}" if is_number(level) else "")
    if as_dict(as_dict(r.get("details")).get("gap_bounds")):
        return "bounds on the largest gap"
    return ""


def _uncertain_note(rec: object, _arg: str | None) -> str:
    r = as_dict(rec)
    if "uncertain" not in r:
        return "not applicable: a group rule is decided from its intervals"
    if r.get("uncertain") is True:
        return "uncertain: the interval crosses the threshold"
    if as_dict(r.get("interval")):
        return "no: the interval lies on one side of the threshold"
    return "no: there is no interval"


def _decision(value: object, _arg: str | None) -> str:
    return f"decided on the {shown(value)}" if isinstance(value, str) and value else ""


def _cases(predicate: object, _arg: str | None) -> str:
    p = as_dict(predicate)
    cases = as_dict(p.get("counts")).get("cases")
    size = as_dict(as_dict(p.get("fingerprints")).get("dataset")).get("size_bytes")
    parts = [count_text(cases) if _is_int(cases) else "", size_text(size)]
    return " · ".join(b for b in parts if b) or DASH


def _engine(engine: object, _arg: str | None) -> str:
    e = as_dict(engine)
    python = e.get("python")
    return f"{_str(e.get('name'), '?')} {_str(e.get('version'), '')}" + (
        f", Python {shown(python)}" if isinstance(python, str) else ""
    )


def _short_hash(value: object, _arg: str | None) -> str:
    if not isinstance(value, str):
        return ""
    body = value.removeprefix("sha256:")
    return shown(f"sha256:{body[:16]}…" if len(body) > 16 else value)


def _error_budget(details: object, _arg: str | None) -> str:
    d = as_dict(details)
    return f"alpha {plain(d.get('alpha'))}, {significant(d.get('alpha_per_group'))} per group"


def _left_out(left: object, _arg: str | None) -> str:
    d = as_dict(left)
    reasons = as_dict(d.get("by_reason"))
    share = d.get("share")
    return (
        f"{count_text(d.get('total'))} case(s)"
        + (f" ({float(share) * 100:.1f}% of the file)" if is_number(share) else "")
        + (
            ": " + "; ".join(f"{shown(k)}: {count_text(reasons[k])}" for k in js_order(reasons))
            if reasons
            else ""
        )
    )


def _small_cells(cells: object, _arg: str | None) -> str:
    return ", ".join(
        f"{_str(as_dict(c).get('group'), '?')} "
        f"({count_text(as_dict(c).get('with_prediction'))} with a prediction)"
        for c in as_list(cells)
    )


def _n_over_d(group: object, _arg: str | None) -> str:
    """A group's numerator and denominator as ``n / d``."""
    g = as_dict(group)
    return f"{count_text(g.get('numerator'))} / {count_text(g.get('denominator'))}"


def _rule_note(group: object, _arg: str | None) -> str:
    g = as_dict(group)
    note = f"{count_text(g.get('events'))} / {count_text(g.get('with_prediction'))}"
    missing = g.get("missing_prediction")
    if _is_int(missing) and missing:
        note += f" · {missing:,} no pred."
    if g.get("small_cell") is True:
        note += " · small cell"
    return note


def _pos_neg(group: object, _arg: str | None) -> str:
    g = as_dict(group)
    return f"{count_text(g.get('positives'))} pos. / {count_text(g.get('negatives'))} neg."


def _short(value: object, _arg: str | None) -> str:
    """A group name for a chart's label column: shown, cut to 30 characters."""
    text = _str(value, "?")
    return text if len(text) <= 30 else text[:29] + "…"


def _rate_name(value: object, _arg: str | None) -> str:
    return _str(value).replace("_", " ")


def _title_case(text: str) -> str:
    """The first letter upper-cased when it is an ASCII letter (the rest as it is)."""
    return text[:1].upper() + text[1:] if text[:1].isascii() else text


def _level(groups: object, key: str, default: str) -> str:
    """The confidence of the last group's ``key`` interval, as a percentage, or ``default``."""
    level: object = None
    for g in as_list(groups):
        level = as_dict(as_dict(g).get(key)).get("confidence", level)
    return _percent(level) or default


def _spread_limit(rec: Mapping[str, Any]) -> tuple[float, str, str] | None:
    """Where a rate-spread chart's dashed line goes, its label, and the caption's note."""
    details = as_dict(rec.get("details"))
    rates = [
        float(g["rate"])
        for g in (as_dict(x) for x in as_list(details.get("groups")))
        if is_number(g.get("rate"))
    ]
    threshold = as_dict(rec.get("threshold"))
    t, comparison = threshold.get("value"), threshold.get("comparison")
    if not rates or not is_number(t):
        return None
    top = max(rates)
    if rec.get("test_id") == TestId.IMPACT_RATIO and comparison == ">=":
        return (
            top * float(t),
            f"{plain(t)} × highest = {top * float(t):.4f}",
            f" The dashed line is {plain(t)} times the highest rate: the impact ratio "
            "meets its threshold when the lowest group is at or to the right of it.",
        )
    if comparison == "<=" and top - float(t) >= 0:
        return (
            top - float(t),
            f"highest − {plain(t)} = {top - float(t):.4f}",
            f" The dashed line is the highest rate minus {plain(t)}: the difference "
            "meets its threshold when the lowest group is at or to the right of it.",
        )
    return None


def spread_limit(rec: Mapping[str, Any]) -> tuple[float, str] | None:
    """A rate-spread chart's dashed line: where it goes and its label, or ``None``."""
    found = _spread_limit(rec)
    return None if found is None else (found[0], found[1])


def _spread_limit_label(rec: object, _arg: str | None) -> str:
    found = _spread_limit(as_dict(rec))
    return "" if found is None else found[1]


def _spread_title(rec: object, _arg: str | None) -> str:
    r = as_dict(rec)
    return f"{_str(as_dict(r.get('details')).get('rate'), 'rate')} by {_items(r.get('grouping'))}"


def _spread_caption(rec: object, _arg: str | None) -> str:
    r = as_dict(rec)
    found = _spread_limit(r)
    what = _str(as_dict(r.get("details")).get("rate"), "rate")
    return (
        f"{_title_case(what)} by {_items(r.get('grouping'))}, over cases with a prediction. "
        "Numbers on the right: the rate, then cases counted / cases it is over."
        + ("" if found is None else found[2])
    )


def _spread_level(details: object, _arg: str | None) -> str:
    return _level(as_dict(details).get("groups"), "interval_simultaneous", "simultaneous")


def rule_limit(rec: Mapping[str, Any]) -> tuple[float, str] | None:
    """A group rule chart's limit line: where it goes and its label, or ``None``."""
    details = as_dict(rec.get("details"))
    threshold = as_dict(details.get("threshold")) or as_dict(rec.get("threshold"))
    limit: tuple[float, str] | None = None
    for key, word in (("worst_group_max", "maximum"), ("worst_group_min", "minimum")):
        if is_number(threshold.get(key)):
            limit = (float(threshold[key]), f"{word} {plain(threshold[key])}")
    return limit


def _rule_limit_label(rec: object, _arg: str | None) -> str:
    found = rule_limit(as_dict(rec))
    return "" if found is None else found[1]


def _rule_title(rec: object, _arg: str | None) -> str:
    r = as_dict(rec)
    rate = _str(as_dict(r.get("details")).get("rate"), "rate").replace("_", " ")
    return f"{rate} rate by {_items(r.get('grouping'))}"


def _rule_caption(rec: object, _arg: str | None) -> str:
    r = as_dict(rec)
    details = as_dict(r.get("details"))
    threshold = as_dict(details.get("threshold")) or as_dict(r.get("threshold"))
    rate = _str(details.get("rate"), "rate").replace("_", " ")
    conf = _level(details.get("groups"), "interval", "Clopper-Pearson")
    bounds = shown_gap_bounds(details.get("gap_bounds"))
    gap = ""
    if bounds is not None:
        gap = (
            f" The largest gap between two groups lies between {fixed(bounds[0])} and "
            f"{fixed(bounds[1])}"
            + (
                f"; the rule allows {plain(threshold['max_group_gap'])}."
                if is_number(threshold.get("max_group_gap"))
                else "."
            )
        )
    return (
        f"{_title_case(rate)} rate by {_items(r.get('grouping'))}. "
        f"Bars: Clopper-Pearson intervals at {conf} each (Bonferroni over the groups), with "
        "cases without a prediction counted at their worst. Numbers on the right: the rate, "
        "then events / cases with a prediction." + gap
    )


def _rule_level(details: object, _arg: str | None) -> str:
    return _level(as_dict(details).get("groups"), "interval", "Clopper-Pearson")


def _auc_title(key: object, _arg: str | None) -> str:
    return f"AUC by {_str(key, '?')}"


def _auc_caption(key: object, _arg: str | None) -> str:
    return (
        f"AUC by {_str(key, '?')}, with 95% intervals (from engine 0.4.0 the widest of "
        "Newcombe's, DeLong's on the logit scale and, for small unbalanced samples, a "
        "distribution-free bound; the record's interval.method names it); the open "
        "dot is the whole file, which the verdict reads. Numbers on the right: the AUC, "
        "then cases labelled 1 / labelled 0 with a score."
    )


def _auc_limit_label(value: object, _arg: str | None) -> str:
    return f"threshold {plain(value)}" if is_number(value) else ""


def _listed(groups: object, arg: str | None) -> str:
    """The note under a per-group table that lists only the groups at each end."""
    k = arg if arg is not None and _EACH.fullmatch(arg) else "?"
    return (
        f"With {count_text(len(as_list(groups)))} groups, the table lists only the {k} with "
        f"the fewest and the {k} with the most cases; the signed record holds every group."
    )


def _uncertain_flag(value: object, _arg: str | None) -> str:
    return "uncertain" if value is True else ""


_EACH = re.compile(r"[1-9][0-9]{0,3}")


def _drawn(groups: object, arg: str | None) -> str:
    """The note under a chart that draws only its lowest and highest groups."""
    k = arg if arg is not None and _EACH.fullmatch(arg) else "?"
    return (
        f"With {count_text(len(as_list(groups)))} groups, the chart draws only the {k} "
        f"with the lowest and the {k} with the highest value (a group without a value is "
        "not drawn); the signed record holds every group."
    )


def _length(value: object, _arg: str | None) -> str:
    return str(len(value)) if isinstance(value, list) else "0"


def _test_count(records: object, _arg: str | None) -> str:
    return str(len(_tests(records)))


def _framework(value: object, _arg: str | None) -> str:
    if isinstance(value, str):
        return FRAMEWORK_NAMES.get(value, shown(value))
    return "?"


def _run_identity(predicate: object, _arg: str | None) -> str:
    p = as_dict(predicate)
    return (
        f"run {_str(p.get('run_id'))} at {_str(p.get('timestamp'))}, schema_version "
        f"{_str(p.get('schema_version'), '?')}"
    )


def _dataset_line(dataset: object, _arg: str | None) -> str:
    d = as_dict(dataset)
    media = shown(d["media_type"]) if isinstance(d.get("media_type"), str) else ""
    return f"{_str(d.get('name'))} · {media} · {size_text(d.get('size_bytes'))}"


def _hash(value: object, _arg: str | None) -> str:
    return f"sha256:{shown(value) if isinstance(value, str) else DASH}"


def _with_dirty(code: object, _arg: str | None) -> str:
    return " (uncommitted changes)" if as_dict(code).get("git_dirty") is True else ""


# -- a monitoring run (respai.monitor records; respai/render/report/monitoring.py) --------


def _ints(value: object) -> list[int]:
    return [v for v in as_list(value) if _is_int(v)]


def _span(looks: list[int]) -> str:
    if not looks:
        return "?"
    first, last = min(looks), max(looks)
    return str(first) if first == last else f"{first}–{last}"


def _mon_scope(monitor: object, _arg: str | None) -> str:
    """The banner's sentence on what a monitoring run's verdict is (run_start.monitor)."""
    looks = _ints(as_dict(monitor).get("new_looks"))
    latest = str(max(looks)) if looks else "?"
    return (
        f"The stream's verdict is its latest look's (look {latest}): the worst verdict "
        "over its rules at that look."
    )


def _mon_guarantee(monitor: object, _arg: str | None) -> str:
    """The rule's guarantees: the sequences' confidence and the change detector's."""
    m = as_dict(monitor)
    alpha = m.get("alpha")
    level = _percent(1 - float(alpha)) if is_number(alpha) else "?"
    return (
        f"Each group's interval is a confidence sequence ({_str(m.get('interval_method'), '?')}) "
        f"that holds at every look at once with at least {level or '?'} confidence (Bonferroni "
        f"over a rule's groups); each rule's change detector "
        f"({_str(m.get('change_method'), '?')}): {_str(m.get('change_guarantee'), '?')}."
    )


def _mon_looks(monitor: object, _arg: str | None) -> str:
    """Which looks of the stream this run holds, and where the earlier ones are."""
    m = as_dict(monitor)
    looks = _ints(m.get("new_looks"))
    earlier = m.get("earlier_looks")
    text = f"This run holds look(s) {_span(looks)} of the stream"
    if isinstance(earlier, int) and not isinstance(earlier, bool) and earlier > 0:
        if as_list(m.get("history")):
            return text + (
                f"; look(s) {_span([1, earlier])} are from earlier runs of it in the ledger, "
                "drawn here from the copies of their records this run holds."
            )
        return text + f"; look(s) {_span([1, earlier])} are in earlier runs of it in the ledger."
    return text + ", from its first batch."


def _mon_from(run_id: object, _arg: str | None) -> str:
    """Which earlier run a copied look is from (``from earlier run <run id>``)."""
    return f"from earlier run {_str(run_id, '?')}"


def _rate_iv(group: object, _arg: str | None) -> str:
    """A rate and its interval (``0.7303 [0.6740, 0.7818]``), or ``undefined``."""
    g = as_dict(group)
    if not is_number(g.get("rate")):
        return "undefined"
    return f"{fixed(g['rate'])} {interval_text(g.get('interval'))}"


def _mon_counts(group: object, _arg: str | None) -> str:
    """Events over the cases with a prediction (``260 / 356``), and those without one."""
    g = as_dict(group)
    cases, events, missing = g.get("cases"), g.get("events"), g.get("missing")
    decided = None
    if isinstance(cases, int) and isinstance(missing, int):
        decided = cases - missing if _is_int(cases) and _is_int(missing) else None
    text = f"{count_text(events)} / {count_text(decided)}"
    if _is_int(missing) and missing:
        text += f" · {missing:,} no pred."
    return text


def _mon_change(change: object, _arg: str | None) -> str:
    """Each change detector's statistic (``ALARM`` once it reached it) and the threshold."""
    c = as_dict(change)
    parts = []
    for d in (as_dict(x) for x in as_list(c.get("detectors"))):
        stat = significant(d.get("statistic")) if is_number(d.get("statistic")) else "undefined"
        parts.append(
            f"{_str(d.get('detector'), '?')} {stat}" + (" ALARM" if d.get("alarm") is True else "")
        )
    return "; ".join(parts) + f" (alarm at {significant(c.get('threshold'))})"


def _mon_limit(rec: object, _arg: str | None) -> str:
    """A monitored rule's limit as its chart labels it (``max_group_gap 0.1``)."""
    t = as_dict(as_dict(rec).get("threshold"))
    words = {"worst_max": "maximum", "worst_min": "minimum", "max_group_gap": "max_group_gap"}
    comparison = t.get("comparison")
    word = words.get(comparison, "limit") if isinstance(comparison, str) else "limit"
    return f"{word} {plain(t.get('value'))}"


def _mon_alarm(change: object, _arg: str | None) -> str:
    """The look the rule's change detector raised its alarm at, or nothing."""
    look = as_dict(change).get("alarm_look")
    return f"change detected at look {look}" if _is_int(look) else ""


def _mon_title(rec: object, _arg: str | None) -> str:
    d = as_dict(as_dict(rec).get("details"))
    return f"{_rate_name(d.get('rate'), None)} rate by look · rule {_str(d.get('rule'), '?')}"


def _gap_title(rec: object, _arg: str | None) -> str:
    d = as_dict(as_dict(rec).get("details"))
    return f"largest gap between groups by look · rule {_str(d.get('rule'), '?')}"


def _mon_level(rec: object) -> str:
    return _level(as_dict(as_dict(rec).get("details")).get("groups"), "interval", "?")


def _alarm_note(rec: object) -> str:
    look = as_dict(as_dict(as_dict(rec).get("details")).get("change")).get("alarm_look")
    if not _is_int(look):
        return " No change detector has raised its alarm."
    return (
        f" The vertical line marks look {look}, where a change detector raised its alarm: "
        "the rule reads FAIL from that look on."
    )


def _mon_caption(rec: object, _arg: str | None) -> str:
    r = as_dict(rec)
    d = as_dict(r.get("details"))
    t = as_dict(r.get("threshold"))
    limit = (
        f" The dashed line is the rule's {_mon_limit(r, None)}."
        if t.get("comparison") in ("worst_max", "worst_min")
        else " The rule limits the gap between groups (the next chart), not a rate."
    )
    level = _mon_level(r)
    return (
        f"{_title_case(_rate_name(d.get('rate'), None))} rate of each group at each look. "
        f"Dots: each batch's own rate, with its one-off Clopper-Pearson interval at {level} "
        f"(bars). Bands: the cumulative rate's confidence sequence at {level}, which holds "
        "at every look at once; cases without a prediction are counted at their worst."
        + limit
        + _alarm_note(r)
    )


def _gap_caption(rec: object, _arg: str | None) -> str:
    r = as_dict(rec)
    return (
        "The band holds the largest gap between two groups' cumulative rates at each look, "
        "from the groups' confidence sequences (a lower bound below 0 is drawn at the "
        f"axis). The dashed line is the rule's {_mon_limit(r, None)}: FAIL once the band "
        "lies wholly above it, PASS once wholly at or below it." + _alarm_note(r)
    )


#: Every format the page's bound text uses, by the name written in ``data-fmt``.
FORMATS: Mapping[str, Format] = {
    "text": lambda v, _a: _str(v),
    "text0": lambda v, _a: _str(v, ""),
    "textq": lambda v, _a: _str(v, "?"),
    "name": lambda v, _a: _str(v, "unnamed system"),
    "short": _short,
    "number": lambda v, a: fixed(v, int(a) if a in ("1", "2", "3", "4") else 4),
    "plain": lambda v, _a: plain(v),
    "count": lambda v, _a: count_text(v),
    "when": lambda v, _a: when(v),
    "hash": _hash,
    "short_hash": _short_hash,
    "threshold": lambda v, _a: threshold_text(v),
    "verdict": _verdict,
    "verdict_sentence": lambda v, _a: (
        VERDICT_SENTENCES.get(v, "")
        if isinstance(v, str) and v in VERDICT_SENTENCES
        else "The record's verdict is not one of the four."
    ),
    "verdict_count": _verdict_count,
    "test_count": _test_count,
    "test_number": _test_number,
    "test_name": _test_name,
    "sub": _sub,
    "uncertain_flag": _uncertain_flag,
    "uncertain_note": _uncertain_note,
    "interval_cell": _interval_cell,
    "interval_note": _interval_note,
    "decision": _decision,
    "cases": _cases,
    "engine": _engine,
    "run_identity": _run_identity,
    "dataset_line": _dataset_line,
    "dirty": _with_dirty,
    "items": lambda v, _a: _items(v),
    "rate_name": _rate_name,
    "error_budget": _error_budget,
    "left_out": _left_out,
    "small_cells": _small_cells,
    "length": _length,
    "drawn": _drawn,
    "framework": _framework,
    "n_over_d": _n_over_d,
    "rule_note": _rule_note,
    "pos_neg": _pos_neg,
    "spread_title": _spread_title,
    "spread_caption": _spread_caption,
    "spread_limit": _spread_limit_label,
    "spread_level": _spread_level,
    "rule_title": _rule_title,
    "rule_caption": _rule_caption,
    "rule_limit": _rule_limit_label,
    "rule_level": _rule_level,
    "auc_title": _auc_title,
    "auc_caption": _auc_caption,
    "auc_limit": _auc_limit_label,
    "mon_scope": _mon_scope,
    "mon_guarantee": _mon_guarantee,
    "mon_looks": _mon_looks,
    "mon_from": _mon_from,
    "rate_iv": _rate_iv,
    "mon_counts": _mon_counts,
    "mon_change": _mon_change,
    "mon_limit": _mon_limit,
    "mon_alarm": _mon_alarm,
    "mon_title": _mon_title,
    "mon_caption": _mon_caption,
    "gap_title": _gap_title,
    "gap_caption": _gap_caption,
    "interval": lambda v, _a: interval_text(v),
    "table_rate": rate_text,
    "table_count": count_text_of,
    "listed": _listed,
}
