"""The ``<main>`` of the index, LL144, streams and compare pages, bound to the manifest.

Each function takes a :class:`~respai.site.page.Page` over the signed manifest and
returns HTML in which every value is bound (:meth:`~respai.site.page.Page.bound`) and
every other text is a fixed label (:meth:`~respai.site.page.Page.label`).
"""

from __future__ import annotations

from respai.site.page import Page

__all__ = ["compare_main", "index_main", "ll144_main", "streams_main"]

_P = "/predicate"


def _head(p: Page, heading: str) -> str:
    return (
        f'<header><div class="eyebrow">{p.label("respai audit site")}</div>'
        f"<h1>{p.label(heading)}</h1></header>"
    )


def _nav(p: Page) -> str:
    return (
        "<nav>"
        + p.link(f"{_P}/pages/index", p.label("All runs"))
        + p.link(f"{_P}/pages/streams", p.label("Monitoring streams"))
        + p.link(f"{_P}/pages/compare", p.label("Comparisons"))
        + "</nav>"
    )


def _signed_by(p: Page) -> str:
    return (
        f'<p class="small">{p.label("Ledger ")}'
        + p.bound("code", f"{_P}/ledger/origin")
        + p.label(", ")
        + p.bound("span", f"{_P}/ledger/runs", "count")
        + p.label(" run(s); site built ")
        + p.bound("span", f"{_P}/built")
        + p.label(" and signed with key ")
        + p.bound("code", f"{_P}/key_id")
        + "</p>"
    )


def _th(p: Page, *names: str) -> str:
    return "<thead><tr>" + "".join(f"<th>{p.label(n)}</th>" for n in names) + "</tr></thead>"


def index_main(p: Page) -> str:
    """The index: every run, then the LL144 summaries."""
    runs = p.value(f"{_P}/runs")
    rows = []
    for i in range(len(runs)):
        at = f"{_P}/runs/{i}"
        rows.append(
            f'<tr data-row="{at}">'
            + f"<td>{p.bound('span', f'{at}/seq')}</td>"
            + f"<td>{p.bound('span', f'{at}/timestamp')}</td>"
            + f"<td>{p.bound('span', f'{at}/kind')}</td>"
            + f"<td>{p.bound('span', f'{at}/system')}</td>"
            + f"<td>{p.bound('span', f'{at}/dataset')} "
            + f"{p.bound('code', f'{at}/dataset_sha256', 'short_hash')}</td>"
            + f"<td>{p.bound('strong', f'{at}/verdict')}</td>"
            + f"<td>{p.bound('code', f'{at}/key_id', 'short_hash')}</td>"
            + f"<td>{p.link(f'{at}/page', p.bound('code', f'{at}/run_id'))}</td>"
            + "</tr>"
        )
    audits = p.value(f"{_P}/ll144")
    items = [
        f'<li data-row="{_P}/ll144/{i}">'
        + p.link(f"{_P}/ll144/{i}/page", p.bound("span", f"{_P}/ll144/{i}/system"))
        + p.label(", ")
        + p.bound("code", f"{_P}/ll144/{i}/run_id")
        + "</li>"
        for i in range(len(audits))
    ]
    none = "" if audits else f'<p class="muted">{p.label("No LL144 audit in this ledger.")}</p>'
    intro = (
        "Every row links to the run's own report, which checks the run's signed record in "
        "the browser. This page checks the site manifest, which lists every run with the "
        "SHA-256 of its record file and of its page."
    )
    return (
        _head(p, "Signed runs of the ledger")
        + _signed_by(p)
        + _nav(p)
        + f"<h2>{p.label('Runs')}</h2>"
        + f'<p class="small">{p.label(intro)}</p>'
        + "<table>"
        + _th(p, "Seq", "Time", "Kind", "System", "Dataset", "Verdict", "Key", "Run")
        + f'<tbody data-list="{_P}/runs">'
        + "".join(rows)
        + "</tbody></table>"
        + f"<h2>{p.label('LL144 summaries')}</h2>"
        + none
        + f'<ul data-list="{_P}/ll144">'
        + "".join(items)
        + "</ul>"
    )


_RULE = (
    "NYC Local Law 144 (NYC Admin. Code § 20-871) and the DCWP rules (6 RCNY § 5-303) "
    "require the summary of the most recent bias audit to be posted on the employment "
    "section of the employer's website before the tool is used, stating the date of the "
    "audit (§ 5-303(a)(1)) and the distribution date of the tool (§ 5-303(a)(2)), and to "
    "stay posted for at least six months after the tool's last use for an employment "
    "decision. The tool may not be used once more than a year has passed since its latest "
    "bias audit (§ 20-871; § 5-301)."
)
_UNBOUND = (
    "Dates marked as given to respai site come from the person who built this site, who "
    "signed them in the site manifest; they are not part of the signed audit record, whose "
    "own page checks only what the audit states."
)


def ll144_main(p: Page, index: int) -> str:
    """One LL144 audit: its dates with their sources, the publication period, findings."""
    at = f"{_P}/ll144/{index}"
    dates = [
        ("Date of the bias audit", "audit_date"),
        ("Distribution date of the tool", "distribution_date"),
        ("Posting date of the summary", "posted"),
        ("Last use of the tool", "last_use"),
    ]
    rows = "".join(
        f"<tr><th>{p.label(name)}</th>"
        f"<td>{p.bound('strong', f'{at}/{key}/value')}</td>"
        f"<td>{p.bound('span', f'{at}/{key}/source', cls='small')}</td></tr>"
        for name, key in dates
    )
    findings = p.value(f"{at}/findings")
    items = "".join(
        f'<li data-row="{at}/findings/{i}">'
        + p.bound("span", f"{at}/findings/{i}/text", cls="finding")
        + "</li>"
        for i in range(len(findings))
    )
    none = (
        ""
        if findings
        else f'<p class="muted">{p.label("None: every date is stated and in order.")}</p>'
    )
    return (
        _head(p, "LL144 bias audit: the dates the summary must show")
        + '<p class="small">'
        + p.bound("span", f"{at}/system")
        + p.label(", ")
        + p.link(f"{at}/run_page", p.label("The audit's signed record"))
        + p.label(", ")
        + p.bound("code", f"{at}/run_id")
        + "</p>"
        + _signed_by(p)
        + _nav(p)
        + f"<h2>{p.label('Dates')}</h2>"
        + "<table>"
        + _th(p, "Date", "Value", "Source")
        + f"<tbody>{rows}</tbody></table>"
        + f'<p class="small">{p.label(_UNBOUND)}</p>'
        + f"<h2>{p.label('Publication period')}</h2>"
        + f"<dl><dt>{p.label('From')}</dt><dd>{p.bound('strong', f'{at}/publication/from')}</dd>"
        + f"<dt>{p.label('Until at least')}</dt>"
        + f"<dd>{p.bound('strong', f'{at}/publication/until')}</dd></dl>"
        + f'<p class="small">{p.bound("span", f"{at}/publication/note")}</p>'
        + f"<h2>{p.label('Findings')}</h2>"
        + none
        + f'<ul data-list="{at}/findings">{items}</ul>'
        + f"<h2>{p.label('The rule')}</h2>"
        + f'<p class="small">{p.label(_RULE)}</p>'
    )


_STREAM_HEADS = (
    "Stream",
    "System",
    "Criteria",
    "Looks",
    "Latest verdict",
    "Alarm at look",
    "The whole stream",
    "Runs of the stream",
)


def streams_main(p: Page) -> str:
    """The monitoring streams, each with links to its runs' pages."""
    streams = p.value(f"{_P}/streams")
    rows = []
    for i, stream in enumerate(streams):
        at = f"{_P}/streams/{i}"
        runs = "".join(
            f'<li data-row="{at}/runs/{j}">'
            + p.link(f"{at}/runs/{j}/page", p.bound("code", f"{at}/runs/{j}/run_id"))
            + "</li>"
            for j in range(len(stream["runs"]))
        )
        chart = (
            p.link(f"{at}/chart/page", p.bound("code", f"{at}/chart/run_id"))
            if stream.get("chart") is not None
            else ""
        )
        rows.append(
            f'<tr data-row="{at}">'
            + f"<td>{p.bound('code', f'{at}/stream')}</td>"
            + f"<td>{p.bound('span', f'{at}/system')}</td>"
            + f"<td>{p.bound('code', f'{at}/criteria_id', 'short_hash')}</td>"
            + f"<td>{p.bound('span', f'{at}/looks', 'count')}</td>"
            + f"<td>{p.bound('strong', f'{at}/latest')}</td>"
            + f"<td>{p.bound('span', f'{at}/alarm_look', 'count')}</td>"
            + f"<td>{chart}</td>"
            + f'<td><ul data-list="{at}/runs">{runs}</ul></td>'
            + "</tr>"
        )
    none = (
        "" if streams else f'<p class="muted">{p.label("No monitoring run in this ledger.")}</p>'
    )
    note = (
        "The whole stream links to its latest run's page, which draws every look of the "
        "stream (the earlier ones from the copies its signed record holds): the batch "
        "rates, the confidence sequences per group, the rule's limit and the look a "
        "change was detected at. Each run of a stream links to its own page; every page "
        "checks its signed record."
    )
    return (
        _head(p, "Monitoring streams")
        + _signed_by(p)
        + _nav(p)
        + f'<p class="small">{p.label(note)}</p>'
        + none
        + "<table>"
        + _th(p, *_STREAM_HEADS)
        + f'<tbody data-list="{_P}/streams">'
        + "".join(rows)
        + "</tbody></table>"
    )


def compare_main(p: Page) -> str:
    """Each two consecutive runs of one system and kind, as ``respai compare`` says."""
    comparisons = p.value(f"{_P}/comparisons")
    sections = []
    for i, comparison in enumerate(comparisons):
        at = f"{_P}/comparisons/{i}"
        lines = "".join(
            f'<li data-row="{at}/lines/{j}">{p.bound("span", f"{at}/lines/{j}")}</li>'
            for j in range(len(comparison["lines"]))
        )
        sections.append(
            f'<section data-row="{at}">'
            + f"<h3>{p.bound('span', f'{at}/system')}{p.label(', ')}"
            + f"{p.bound('span', f'{at}/kind')}</h3>"
            + "<p>"
            + p.link(f"{at}/a/page", p.bound("code", f"{at}/a/run_id"))
            + p.label(" against ")
            + p.link(f"{at}/b/page", p.bound("code", f"{at}/b/run_id"))
            + "</p>"
            + f'<ul data-list="{at}/lines">{lines}</ul>'
            + "</section>"
        )
    none = (
        ""
        if comparisons
        else '<p class="muted">'
        + p.label("No two runs of the same system and kind follow each other in this ledger.")
        + "</p>"
    )
    note = (
        "Each comparison is what respai compare says about two consecutive runs of the same "
        "system and kind, as the site builder signed it."
    )
    return (
        _head(p, "Comparisons of consecutive runs")
        + _signed_by(p)
        + _nav(p)
        + f'<p class="small">{p.label(note)}</p>'
        + none
        + f'<div data-list="{_P}/comparisons">'
        + "".join(sections)
        + "</div>"
    )
