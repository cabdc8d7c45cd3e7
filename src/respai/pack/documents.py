"""The documents of an evidence pack, written from the audit result.

The scope memo (``scope.md``: the criteria as the spec fixes them, with a sign-off table),
the exclusions (``exclusions.md``), the independence statement (``independence.md``:
recorded from the spec, or a blank one to sign), the raw cell counts (``cells.csv``), the
engine and the exact environment (``engine.json``, ``environment.lock``) and the dates
(``dates.json``). Every function is pure but for reading the installed distributions and
the platform; spec text that goes into Markdown is escaped and kept on one line.
"""

from __future__ import annotations

import json
import platform
import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from respai.render.escape import markdown_code, markdown_text

if TYPE_CHECKING:
    from respai.ll144.audit import LL144Result

__all__ = [
    "cells_csv",
    "dates_json",
    "distributions",
    "engine_json",
    "environment_lock",
    "exclusions_md",
    "independence_md",
    "json_text",
    "parse_lock",
    "scope_md",
]


def json_text(doc: Any) -> str:
    """``doc`` as the pack writes JSON: indented, characters kept, no NaN, a final newline."""
    return json.dumps(doc, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def _md(text: object) -> str:
    """Spec text for a Markdown file: no HTML, no line breaks."""
    return markdown_text(text)


def distributions() -> list[tuple[str, str]]:
    """Every installed distribution as ``(name, version)``, one per name, sorted."""
    from importlib.metadata import distributions

    seen: dict[str, tuple[str, str]] = {}
    for dist in distributions():
        name = dist.metadata["Name"]
        if not name:
            continue
        key = re.sub(r"[-_.]+", "-", str(name)).lower()
        seen.setdefault(key, (str(name), str(dist.version)))
    return [seen[k] for k in sorted(seen)]


def environment_lock() -> str:
    """``environment.lock``: Python, the platform, respai and every distribution it needs.

    See :func:`respai.pack.environment.lock_text` (the dependency closure of the running
    engine, ``name==version``).
    """
    from respai.pack.environment import lock_text

    return lock_text()


def parse_lock(text: str) -> dict[str, str]:
    """The versions in an ``environment.lock`` text, by normalised distribution name."""
    out: dict[str, str] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#") or "==" not in line:
            continue
        name, _, version = line.partition("==")
        out[re.sub(r"[-_.]+", "-", name.strip()).lower()] = version.strip()
    return out


def scope_md(res: LL144Result) -> str:
    """``scope.md``: the audit's criteria as the spec fixes them, with a sign-off table."""
    from respai.eeo1 import RACE_CATEGORIES, SEX_CATEGORIES
    from respai.ll144.tables import LINE

    ll, spec = res.ll144, res.spec
    system = spec.system
    tool = " ".join(x for x in (system.name, system.version) if x) or "not stated"
    if ll.kind == "selection":
        decision = (
            f"The tool's selection decision in column {markdown_code(ll.selected)} (1 = moved "
            "forward or put in the class, 0 = not). Rate: the **selection rate**, the share "
            "of a category selected."
        )
    else:
        decision = (
            f"The tool's score in column {markdown_code(ll.score)}. Rate: the **scoring "
            "rate**, the share of a category scoring strictly above the median score of the whole "
            "sample (unknown categories included)."
        )
    extra = []
    if ll.cutoffs:
        extra.append(
            "Also computed at the cutoffs where people act on the score: top "
            + ", ".join(f"{c:.0%}" for c in ll.cutoffs)
            + "."
        )
    if ll.stages:
        extra.append(
            "Funnel stages (each a 0/1 column, in order): "
            + ", ".join(f"{markdown_code(s)}" for s in ll.stages)
            + "."
        )
    rec = res.data.reconciliation
    mapped = [
        f"- {axis}: '{_md(spelling)}' is read as {_md(label)}"
        for axis, mapping in ll.categories.items()
        for spelling, label in mapping.items()
    ]
    lines = [
        "# Scope memo: NYC Local Law 144 bias audit",
        "",
        "This memo states the audit's criteria as they are fixed in the spec file "
        f"{markdown_code(spec.path.name if spec.path else 'spec')} (SHA-256 `{spec.sha256}`, "
        "copied in `inputs/`). The spec's hash pins these criteria: a changed metric, "
        "category or flag rule is a different spec. Sign the memo below, or attach the "
        "memo that was signed before the data was read.",
        "",
        "## Tool and decision point",
        "",
        f"- Tool: {_md(tool)}",
        f"- Owner: {_md(system.owner or 'not stated')}",
        f"- Use case: {_md(system.use_case or 'not stated')}",
        f"- Jurisdiction: {_md(system.jurisdiction or 'not stated')}",
        f"- Output type: **{ll.kind}**",
        f"- Decision point: {decision}",
        *(f"- {e}" for e in extra),
        "",
        "## Population and window",
        "",
        f"- Data source: {_md(spec.data.source or 'not stated')} data",
        f"- Explanation (population and window): {_md(spec.data.explanation or 'not stated')}",
        f"- Applicants audited: {rec.applicants} (decision rows: {rec.decision_rows}"
        + (
            f"; self-identification rows: {rec.demographic_rows}, joined on "
            f"{markdown_code(rec.join_on)}: {rec.joined}"
            if rec.joined is not None
            else ""
        )
        + ")",
        "",
        "## Categories",
        "",
        "- Sex (EEO-1): " + ", ".join(SEX_CATEGORIES),
        "- Race/ethnicity (EEO-1): " + ", ".join(RACE_CATEGORIES),
        "- Intersections: every sex × race/ethnicity cell (14), listed even when empty.",
        "- Unknown: self-identification missing or declined; counted per table, never "
        "imputed"
        + (
            " (also read as unknown: " + ", ".join(f"'{_md(v)}'" for v in ll.unknown_values) + ")"
            if ll.unknown_values
            else ""
        )
        + ".",
        f"- Exclusion: a category under {ll.min_share:.0%} (min_share {ll.min_share:g}) of "
        "the applicants with a known category on its axis is left out of the impact "
        "ratios; its count and rate are still reported. Justification: "
        f"{_md(ll.exclusion_justification or 'none given (no category needed one)')}",
        *mapped,
        "",
        "## Flag rule",
        "",
        "- Impact ratio: a category's rate over the rate of the best kept category.",
        f"- Screening line: an impact ratio under {LINE:g} (the four-fifths line of "
        "29 CFR 1607.4(D)). The law sets no pass mark; the line only decides which "
        "categories get a statistical finding.",
        f"- Every kept category with a ratio under {LINE + ll.margin:g} (the line plus "
        f"margin {ll.margin:g}) gets a one-sided Fisher exact test against the top category "
        f"at alpha {res.alpha:g}, its exact power, and the cell size that would give 80% "
        "power.",
        "- Multiple comparisons: a finding is significant only when its p-value, "
        "Holm-adjusted over every ordered pair of kept categories within each table, "
        f"across all the audit's tables ({res.family.size} comparisons), is at most alpha; "
        "the raw p-value is shown beside it. Power at the observed rates is given for the "
        "unadjusted test (labelled unadjusted) and at the level Holm's step tested the "
        "finding at; the design figure is the applicants per category for 80% power "
        f"against an impact ratio of {LINE:g} at alpha / {res.family.size}.",
        "- A finding that is not significant at low power is reported as underpowered, "
        "never as a pass.",
        "",
        "## Dates",
        "",
        f"- Audit date: {ll.audit_date or 'not stated'}",
        f"- Distribution date of the tool: {ll.distribution_date or 'not stated'}",
        f"- Planned use date: {ll.use_date or 'not stated'}",
        f"- One-year rule checked on: {res.checked_on}",
        "",
        "## Interpretation choices",
        "",
        *(f"- {_md(item)}" for item in res.interpretation),
        "",
        "## Sign-off",
        "",
        "Signed before the data was read (attach the signed original if it was signed elsewhere):",
        "",
        "| Role | Name | Date | Signature |",
        "|---|---|---|---|",
        "| Auditor | | | |",
        "| Employer or employment agency | | | |",
        "",
    ]
    return "\n".join(lines)


def exclusions_md(res: LL144Result) -> str:
    """``exclusions.md``: the rule, its justification and every excluded category."""
    from respai.ll144.tables import TABLES

    ll = res.ll144
    rows = [(res.tables[n], r) for n in TABLES for r in res.tables[n].excluded]
    lines = [
        "# Categories excluded from the impact ratios",
        "",
        f"Rule: a category under {ll.min_share:.0%} (min_share {ll.min_share:g}) of the "
        "applicants with a known category on its table's axis is left out of the impact "
        "ratios (6 RCNY § 5-301(d)). Its count and rate are still in every table and in "
        "the published summary.",
        "",
    ]
    if not rows:
        lines += ["None: every category with applicants is at or above the share.", ""]
        return "\n".join(lines)
    lines += [
        f"Justification: {_md(ll.exclusion_justification or 'not stated')}",
        "",
        f"| Table | Category | Applicants | {res.rate_name.capitalize()} | Share of known |",
        "|---|---|---:|---:|---:|",
    ]
    for t, r in rows:
        rate = "—" if r.rate is None else f"{r.rate:.3f}"
        share = "—" if r.share is None else f"{r.share:.2%}"
        lines.append(f"| {t.title} | {_md(r.category)} | {r.count} | {rate} | {share} |")
    lines.append("")
    return "\n".join(lines)


_CONDITIONS = (
    "has never taken part in using, developing or distributing the tool being audited;",
    "is not, at any time during the audit, employed by the employer or employment agency "
    "that uses the tool, nor by the vendor that developed or distributes it;",
    "holds no direct financial interest, and no material indirect financial interest, in "
    "that employer, employment agency or vendor.",
)


def independence_md(res: LL144Result) -> str:
    """``independence.md``: the auditor's statement from the spec, or a blank one to sign."""
    auditor = res.ll144.auditor
    name = auditor.name if auditor else None
    org = auditor.organisation if auditor else None
    statement = auditor.independence_statement if auditor else None
    conditions = [f"{i}. The auditor {c}" for i, c in enumerate(_CONDITIONS, 1)]
    head = [
        "# Independence statement",
        "",
        "NYC Local Law 144 requires the bias audit to be done by an independent auditor. "
        "An independent auditor, in the sense of 6 RCNY § 5-300:",
        "",
        *conditions,
        "",
    ]
    if statement:
        return "\n".join(
            [
                *head,
                "Status: **RECORDED** (from the spec's ll144.auditor block; respai records the "
                "statement and cannot check it).",
                "",
                f"- Auditor: {_md(name or 'not named')}",
                f"- Organisation: {_md(org or 'not named')}",
                "",
                "Statement:",
                "",
                f"> {_md(statement)}",
                "",
            ]
        )
    return "\n".join(
        [
            *head,
            "Status: **NOT YET SIGNED**",
            "",
            "The spec holds no independence statement (ll144.auditor.independence_statement). "
            "The auditor completes and signs the statement below; the pack is not complete "
            "evidence of an independent audit until it is signed.",
            "",
            "I confirm that I meet each of the three conditions above for this audit.",
            "",
            f"Name: {_md(name) if name else '______________________________'}",
            "",
            f"Organisation: {_md(org) if org else '______________________________'}",
            "",
            "Date: ______________________________",
            "",
            "Signature: ______________________________",
            "",
        ]
    )


def cells_csv(body: Mapping[str, Any], count_key: str) -> str:
    """``cells.csv``: applicants and ``count_key`` of every sex × race cell of ``ll144.json``."""
    import csv
    import io

    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(["sex", "race", "applicants", count_key])
    for cell in body["counts"]["cells"]:
        writer.writerow(
            [cell["sex"] or "", cell["race"] or "", cell["applicants"], cell.get(count_key, "")]
        )
    return buf.getvalue()


def engine_json(
    engine_code: Mapping[str, Any], wheel: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """``engine.json``: respai's version and code fingerprint, its wheel, Python, the platform.

    ``wheel`` is :meth:`respai.pack.environment.WheelChoice.to_dict` (the wheel the pack
    carries, or why it carries none); ``None`` writes no ``wheel`` entry.
    """
    from respai.record.predicate import ENGINE_NAME
    from respai.version import __version__

    return {
        "engine": {"name": ENGINE_NAME, "version": __version__},
        "engine_code": dict(engine_code),
        "python": {
            "version": platform.python_version(),
            "implementation": platform.python_implementation(),
        },
        "platform": {
            "system": platform.system(),
            "release": platform.release(),
            "machine": platform.machine(),
            "platform": platform.platform(),
        },
        **({} if wheel is None else {"wheel": dict(wheel)}),
        "reinstall": _reinstall(engine_code, __version__, wheel),
    }


def _reinstall(
    engine_code: Mapping[str, Any], version: str, wheel: Mapping[str, Any] | None = None
) -> str:
    """How to get the same engine back: the pack's wheel, else the wheel's SHA-256 or commit."""
    if wheel is not None and wheel.get("path"):
        return (
            f"The pack carries the engine's wheel ({wheel['path']}) and environment.lock "
            "lists every dependency's exact version: run respai reproduce PACK --isolated "
            "--wheelhouse DIR (a folder of the locked dependencies' wheels) or --index-url "
            "URL; it builds a fresh virtual environment and reruns the pack there."
        )
    commit = engine_code.get("git_commit")
    where = []
    if engine_code.get("wheel_sha256"):
        where.append(f"the wheel with SHA-256 {engine_code['wheel_sha256']}")
    if commit:
        where.append(
            f"git commit {commit}"
            + (" (with uncommitted changes)" if engine_code.get("git_dirty") else "")
        )
    return (
        f"Install respai {version}"
        + (f" ({'; built from '.join(where)})" if where else "")
        + " and the versions in environment.lock, then run: respai reproduce PACK"
        + (
            ". The pack carries no wheel of the engine; build the pack again with "
            "respai pack SPEC --out OUT --wheel PATH to include one."
            if wheel is not None
            else ""
        )
    )


def dates_json(res: LL144Result, created: str) -> dict[str, Any]:
    """``dates.json``: the audit, distribution and use dates, the one-year check."""
    ll = res.ll144
    return {
        "audit_date": ll.audit_date,
        "distribution_date": ll.distribution_date,
        "use_date": ll.use_date,
        "first_distributed": res.spec.system.first_distributed,
        "checked_on": res.checked_on,
        "stale": res.stale,
        "pack_created": created,
        "notes": [
            "The summary must be posted before the tool is used and stay up for at least "
            "six months after the employer's latest use of the tool.",
            "The tool may not be used more than one year after its latest bias audit.",
        ],
    }
