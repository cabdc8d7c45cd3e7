"""The published LL144 summary: self-contained HTML, Markdown and CSV.

6 RCNY § 5-303 lists what the employer posts before using the tool: the date of the most
recent bias audit; the source and explanation of the data (and, for test data, why and
how it was made); the number of individuals in an unknown category; the number of
applicants and the selection or scoring rate of every category; the impact ratio of every
category; the categories excluded under the 2% rule with the justification, count and
rate; and the distribution date of the tool. Every one of these is in every format here,
with the interpretation choices printed beside the tables and any warning (a join that
lost rows, an audit more than a year old) at the top.

The HTML page has inline CSS, no scripts and no external resources, and every piece of
data text in it goes through :func:`respai.render.escape.html_text`; the Markdown through
:func:`respai.render.escape.markdown_text`.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Sequence

from respai.ll144.audit import LL144Result, family_note
from respai.ll144.tables import TABLES, CategoryRow, CategoryTable
from respai.render.escape import html_text as _e
from respai.render.escape import markdown_text as _md

__all__ = ["summary_csv", "summary_html", "summary_markdown", "tables_csv"]

_NOT_SET = "not stated"


def _num(x: float | None) -> str:
    """Three decimals for display; an em dash when undefined."""
    return "—" if x is None else f"{x:.3f}"


def _pct(x: float | None) -> str:
    return "—" if x is None else f"{x:.2%}"


def _interval(row: CategoryRow) -> str:
    iv = row.interval
    return "—" if iv is None else f"[{iv.lo:.3f}, {iv.hi:.3f}]"


def _ratio_cell(row: CategoryRow) -> str:
    if row.impact_ratio is not None:
        return _num(row.impact_ratio)
    if row.excluded:
        return "excluded"
    return "undefined"


def _note(row: CategoryRow, table: CategoryTable) -> str:
    if row.rate_undefined is not None:
        return row.rate_undefined.reason
    if row.ratio_undefined is not None and (row.excluded or table.undefined is None):
        return row.ratio_undefined.reason
    if row.category == table.best:
        return "top category (the ratios' denominator)"
    return ""


def _title(res: LL144Result) -> str:
    name = res.spec.system.name or "automated employment decision tool"
    version = f" {res.spec.system.version}" if res.spec.system.version else ""
    return f"Bias audit summary: {name}{version}"


def _facts(res: LL144Result) -> list[tuple[str, str]]:
    """The DCWP summary fields, as (label, text) pairs, in the order they are shown."""
    ll, spec, rec = res.ll144, res.spec, res.data.reconciliation
    source = spec.data.source or _NOT_SET
    kind = (
        "selection (the tool moves applicants forward: selection rate)"
        if ll.kind == "selection"
        else "scoring (the tool gives a score: scoring rate, the share above the median)"
    )
    facts = [
        ("Date of the bias audit", ll.audit_date or _NOT_SET),
        ("Distribution date of the tool", ll.distribution_date or _NOT_SET),
        ("Type of tool", kind),
        ("Source of the data", f"{source} data"),
        ("Explanation of the data", spec.data.explanation or _NOT_SET),
    ]
    if spec.data.source == "test":
        facts.append(
            (
                "Test data",
                "This audit uses test data, not historical data; the explanation above says "
                "why historical data was not used and how the test data was generated "
                "(6 RCNY § 5-302(b)).",
            )
        )
    facts.append(("Number of applicants audited", str(rec.applicants)))
    facts += [
        (f"Individuals with unknown {res.tables[name].title}", str(res.tables[name].unknown))
        for name in ("sex", "race")
    ]
    facts.append(
        (
            "Individuals with unknown sex or race/ethnicity (left out of the intersectional "
            "table)",
            str(res.tables["sex_x_race"].unknown),
        )
    )
    if res.median is not None:
        facts.append(("Median score of the full sample", repr(res.median)))
    if ll.auditor is not None:
        who = ", ".join(x for x in (ll.auditor.name, ll.auditor.organisation) if x)
        facts.append(("Independent auditor", who or _NOT_SET))
        if ll.auditor.independence_statement:
            facts.append(("Independence statement", ll.auditor.independence_statement))
    return facts


def _excluded(res: LL144Result) -> list[tuple[CategoryTable, CategoryRow]]:
    return [(res.tables[n], r) for n in TABLES for r in res.tables[n].excluded]


def _headers(res: LL144Result) -> list[str]:
    count = "Selected" if res.ll144.kind == "selection" else "Scored above median"
    rate = "Selection rate" if res.ll144.kind == "selection" else "Scoring rate"
    return ["Category", "Applicants", count, rate, "95% interval", "Impact ratio", "Note"]


def _table_rows(table: CategoryTable) -> list[list[str]]:
    return [
        [
            r.category,
            str(r.count),
            str(r.selected),
            _num(r.rate),
            _interval(r),
            _ratio_cell(r),
            _note(r, table),
        ]
        for r in table.rows
    ]


def _table_lead(table: CategoryTable) -> list[str]:
    what = "sex or race/ethnicity" if table.name == "sex_x_race" else table.title
    lines = [f"Applicants with an unknown {what}: {table.unknown} (not in this table)."]
    if table.undefined is not None:
        lines.append(f"Impact ratios are undefined: {table.undefined.reason}.")
    return lines


def _mapped(res: LL144Result) -> list[str]:
    ll = res.ll144
    lines = [
        f"{axis}: '{spelling}' is read as {label}"
        for axis, mapping in ll.categories.items()
        for spelling, label in mapping.items()
    ]
    if ll.unknown_values:
        lines.append("read as unknown: " + ", ".join(f"'{v}'" for v in ll.unknown_values))
    return lines


def _reconciliation(res: LL144Result) -> list[tuple[str, str]]:
    rec = res.data.reconciliation
    out = [
        (
            f"{f.role} file {f.fingerprint.get('name', f.path)}",
            f"{f.rows} rows, SHA-256 {f.fingerprint.get('sha256')}",
        )
        for f in rec.files
    ]
    if rec.joined is not None:
        out += [
            ("rows joined (decision and self-ID)", str(rec.joined)),
            ("decision rows without self-ID", str(rec.decisions_unmatched)),
            ("self-ID rows without a decision", str(rec.demographics_unmatched)),
        ]
    out += [
        ("applicants (rows with a decision)", str(rec.applicants)),
        ("with sex known", str(rec.sex_known)),
        ("with race/ethnicity known", str(rec.race_known)),
        ("with both known", str(rec.both_known)),
    ]
    return out


def _footer(res: LL144Result, digest: str) -> str:
    return (
        f"Generated by {res.to_dict()['engine']} from spec "
        f"sha256 {res.spec.sha256 or 'n/a'}; results sha256 {digest} (the SHA-256 of the "
        "canonical JSON of ll144.json without its result_sha256 field)."
    )


# --- Markdown ---------------------------------------------------------------------------


def _md_table(headers: Sequence[str], rows: Iterable[Sequence[str]]) -> list[str]:
    lines = [
        "| " + " | ".join(_md(h) for h in headers) + " |",
        "|" + "|".join("---" for _ in headers) + "|",
    ]
    lines += ["| " + " | ".join(_md(c) for c in row) + " |" for row in rows]
    return lines


def summary_markdown(res: LL144Result) -> str:
    """The published summary as Markdown (data text HTML-escaped, pipes escaped)."""
    body = res.to_dict()
    out = [
        f"# {_md(_title(res))}",
        "",
        "NYC Local Law 144 bias audit (NYC Admin. Code § 20-871; 6 RCNY §§ 5-301, 5-303).",
        "",
    ]
    for warning in res.warnings:
        out += [f"> **{_md(warning)}**", ""]
    out += _md_table(["Field", "Value"], _facts(res))
    for name in TABLES:
        table = res.tables[name]
        out += ["", f"## {_md(table.title[0].upper() + table.title[1:])}", ""]
        out += [_md(line) for line in _table_lead(table)] + [""]
        out += _md_table(_headers(res), _table_rows(table))
    out += ["", "## Categories excluded from the impact ratios", ""]
    excluded = _excluded(res)
    if excluded:
        out += [f"Justification: {_md(res.ll144.exclusion_justification or _NOT_SET)}", ""]
        out += _md_table(
            ["Table", "Category", "Applicants", "Rate", "Share of known"],
            [
                [t.title, r.category, str(r.count), _num(r.rate), _pct(r.share)]
                for t, r in excluded
            ],
        )
    else:
        out.append(
            f"None: every category with applicants is at least "
            f"{res.ll144.min_share:.0%} of the applicants with a known category."
        )
    out += ["", "## Findings (statistical notes)", "", _md(family_note(res)), ""]
    if res.findings:
        out += [
            f"- {_md(f.category)} ({_md(res.tables[f.table].title)}, against "
            f"{_md(f.compared_with)}): {_md(f.gap.sentence)}"
            for f in res.findings
        ]
    else:
        out.append(f"No kept category has an impact ratio under {0.8 + res.ll144.margin:g}.")
    out += [
        "",
        "The law sets no pass mark: these findings are stated, not a pass or fail.",
        "",
        "## Row reconciliation",
        "",
    ]
    out += _md_table(["Item", "Value"], _reconciliation(res))
    out += ["", "## Interpretation choices", ""]
    out += [f"- {_md(item)}" for item in res.interpretation]
    mapped = _mapped(res)
    if mapped:
        out += ["", "Spellings in the data:", ""] + [f"- {_md(m)}" for m in mapped]
    out += ["", _md(_footer(res, body["result_sha256"])), ""]
    return "\n".join(out)


# --- HTML -------------------------------------------------------------------------------

_CSS = """
body{font:15px/1.45 system-ui,-apple-system,'Segoe UI',Roboto,sans-serif;color:#1b1f23;
margin:2rem auto;max-width:72rem;padding:0 1rem}
h1{font-size:1.6rem;margin-bottom:.2rem}h2{font-size:1.2rem;margin-top:2rem}
table{border-collapse:collapse;margin:.5rem 0 1rem;width:100%}
th,td{border:1px solid #d0d7de;padding:.3rem .5rem;text-align:left;vertical-align:top}
th{background:#f6f8fa}td.n{text-align:right;font-variant-numeric:tabular-nums;
white-space:nowrap}
.warn{border:2px solid #cf222e;background:#ffebe9;padding:.6rem .8rem;margin:.8rem 0;
font-weight:600}
.muted{color:#57606a;font-size:.9rem}
""".strip()


def _html_table(
    headers: Sequence[str], rows: Iterable[Sequence[str]], numeric: Sequence[int] = ()
) -> str:
    head = "".join(f'<th scope="col">{_e(h)}</th>' for h in headers)
    body = []
    for row in rows:
        cells = "".join(
            f'<td class="n">{_e(c)}</td>' if i in numeric else f"<td>{_e(c)}</td>"
            for i, c in enumerate(row)
        )
        body.append(f"<tr>{cells}</tr>")
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table>"


def summary_html(res: LL144Result) -> str:
    """The published summary as one self-contained HTML page (no scripts, no network)."""
    body = res.to_dict()
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{_e(_title(res))}</title><style>{_CSS}</style></head><body>",
        f"<h1>{_e(_title(res))}</h1>",
        '<p class="muted">NYC Local Law 144 bias audit (NYC Admin. Code § 20-871; '
        "6 RCNY §§ 5-301, 5-303).</p>",
    ]
    parts += [f'<p class="warn">{_e(w)}</p>' for w in res.warnings]
    facts = "".join(
        f'<tr><th scope="row">{_e(k)}</th><td>{_e(v)}</td></tr>' for k, v in _facts(res)
    )
    parts.append(f"<table><tbody>{facts}</tbody></table>")
    for name in TABLES:
        table = res.tables[name]
        parts.append(f"<h2>{_e(table.title[0].upper() + table.title[1:])}</h2>")
        parts += [f"<p>{_e(line)}</p>" for line in _table_lead(table)]
        parts.append(_html_table(_headers(res), _table_rows(table), numeric=(1, 2, 3, 4, 5)))
    parts.append("<h2>Categories excluded from the impact ratios</h2>")
    excluded = _excluded(res)
    if excluded:
        parts.append(f"<p>Justification: {_e(res.ll144.exclusion_justification or _NOT_SET)}</p>")
        parts.append(
            _html_table(
                ["Table", "Category", "Applicants", "Rate", "Share of known"],
                [
                    [t.title, r.category, str(r.count), _num(r.rate), _pct(r.share)]
                    for t, r in excluded
                ],
                numeric=(2, 3, 4),
            )
        )
    else:
        parts.append(
            f"<p>None: every category with applicants is at least "
            f"{_e(f'{res.ll144.min_share:.0%}')} of the applicants with a known "
            "category.</p>"
        )
    parts.append("<h2>Findings (statistical notes)</h2>")
    parts.append(f"<p>{_e(family_note(res))}</p>")
    if res.findings:
        items = "".join(
            f"<li><strong>{_e(f.category)}</strong> ({_e(res.tables[f.table].title)}, "
            f"against {_e(f.compared_with)}): {_e(f.gap.sentence)}</li>"
            for f in res.findings
        )
        parts.append(f"<ul>{items}</ul>")
    else:
        parts.append(
            f"<p>No kept category has an impact ratio under "
            f"{_e(f'{0.8 + res.ll144.margin:g}')}.</p>"
        )
    parts.append(
        "<p>The law sets no pass mark: these findings are stated, not a pass or fail.</p>"
    )
    parts.append("<h2>Row reconciliation</h2>")
    parts.append(_html_table(["Item", "Value"], _reconciliation(res)))
    parts.append("<h2>Interpretation choices</h2>")
    parts.append("<ul>" + "".join(f"<li>{_e(i)}</li>" for i in res.interpretation) + "</ul>")
    mapped = _mapped(res)
    if mapped:
        parts.append(
            "<p>Spellings in the data:</p><ul>"
            + "".join(f"<li>{_e(m)}</li>" for m in mapped)
            + "</ul>"
        )
    parts.append(f'<p class="muted">{_e(_footer(res, body["result_sha256"]))}</p>')
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"


# --- CSV --------------------------------------------------------------------------------


def _cell(text: str) -> str:
    """Text for a spreadsheet: a leading = + - @ would be read as a formula."""
    return "'" + text if text[:1] in ("=", "+", "-", "@") else text


def _f(x: float | None) -> str:
    return "" if x is None else repr(x)


def tables_csv(res: LL144Result) -> str:
    """The three tables as CSV, one line per category, numbers at full precision."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(
        [
            "table",
            "category",
            "sex",
            "race",
            "applicants",
            res.count_key,
            "rate",
            "ci_low",
            "ci_high",
            "share_of_known",
            "excluded",
            "impact_ratio",
            "undefined_reason",
        ]
    )
    for name in TABLES:
        table = res.tables[name]
        for r in table.rows:
            reason = r.rate_undefined or r.ratio_undefined
            writer.writerow(
                [
                    name,
                    r.category,
                    r.sex or "",
                    r.race or "",
                    r.count,
                    r.selected,
                    _f(r.rate),
                    _f(r.interval.lo if r.interval else None),
                    _f(r.interval.hi if r.interval else None),
                    _f(r.share),
                    "true" if r.excluded else "false",
                    _f(r.impact_ratio),
                    "" if reason is None else reason.reason,
                ]
            )
        writer.writerow(
            [
                name,
                "(unknown)",
                "",
                "",
                table.unknown,
                "",
                "",
                "",
                "",
                "",
                "",
                "",
                "unknown category: not in the table",
            ]
        )
    return buf.getvalue()


def summary_csv(res: LL144Result) -> str:
    """The summary fields other than the tables, as ``field,value`` CSV."""
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["field", "value"])
    ll, spec = res.ll144, res.spec
    rows: list[tuple[str, str]] = [
        ("system", " ".join(x for x in (spec.system.name, spec.system.version) if x)),
        ("audit_date", ll.audit_date or ""),
        ("distribution_date", ll.distribution_date or ""),
        ("tool_kind", ll.kind),
        ("data_source", spec.data.source or ""),
        ("data_explanation", spec.data.explanation or ""),
        ("applicants", str(res.data.reconciliation.applicants)),
        ("unknown_sex", str(res.tables["sex"].unknown)),
        ("unknown_race", str(res.tables["race"].unknown)),
        ("unknown_sex_or_race", str(res.tables["sex_x_race"].unknown)),
        ("median_score", "" if res.median is None else repr(res.median)),
        ("min_share", repr(ll.min_share)),
        ("exclusion_justification", ll.exclusion_justification or ""),
        ("excluded_categories", "; ".join(f"{t.name}: {r.category}" for t, r in _excluded(res))),
    ]
    rows += [("warning", w) for w in res.warnings]
    rows += [("interpretation", i) for i in res.interpretation]
    rows.append(("result_sha256", res.to_dict()["result_sha256"]))
    for field, value in rows:
        writer.writerow([field, _cell(value)])
    return buf.getvalue()
