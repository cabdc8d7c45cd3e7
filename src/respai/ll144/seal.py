"""The signed record of an LL144 bias audit: the predicate respai's evidence records carry.

:func:`ll144_predicate` turns an :class:`~respai.ll144.audit.LL144Result` into the
predicate :func:`respai.record.seal` chains and signs, in the same shape as the record of
``respai evaluate`` (``record.schema.json``):

- a ``run_start`` record with the spec's name and SHA-256, the interpretation choices,
  the dates, the data source and the settings;
- one ``test`` record (``test_id`` ``ll144_impact_ratio``) per category of each table
  that has applicants, keyed ``ll144:<table>:<category>``, whose ``value`` is the impact
  ratio, or ``null`` with the ``undefined_reason`` (an excluded category, a table with
  no comparison);
- a ``run_end`` record.

The law sets no pass mark, so no test record has a threshold and every verdict is
``MANUAL_REVIEW``: the findings are stated, not gated, and an auditor judges them. The
finding (code and sentence), the one-sided Fisher p-value and its Holm-adjusted value
over the audit's comparisons (which decides ``significant``), the power and the cell size
needed for 80% power go in each record's ``details``. The top-level ``counts`` hold every
table's raw counts and the unknowns, so anyone can recompute every ratio from the record.

This module prints nothing, writes nothing and signs nothing: :mod:`respai.pack`
does that.
"""

from __future__ import annotations

import platform
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from respai.battery import TestId
from respai.controls import CLAIMS_DOES_NOT_STATE, CLAIMS_STATES, load_controls
from respai.ll144.audit import LL144Result, multiple_comparisons
from respai.ll144.tables import LINE, TABLES, CategoryRow, CategoryTable, Finding
from respai.record.predicate import Predicate, TestRecord, test_record
from respai.record.predicate import build_predicate as build_record
from respai.types import Interval
from respai.version import __version__

__all__ = [
    "LL144_CLAIMS_DOES_NOT_STATE",
    "LL144_CLAIMS_STATES",
    "TEST_ID",
    "VERDICT",
    "independence_status",
    "ll144_fingerprints",
    "ll144_predicate",
]

TEST_ID = TestId.LL144_IMPACT_RATIO
"""The ``test_id`` of every test record (and the control mapping's key)."""

VERDICT = "MANUAL_REVIEW"
"""The verdict of every LL144 test record: findings are stated, not gated; an auditor
judges them."""

_GROUPING = {"sex": ["sex"], "race": ["race"], "sex_x_race": ["sex", "race"]}

LL144_CLAIMS_STATES = [
    *CLAIMS_STATES,
    "For NYC Local Law 144: every category's count, rate and impact ratio, the unknown "
    "counts and the excluded categories, computed from the fingerprinted input files.",
]
"""What an LL144 record states: the evaluate record's claims, and the LL144 tables."""

LL144_CLAIMS_DOES_NOT_STATE = [
    *CLAIMS_DOES_NOT_STATE,
    "That the auditor meets the independence conditions of 6 RCNY § 5-300; the record "
    "carries the auditor's statement (or says it is missing) and cannot check it.",
    "That any impact ratio passes or fails: the law sets no pass mark.",
]
"""What an LL144 record does not state."""


def independence_status(result: LL144Result) -> str:
    """``"recorded"`` when the spec holds the auditor's statement, else ``"not_signed"``."""
    auditor = result.ll144.auditor
    return "recorded" if auditor is not None and auditor.independence_statement else "not_signed"


def ll144_fingerprints(result: LL144Result, engine_code: Mapping[str, Any]) -> dict[str, Any]:
    """The record's ``fingerprints`` for an audit, from the files its run read.

    ``dataset`` is the decisions file; ``demographics`` (an extra key the schema allows)
    the self-identification file when the spec joins one; ``model`` is ``None``.

    Parameters
    ----------
    result
        The audit result (its reconciliation holds each file's fingerprint).
    engine_code
        :func:`respai.record.engine_code_fingerprint` of the running code.
    """
    out: dict[str, Any] = {"dataset": None, "model": None, "engine_code": dict(engine_code)}
    for f in result.data.reconciliation.files:
        key = "dataset" if f.role == "decisions" else "demographics"
        out[key] = dict(f.fingerprint)
    return out


def _undefined_reason(row: CategoryRow, table: CategoryTable) -> str:
    reason = row.ratio_undefined or row.rate_undefined or table.undefined
    return reason.reason if reason is not None else "the impact ratio is undefined"


def _finding_details(f: Finding | None) -> dict[str, Any]:
    if f is None:
        return {
            "finding": None,
            "finding_sentence": None,
            "p_value_fisher_one_sided": None,
            "p_value_adjusted": None,
            "adjustment": None,
            "comparisons": None,
            "significant": None,
            "power": None,
            "n_for_power": None,
            "holm_level": None,
            "power_at_holm_level": None,
            "design_level": None,
            "design_n_per_category": None,
        }
    g = f.gap
    return {
        "finding": g.finding,
        "finding_sentence": g.sentence,
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
    }


def _test_record(
    result: LL144Result, table: CategoryTable, row: CategoryRow, controls: Sequence[Any]
) -> TestRecord:
    finding = next((f for f in table.findings if f.category == row.category), None)
    ll = result.ll144
    below = row.ratio_below(LINE)
    if finding is not None:
        reason = finding.gap.sentence
    elif row.impact_ratio is None:
        reason = _undefined_reason(row, table)
    elif row.category == table.best:
        reason = "top category of the table (the ratios' denominator)"
    else:
        reason = (
            f"impact ratio at or above {LINE + ll.margin:g} (the screening line {LINE:g} "
            f"plus margin {ll.margin:g}): no statistical finding"
        )
    return test_record(
        test_id=TEST_ID,
        test_key=f"ll144:{table.name}:{row.category}",
        grouping=list(_GROUPING[table.name]),
        value=row.impact_ratio,
        value_meaning=f"impact ratio: the category's {result.rate_name} over the best "
        "kept category's",
        interval=None,
        threshold=None,
        verdict=VERDICT,
        reason=reason,
        method="ll144 impact ratio (6 RCNY § 5-301); one-sided Fisher exact test "
        "against the top category, Holm-adjusted over every ordered pair of kept "
        "categories in the audit's tables, with exact power of the unadjusted test and at the "
        "level Holm's step tested it at, and a design size at alpha / m",
        details={
            "table": table.name,
            "category": row.category,
            "sex": row.sex,
            "race": row.race,
            "applicants": row.count,
            result.count_key: row.selected,
            "rate": row.rate,
            "rate_interval": Interval.json_or_none(row.interval),
            "share_of_known": row.share,
            "excluded": row.excluded,
            "compared_with": table.best,
            "screening_line": LINE,
            "below_screening_line": below,
            **_finding_details(finding),
        },
        supports=controls,
        undefined_reason=None if row.impact_ratio is not None else _undefined_reason(row, table),
    )


def ll144_counts(result: LL144Result) -> dict[str, Any]:
    """The integer counts of every LL144 table, the unknowns and the reconciliation."""
    key = result.count_key
    tables = {}
    for name in TABLES:
        t = result.tables[name]
        tables[name] = {
            "unknown": t.unknown,
            "known": t.known,
            "best": t.best,
            "rows": [
                {
                    "category": r.category,
                    "applicants": r.count,
                    key: r.selected,
                    "excluded": r.excluded,
                }
                for r in t.rows
            ],
        }
    rec = result.data.reconciliation
    return {
        "cases": rec.applicants,
        "count_key": key,
        "unknown": {
            "sex": result.tables["sex"].unknown,
            "race": result.tables["race"].unknown,
            "sex_or_race": result.tables["sex_x_race"].unknown,
        },
        "reconciliation": {
            "decision_rows": rec.decision_rows,
            "demographic_rows": rec.demographic_rows,
            "joined": rec.joined,
            "decisions_without_self_id": rec.decisions_unmatched,
            "self_id_without_decision": rec.demographics_unmatched,
            "sex_known": rec.sex_known,
            "race_known": rec.race_known,
            "both_known": rec.both_known,
        },
        "median_score": result.median,
        "tables": tables,
    }


def ll144_caveats(result: LL144Result) -> list[str]:
    """What a reader of the LL144 part of a record must know (interpretation, limits)."""
    ll = result.ll144
    out = [f"Interpretation choice: {item}" for item in result.interpretation]
    out.append(
        "NYC Local Law 144 sets no pass mark for impact ratios: no test record has a "
        f"threshold and every verdict is {VERDICT}. {LINE:g} (the four-fifths line of "
        "29 CFR 1607.4(D)) is only the screening line that decides which categories get a "
        f"Fisher test (one-sided, alpha {result.alpha:g}, significant only when its p-value "
        f"Holm-adjusted over the audit's {result.family.size} comparisons is at most alpha) "
        "with the exact power at the observed rates of the unadjusted test (details.power) "
        "and at the level Holm's step tested it at (details.power_at_holm_level), and the "
        "applicants per category for 80% power against an impact ratio of 0.8 at alpha / "
        "m (details.design_n_per_category); an "
        "auditor judges the findings. The impact ratio is given without an interval "
        "(interval null); each category's rate has its 95% Wilson interval in "
        "details.rate_interval."
    )
    out.append(
        "Test records are written for every category with applicants; empty categories "
        "are in counts only. A null value is an impact ratio that is undefined, with the "
        "reason."
    )
    excluded = [(result.tables[n], r) for n in TABLES for r in result.tables[n].excluded]
    if excluded:
        out.append(
            "Excluded from the impact ratios under min_share "
            f"{ll.min_share:g} (counts and rates still reported): "
            + "; ".join(f"{t.title}: {r.category} ({r.count})" for t, r in excluded)
            + f". Justification: {ll.exclusion_justification or 'not stated'}"
        )
    if independence_status(result) == "recorded":
        assert ll.auditor is not None
        who = ", ".join(x for x in (ll.auditor.name, ll.auditor.organisation) if x)
        out.append(
            f"Independence statement: recorded in the spec ({who or 'auditor not named'}); "
            "respai cannot check it."
        )
    else:
        out.append(
            "Independence statement: NOT YET SIGNED. The spec holds no "
            "ll144.auditor.independence_statement; the evidence pack carries a blank "
            "statement for the auditor to sign."
        )
    out += list(result.warnings)
    return out


def ll144_tests(result: LL144Result) -> list[TestRecord]:
    """One test record per category with applicants, sex table first."""
    controls = [c.to_dict() for c in load_controls().for_test(TEST_ID)]
    return [
        _test_record(result, result.tables[name], row, controls)
        for name in TABLES
        for row in result.tables[name].rows
        if row.count > 0
    ]


def ll144_run_start(result: LL144Result) -> dict[str, Any]:
    """The LL144 fields of a run's ``run_start`` record: interpretation, dates, data, settings."""
    ll, spec = result.ll144, result.spec
    rec = result.data.reconciliation
    return {
        "interpretation": list(result.interpretation),
        "dates": {
            "audit_date": ll.audit_date,
            "distribution_date": ll.distribution_date,
            "use_date": ll.use_date,
            "checked_on": result.checked_on,
            "stale": result.stale,
        },
        "data": {
            "source": spec.data.source,
            "explanation": spec.data.explanation,
            "files": [
                {
                    "role": f.role,
                    "name": f.fingerprint.get("name"),
                    "rows": f.rows,
                    "sha256": f.fingerprint.get("sha256"),
                }
                for f in rec.files
            ],
            "join_on": rec.join_on,
        },
        "settings": {
            "tool_kind": ll.kind,
            "rate": result.rate_name,
            "min_share": ll.min_share,
            "margin": ll.margin,
            "line": LINE,
            "alpha": result.alpha,
            "alpha_source": result.alpha_source,
            "power_target": 0.80,
            "multiple_comparisons": multiple_comparisons(result.family),
            "exclusion_justification": ll.exclusion_justification,
        },
        "independence_statement": independence_status(result),
    }


def ll144_predicate(
    result: LL144Result,
    *,
    key_id: str,
    fingerprints: Mapping[str, Any],
    timestamp: str,
    run_id: str | None = None,
    pack_files: Sequence[Mapping[str, Any]] | None = None,
) -> Predicate:
    """The record (the Statement's predicate) of an LL144 audit; ids are added on sealing.

    Parameters
    ----------
    result
        The audit result.
    key_id
        The signing key's id.
    fingerprints
        ``{"dataset": ..., "model": None, "engine_code": ...}``, plus ``demographics``
        for a self-ID file (see :func:`ll144_fingerprints`).
    timestamp
        RFC 3339 UTC time of the run.
    run_id
        The run id; a random UUID when omitted.
    pack_files
        The evidence pack's other files as ``[{"path", "sha256"}]``, signed with the
        record under ``pack`` (an extra key the schema allows); ``None`` leaves it out.

    Returns
    -------
    dict
        A predicate that :func:`respai.record.validate_predicate` accepts once sealed.
    """
    tests = ll144_tests(result)
    spec = result.spec
    return build_record(
        run_id=run_id or str(uuid.uuid4()),
        timestamp=timestamp,
        engine_version=__version__,
        python=platform.python_version(),
        key_id=key_id,
        kind="respai.ll144",
        system=spec.system.to_dict(),
        fingerprints=fingerprints,
        run_start={
            "spec": {"name": spec.path.name if spec.path else None, "sha256": spec.sha256},
            **ll144_run_start(result),
        },
        tests=tests,
        verdict=VERDICT,
        exit_code=result.exit_code,
        counts=ll144_counts(result),
        control_mapping=load_controls().to_record(),
        claims={"states": LL144_CLAIMS_STATES, "does_not_state": LL144_CLAIMS_DOES_NOT_STATE},
        caveats=ll144_caveats(result),
        extra=None if pack_files is None else {"pack": {"files": [dict(f) for f in pack_files]}},
    )
