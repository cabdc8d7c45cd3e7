"""Run an LL144 bias audit: spec -> counts -> tables, findings, diagnosis -> a result.

:func:`run_ll144` reads the spec, runs the data gate (:mod:`respai.ll144.scan`), and then
only pure functions of the counts: the three impact-ratio tables with their findings
(:mod:`respai.ll144.tables`), the cutoff sensitivity of a scoring tool and the funnel
(:mod:`respai.ll144.diagnosis`), the row reconciliation and the date checks. The result
renders as JSON (:meth:`LL144Result.to_dict`) and as the published summary
(:mod:`respai.ll144.summary`). The law sets no pass mark, so a run that completes is a
success (exit code 0) whatever it finds.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from respai import decision
from respai.errors import SpecError
from respai.ll144.diagnosis import (
    CutoffSensitivity,
    Funnel,
    above,
    cutoff_sensitivity,
    funnel,
    median_score,
)
from respai.ll144.multiplicity import Family
from respai.ll144.scan import AuditData, load_audit_data
from respai.ll144.spec import LL144Spec, declared_ll144
from respai.ll144.tables import TABLES, CategoryRow, CategoryTable, Finding, build_tables
from respai.load import Inputs
from respai.record.canonical import canonical_bytes
from respai.spec import Policy, Spec, load_spec
from respai.types import Interval, Undefined
from respai.version import __version__

__all__ = [
    "KIND",
    "LL144Result",
    "family_note",
    "multiple_comparisons",
    "run_ll144",
]

KIND = "respai.ll144"
"""The ``kind`` of the JSON output (and how ``--out`` recognises an earlier output)."""

HISTOGRAM_LIMIT = 10_000
"""Score histograms with more distinct values than this are left out of the JSON."""


@dataclass(frozen=True, slots=True)
class LL144Result:
    """Everything one LL144 audit found, ready to render.

    Attributes
    ----------
    spec, ll144
        The parsed spec and its ``ll144:`` block (dates filled in from ``system:``).
    data
        The validated counts and the row reconciliation.
    median
        The median score of the whole sample (scoring tools), else ``None``.
    tables
        ``{"sex", "race", "sex_x_race"}`` tables.
    sensitivity
        Cutoff sensitivity (scoring tools), else ``None``.
    funnel
        The funnel decomposition (when ``stages`` is set), else ``None``.
    checked_on
        The date the one-year rule is checked against (``use_date``, else the run date).
    stale
        Whether the audit is more than one year older than ``checked_on``; ``None``
        without an audit date.
    warnings
        Lines every output carries: lost join rows, a stale or undated audit.
    interpretation
        The interpretation choices, printed with the tables.
    """

    spec: Spec
    ll144: LL144Spec
    data: AuditData
    median: float | None
    tables: Mapping[str, CategoryTable]
    sensitivity: CutoffSensitivity | None
    funnel: Funnel | None
    checked_on: str
    stale: bool | None
    warnings: tuple[str, ...]
    interpretation: tuple[str, ...]
    #: The significance level of the Fisher tests, and where it came from.
    alpha: float = 0.05
    alpha_source: str = "default"

    @property
    def exit_code(self) -> int:
        """Always 0: the audit ran; findings are stated, not gated."""
        return 0

    @property
    def findings(self) -> tuple[Finding, ...]:
        """Every finding of every table, sex first."""
        return tuple(f for name in TABLES for f in self.tables[name].findings)

    @property
    def family(self) -> Family:
        """The comparisons the findings' p-values are Holm-adjusted over (all tables)."""
        family = self.tables[TABLES[0]].family
        assert family is not None  # run_ll144 builds the tables with their findings
        return family

    @property
    def count_key(self) -> str:
        """The name of a row's numerator: ``"selected"`` or ``"scored_above_median"``."""
        return "selected" if self.ll144.kind == "selection" else "scored_above_median"

    @property
    def rate_name(self) -> str:
        """``"selection rate"`` or ``"scoring rate"``."""
        return "selection rate" if self.ll144.kind == "selection" else "scoring rate"

    def to_dict(self) -> dict[str, Any]:
        """The result as JSON-ready data, numbers at full precision.

        ``result_sha256`` is the SHA-256 of the RFC 8785 canonical bytes of everything
        else, so a published summary that quotes it can be matched to this output.
        """
        body = _result_dict(self)
        body["result_sha256"] = hashlib.sha256(canonical_bytes(body)).hexdigest()
        return body


def run_ll144(
    spec: Spec | str | Path,
    *,
    data: Any = None,
    today: dt.date | None = None,
    policy: Policy | None = None,
    inputs: Inputs | None = None,
    audit_data: AuditData | None = None,
) -> LL144Result:
    """Run the LL144 bias audit declared by ``spec``.

    Parameters
    ----------
    spec
        A spec file path, or a parsed :class:`~respai.spec.Spec` with an ``ll144:`` block.
    data
        A DataFrame to audit instead of ``data.cases`` (single-file audits only).
    today
        The run date, for the one-year rule when ``use_date`` is not set (default: the
        system date).
    policy
        A policy whose ``alpha`` sets the Fisher tests' significance level (see
        :func:`respai.decision.resolve_alpha`).
    inputs
        The run's input files, already opened, when the audit is one block of a run
        (:func:`respai.run.evaluation.run_evaluation`): the tables count the files every
        block counts.
    audit_data
        The audit's validated counts, when the run counted them already (in the same
        scan as the group rules; see :func:`respai.ll144.scan.plan_audit`).

    Raises
    ------
    SpecError
        When the spec is malformed, has no ``ll144:`` block, or categories fall under
        ``min_share`` and no ``exclusion_justification`` is given.
    InputError
        When the data does not fit the spec.
    """
    parsed = spec if isinstance(spec, Spec) else load_spec(spec)
    origin = str(parsed.path) if parsed.path is not None else "spec"
    ll = declared_ll144(parsed)
    if ll is None:
        raise SpecError(
            f"{origin}: ll144: is required by respai ll144 but missing.",
            "Add an ll144: block with kind, sex, race and selected: or score:.",
        )
    if audit_data is None:
        audit_data = load_audit_data(parsed, data, inputs=inputs)
    median: float | None = None
    hist: dict[tuple[str | None, str | None], dict[float, int]] = {}
    if ll.kind == "scoring":
        for c in audit_data.cells:
            assert c.score is not None
            cell = hist.setdefault((c.sex, c.race), {})
            cell[c.score] = cell.get(c.score, 0) + c.n
        median = median_score(hist)
        assert median is not None
        tally = dict(above(hist, median))
        rate_word = "scoring above the median"
    else:
        sums: dict[tuple[str | None, str | None], tuple[int, int]] = {}
        for c in audit_data.cells:
            n, k = sums.get((c.sex, c.race), (0, 0))
            sums[(c.sex, c.race)] = (n + c.n, k + (c.n if c.selected == 1 else 0))
        tally = sums
        rate_word = "selected"
    alpha, alpha_source = decision.resolve_alpha(parsed, policy)
    tables = build_tables(
        tally, min_share=ll.min_share, margin=ll.margin, alpha=alpha, rate_word=rate_word
    )
    _check_justification(origin, ll, tables)
    exclusions = {name: frozenset(r.category for r in tables[name].excluded) for name in TABLES}
    sensitivity = None
    if ll.kind == "scoring":
        sensitivity = cutoff_sensitivity(
            hist, ll.cutoffs, min_share=ll.min_share, exclusions=exclusions
        )
    stage_funnel = None
    if ll.stages:
        stage_funnel = funnel(
            [(c.sex, c.race, c.stages, c.n) for c in audit_data.cells],
            ll.stages,
            min_share=ll.min_share,
            exclusions=exclusions,
        )
    checked = dt.date.fromisoformat(ll.use_date) if ll.use_date else (today or dt.date.today())
    stale, date_warnings = _dates(ll, checked)
    warnings = []
    join_warning = audit_data.reconciliation.warning()
    if join_warning:
        warnings.append(join_warning)
    warnings += date_warnings
    return LL144Result(
        spec=parsed,
        ll144=ll,
        data=audit_data,
        median=median,
        tables=tables,
        sensitivity=sensitivity,
        funnel=stage_funnel,
        checked_on=checked.isoformat(),
        stale=stale,
        warnings=tuple(warnings),
        interpretation=_interpretation(ll),
        alpha=alpha,
        alpha_source=alpha_source,
    )


def _check_justification(origin: str, ll: LL144Spec, tables: Mapping[str, CategoryTable]) -> None:
    if ll.exclusion_justification:
        return
    under = [
        f"{r.category} ({r.count} applicant{'' if r.count == 1 else 's'}, "
        f"{r.share:.2%} of the known {tables[n].title})"
        for n in TABLES
        for r in tables[n].excluded
        if r.share is not None
    ]
    if not under:
        return
    shown = "; ".join(under[:4]) + (f"; and {len(under) - 4} more" if len(under) > 4 else "")
    raise SpecError(
        f"{origin}: ll144.exclusion_justification: is required because categories fall "
        f"under min_share {ll.min_share:g} and are left out of the impact ratios: {shown}.",
        "Add exclusion_justification: with the auditor's reason (6 RCNY § 5-301(d) requires "
        "it in the summary), or set min_share: 0 to keep every category in the ratios.",
    )


def _anniversary(day: dt.date) -> dt.date:
    try:
        return day.replace(year=day.year + 1)
    except ValueError:  # 29 February
        return dt.date(day.year + 1, 3, 1)


def _dates(ll: LL144Spec, checked: dt.date) -> tuple[bool | None, list[str]]:
    """Whether the audit is stale, and the warnings the dates call for."""
    out: list[str] = []
    source = "use_date" if ll.use_date else "the run date"
    if ll.audit_date is None:
        out.append(
            "WARNING: ll144.audit_date is not set: the published summary must state the "
            "date of the most recent bias audit (6 RCNY § 5-303(a)(1))."
        )
        stale = None
    else:
        audit = dt.date.fromisoformat(ll.audit_date)
        stale = checked > _anniversary(audit)
        if stale:
            out.append(
                f"WARNING: the audit of {audit.isoformat()} is more than one year before "
                f"{checked.isoformat()} ({source}): the tool may not be used once more "
                "than a year has passed since its latest bias audit (NYC Admin. Code "
                "§ 20-871; 6 RCNY § 5-301(a)). Run a new audit before that use."
            )
        elif checked < audit:
            out.append(
                f"WARNING: {source} {checked.isoformat()} is before the audit date "
                f"{audit.isoformat()}: the tool may not be used before its bias audit."
            )
    if ll.distribution_date is None:
        out.append(
            "WARNING: the distribution date is not set (ll144.distribution_date or "
            "system.first_distributed): the published summary must state it "
            "(6 RCNY § 5-303(a)(2))."
        )
    return stale, out


def _interpretation(ll: LL144Spec) -> tuple[str, ...]:
    items = [
        f"The {ll.min_share:.0%} exclusion share (min_share {ll.min_share:g}) is measured "
        "against the applicants with a known category on each table's axis; unknowns are "
        "not in the denominator.",
    ]
    if ll.kind == "scoring":
        items.append(
            "Scoring rate: the share of a category scoring strictly above the median score "
            "of the whole sample, unknown categories included; with an even number of "
            "scores the median is the mean of the two middle ones."
        )
    items += [
        "Impact ratio: a category's rate divided by the rate of the best category that is "
        "kept (not excluded under min_share).",
        "A category with no applicants is listed with count 0; its rate and ratio are "
        "undefined and it is not counted as excluded.",
        "Unknown: an empty cell, a spelling listed in ll144.unknown_values, or (with a "
        "self-ID join) a decision with no self-identification row.",
        "Rates and ratios are rounded to 3 decimals for display; ll144.json holds them at "
        "full precision.",
        "Findings: each kept category with an impact ratio under 0.8 + margin "
        f"(margin {ll.margin:g}) gets a one-sided Fisher exact test against the top "
        "category, its exact power and the cell size for 80% power. 0.8 is the "
        "four-fifths screening line of 29 CFR 1607.4(D); the law sets no pass mark, so "
        "findings are stated, not gated.",
        "Significance: a finding is significant only when its p-value, Holm-adjusted over "
        "every ordered pair of kept categories within each table, across the sex, "
        "race/ethnicity and intersectional tables, is at most alpha. This holds the chance "
        "of any false 'significant' finding in the audit at alpha, although the top "
        "category each test compares with is chosen by the data. The raw p-value is shown "
        "beside the adjusted one.",
        "Power: the exact power of the one-sided Fisher test at the observed rates and "
        "cell sizes, at the level Holm's step tested the finding at (the power that "
        "'significant' refers to) and, labelled unadjusted, at alpha (with the cell size "
        "for 80% power likewise); the design figure is the applicants per category for 80% "
        "power against an impact ratio of 0.8 at the top category's rate at alpha / m.",
    ]
    if ll.kind == "scoring":
        items.append(
            "Cutoff sensitivity: a top share q admits everyone at or above the score of "
            "the applicant ranked ceil(q x N) from the top, so ties can admit slightly "
            "more than q; exclusions stay those of the published tables."
        )
    if ll.stages:
        items.append(
            "Funnel: a stage's rate is among those who reached it (passed every earlier "
            "stage); the cumulative rate is among all applicants; exclusions stay those "
            "of the published tables."
        )
    return tuple(items)


# --- JSON -------------------------------------------------------------------------------


def _undefined(u: Undefined | None) -> dict[str, str] | None:
    return None if u is None else {"code": u.code, "reason": u.reason}


def row_dict(row: CategoryRow, count_key: str) -> dict[str, Any]:
    """One table row as JSON-ready data."""
    return {
        "category": row.category,
        "sex": row.sex,
        "race": row.race,
        "applicants": row.count,
        count_key: row.selected,
        "rate": row.rate,
        "rate_undefined": _undefined(row.rate_undefined),
        "interval": Interval.json_or_none(row.interval),
        "share_of_known": row.share,
        "excluded": row.excluded,
        "impact_ratio": row.impact_ratio,
        "impact_ratio_undefined": _undefined(row.ratio_undefined),
    }


def finding_dict(f: Finding) -> dict[str, Any]:
    """One finding as JSON-ready data."""
    g = f.gap
    return {
        "table": f.table,
        "category": f.category,
        "compared_with": f.compared_with,
        "finding": g.finding,
        "sentence": g.sentence,
        "impact_ratio": g.impact_ratio,
        "k": g.k1,
        "n": g.n1,
        "top_k": g.k2,
        "top_n": g.n2,
        "p_value_fisher_one_sided": g.p_value,
        "p_value_adjusted": g.p_adjusted,
        "adjustment": f.adjustment,
        "comparisons": f.comparisons,
        "significant": g.significant,
        "power": g.power,
        "n_for_power": g.n_for_power,
        "holm_level": g.decision_level,
        "power_at_holm_level": g.power_at_decision_level,
        "design_level": g.design_level,
        "design_n_per_category": g.design_n,
        "alpha": g.alpha,
        "line": g.line,
        "power_target": g.power_target,
    }


def table_dict(
    table: CategoryTable, count_key: str, *, with_findings: bool = True
) -> dict[str, Any]:
    """One table as JSON-ready data."""
    out: dict[str, Any] = {
        "title": table.title,
        "unknown": table.unknown,
        "known": table.known,
        "best": table.best,
        "undefined": _undefined(table.undefined),
        "rows": [row_dict(r, count_key) for r in table.rows],
    }
    if with_findings:
        out["findings"] = [finding_dict(f) for f in table.findings]
    return out


def family_note(res: LL144Result) -> str:
    """One line for every output's findings: what the adjusted p-values are adjusted over."""
    fam = res.family
    tables = ", ".join(res.tables[name].title for name in fam.tables) or "no table"
    return (
        f"Each finding gives its one-sided Fisher exact p-value and, beside it, the p-value "
        f"Holm-adjusted over the audit's {fam.size} comparisons (every ordered pair of kept "
        f"categories within each table: {tables}); only the adjusted one decides "
        f"significance at alpha {res.alpha:g}. Power is given twice, at the observed rates "
        "and cell sizes: of the unadjusted test at alpha, and at the level Holm's step "
        "tested the finding at; the design figure is the applicants per category for 80% "
        f"power against an impact ratio of 0.8 at alpha / {res.family.size}."
    )


def multiple_comparisons(family: Family) -> dict[str, Any]:
    """The adjustment of the findings' p-values, as JSON-ready data."""
    return {
        "method": family.method,
        "family": "every ordered pair (i, j) of kept categories within each table, over "
        "all the tables listed; null hypothesis: i's rate is at least j's",
        "tables": list(family.tables),
        "comparisons": family.size,
        "controls": "the family-wise error rate at alpha, under any dependence, with the "
        "top category chosen by the data",
        "power": "exact power of the unadjusted one-sided Fisher test at level alpha, at "
        "the observed rates and cell sizes (post-hoc power of a test that does not decide)",
        "power_at_holm_level": "exact power of the same test at holm_level = alpha / (m - r "
        "+ 1), the level Holm's step tests the finding at (r: its rank among the family's "
        "p-values); the power the word significant refers to",
        "design_n_per_category": "applicants per category (equal in the category and the "
        "top) for 80% power against an impact ratio of 0.8 at the top category's observed "
        "rate, at design_level = alpha / m",
    }


def _worst(worst: Mapping[str, tuple[str, float] | None]) -> dict[str, Any]:
    return {
        name: None if w is None else {"category": w[0], "impact_ratio": w[1]}
        for name, w in worst.items()
    }


def _result_dict(res: LL144Result) -> dict[str, Any]:
    ll, spec, rec = res.ll144, res.spec, res.data.reconciliation
    key = res.count_key
    out: dict[str, Any] = {
        "kind": KIND,
        "schema_version": "1.0",
        "engine": f"respai-evidence-engine/{__version__}",
        "exit_code": res.exit_code,
        "system": {
            "name": spec.system.name,
            "version": spec.system.version,
            "owner": spec.system.owner,
        },
        "spec": {
            "path": str(spec.path) if spec.path else None,
            "sha256": spec.sha256,
        },
        "audit": {
            "audit_date": ll.audit_date,
            "distribution_date": ll.distribution_date,
            "use_date": ll.use_date,
            "checked_on": res.checked_on,
            "stale": res.stale,
            "auditor": None
            if ll.auditor is None
            else {
                "name": ll.auditor.name,
                "organisation": ll.auditor.organisation,
                "independence_statement": ll.auditor.independence_statement,
            },
        },
        "data": {
            "source": spec.data.source,
            "explanation": spec.data.explanation,
            "description": res.data.description,
        },
        "reconciliation": {
            "files": [
                {"role": f.role, "path": f.path, "rows": f.rows, **dict(f.fingerprint)}
                for f in rec.files
            ],
            "decision_rows": rec.decision_rows,
            "demographic_rows": rec.demographic_rows,
            "joined": rec.joined,
            "decisions_without_self_id": rec.decisions_unmatched,
            "self_id_without_decision": rec.demographics_unmatched,
            "join_on": rec.join_on,
            "applicants": rec.applicants,
            "sex_known": rec.sex_known,
            "race_known": rec.race_known,
            "both_known": rec.both_known,
        },
        "tool_kind": ll.kind,
        "rate": res.rate_name,
        "median_score": res.median,
        "settings": {
            "min_share": ll.min_share,
            "margin": ll.margin,
            "line": 0.8,
            "alpha": res.alpha,
            "alpha_source": res.alpha_source,
            "power_target": 0.80,
            "multiple_comparisons": multiple_comparisons(res.family),
            "exclusion_justification": ll.exclusion_justification,
            "cutoffs": list(ll.cutoffs),
            "stages": list(ll.stages),
            "unknown_values": list(ll.unknown_values),
            "categories": {axis: dict(m) for axis, m in ll.categories.items()},
        },
        "tables": {name: table_dict(res.tables[name], key) for name in TABLES},
        "findings": [finding_dict(f) for f in res.findings],
        "diagnosis": {
            "cutoff_sensitivity": None
            if res.sensitivity is None
            else _sensitivity_dict(res.sensitivity),
            "funnel": None if res.funnel is None else _funnel_dict(res.funnel),
        },
        "warnings": list(res.warnings),
        "interpretation": list(res.interpretation),
        "counts": _counts(res),
    }
    return out


def _cutoff_dict(c: Any) -> dict[str, Any]:
    return {
        "label": c.label,
        "top_share": c.top_share,
        "threshold": c.threshold,
        "rule": c.rule,
        "admitted": c.admitted,
        "share_admitted": c.share_admitted,
        "worst": _worst(c.worst),
        "tables": {
            name: table_dict(c.tables[name], "admitted", with_findings=False) for name in TABLES
        },
    }


def _sensitivity_dict(s: CutoffSensitivity) -> dict[str, Any]:
    return {
        "median": _cutoff_dict(s.median),
        "cutoffs": [_cutoff_dict(c) for c in s.cutoffs],
        "curve": [
            {
                "top_share": p.top_share,
                "threshold": p.threshold,
                "share_admitted": p.share_admitted,
                "worst": _worst(p.worst),
            }
            for p in s.curve
        ],
    }


def _funnel_dict(f: Funnel) -> dict[str, Any]:
    return {
        "line": f.line,
        "first_stage_below_line": dict(f.first_below),
        "first_stage_below_line_cumulative": dict(f.first_below_cumulative),
        "stages": [
            {
                "stage": s.name,
                "reached": s.reached,
                "passed": s.passed,
                "worst": _worst(s.worst_conditional),
                "worst_cumulative": _worst(s.worst_cumulative),
                "tables": {
                    name: table_dict(s.conditional[name], "passed", with_findings=False)
                    for name in TABLES
                },
                "cumulative_tables": {
                    name: table_dict(s.cumulative[name], "passed", with_findings=False)
                    for name in TABLES
                },
            }
            for s in f.stages
        ],
    }


def _counts(res: LL144Result) -> dict[str, Any]:
    """The integer counts the tables are computed from, so anyone can recompute them."""
    cells: dict[tuple[str | None, str | None], dict[str, Any]] = {}
    for c in res.data.cells:
        entry = cells.setdefault((c.sex, c.race), {"sex": c.sex, "race": c.race, "applicants": 0})
        entry["applicants"] += c.n
        if c.selected is not None:
            entry["selected"] = entry.get("selected", 0) + (c.n if c.selected == 1 else 0)
        if c.score is not None:
            scores: dict[float, int] = entry.setdefault("_scores", {})
            scores[c.score] = scores.get(c.score, 0) + c.n
    if res.ll144.kind == "scoring":
        distinct = {v for e in cells.values() for v in e["_scores"]}
        for e in cells.values():
            scores = e.pop("_scores")
            e["scored_above_median"] = sum(
                n for v, n in scores.items() if res.median is not None and v > res.median
            )
            if len(distinct) <= HISTOGRAM_LIMIT:
                e["histogram"] = [[v, n] for v, n in sorted(scores.items())]
        note = (
            "per cell: applicants, scored above the median, and the score histogram "
            "([score, count])"
            if len(distinct) <= HISTOGRAM_LIMIT
            else f"score histograms left out: {len(distinct)} distinct scores (more than "
            f"{HISTOGRAM_LIMIT}); rerun from the archived inputs to recompute cutoffs"
        )
    else:
        note = "per cell: applicants and selected"
    order = _cell_order()
    rows = sorted(cells.values(), key=lambda e: order.get((e["sex"], e["race"]), 999))
    return {"note": note, "cells": rows}


def _cell_order() -> dict[tuple[str | None, str | None], int]:
    from respai.eeo1 import RACE_CATEGORIES, SEX_CATEGORIES

    sexes: list[str | None] = [*SEX_CATEGORIES, None]
    races: list[str | None] = [*RACE_CATEGORIES, None]
    return {(s, r): i * len(races) + j for i, s in enumerate(sexes) for j, r in enumerate(races)}
