"""The evidence record of a run: its test records, counts, claims, caveats and fingerprints.

:func:`build_predicate` turns an :class:`~respai.results.Evaluation` into the record's
predicate through the one typed builder (:mod:`respai.record.predicate`): a test record per
battery test, per group rule and (with an ``ll144:`` block) per LL144 category, each with
its value, interval, threshold and source, verdict and the clauses it supports; the
integer counts behind every number; what the record claims and does not claim; and the
caveats. :func:`run_fingerprints` lists the inputs the run read. Nothing here signs or
writes: :mod:`respai.sealing` does.
"""

from __future__ import annotations

import platform
import uuid
from collections.abc import Mapping
from typing import Any

from respai.battery import TestId, TestResult
from respai.controls import CLAIMS_DOES_NOT_STATE, CLAIMS_STATES, load_controls
from respai.counts import Counts
from respai.record.predicate import Predicate, TestRecord, test_record
from respai.record.predicate import build_predicate as build_record
from respai.results import Evaluation, rule_dict
from respai.rules import RuleResult, observed
from respai.types import Interval
from respai.version import __version__

__all__ = [
    "build_predicate",
    "run_fingerprints",
]

# --- the record's predicate ------------------------------------------------------------


def _battery_record(t: TestResult) -> TestRecord:
    return test_record(
        test_id=t.test_id,
        test_key=t.key,
        grouping=list(t.grouping) if t.grouping else None,
        value=t.value,
        interval=Interval.json_or_none(t.interval),
        threshold=None if t.threshold is None else t.threshold.to_dict(),
        verdict=t.verdict.value,
        uncertain=t.uncertain,
        reason=t.reason,
        method=t.method,
        details=t.details,
        supports=[c.to_dict() for c in load_controls().for_test(t.test_id)],
        undefined_reason=None if t.undefined is None else t.undefined.reason,
        value_range=None if t.value_range is None else t.value_range.to_dict(),
    )


def _rule_value(r: RuleResult) -> tuple[float | None, str | None]:
    """The observed statistic a rule's threshold is about, from the point estimates."""
    return observed(r)


#: What a rule's value is, by the rule's kind.
_RULE_VALUE_MEANING = {
    "max_group_gap": "largest gap between group rates",
    "min_group_ratio": "smallest ratio of a group's rate to the reference rate",
    "worst_group": "worst group rate",
}


def _rule_record(r: RuleResult) -> TestRecord:
    value, undefined = _rule_value(r)
    detail = rule_dict(r)
    return test_record(
        test_id=TestId.GROUP_RULE,
        test_key=f"rule:{r.rule.id}",
        grouping=list(r.rule.attributes),
        value=value,
        value_meaning=_RULE_VALUE_MEANING[r.rule.kind],
        interval=None,
        threshold=detail["threshold"],
        verdict=r.verdict.value,
        reason=r.reason,
        method=detail["interval_method"],
        details=detail,
        supports=[c.to_dict() for c in load_controls().for_test(TestId.GROUP_RULE)],
        undefined_reason=undefined,
    )


def _counts_dict(counts: Counts) -> dict[str, Any]:
    """The integer counts behind every number, so a reader can recompute them."""
    out: dict[str, Any] = {
        "cases": counts.total,
        "overall": counts.overall.to_dict(),
        "empty_cells": dict(counts.null_cells),
        "groupings": {},
    }
    for g in counts.groupings.values():
        entry: dict[str, Any] = {
            "attributes": list(g.attributes),
            "groups": [{"key": list(k), **cell.to_dict()} for k, cell in g.groups.items()],
            "left_out": dict(g.left_out),
        }
        if g.calibration is not None:
            entry["calibration_bins"] = [
                {
                    "key": list(k),
                    "without_probability": c.without_probability,
                    "bins": [list(b) for b in c.bins],
                }
                for k, c in g.calibration.items()
            ]
        if counts.ranks is not None:
            entry["rank_sums"] = [
                {"key": list(k), **r.to_dict()} for k, r in counts.ranks[g.attributes].items()
            ]
        out["groupings"][g.name] = entry
    if counts.overall_ranks is not None:
        out["rank_sums"] = counts.overall_ranks.to_dict()
    if counts.calibration_bins:
        out["calibration_bin_columns"] = ["cases", "labelled_1", "sum_floor_p_times_1e6"]
    return out


def _caveats(e: Evaluation) -> list[str]:
    out = list(e.fairness.assumptions)
    left = {g.name: g.left_out_total for g in e.counts.groupings.values() if g.left_out_total}
    if left:
        out.append(
            "Left out of per-group results (no declared value): "
            + ", ".join(f"{k}: {v}" for k, v in left.items())
            + "."
        )
    if e.counts.overall.missing:
        out.append(
            f"{e.counts.overall.missing} case(s) have no prediction; the battery's "
            "rates are over cases with a prediction, and its verdicts read the worst "
            "case over every way the missing predictions could have gone."
        )
    if e.score is None:
        out.append("No score column: AUC was not computed.")
    if e.model is None:
        out.append(
            "Perturbation stability needs model access; without it the test is "
            "informational (MANUAL_REVIEW)."
        )
    else:
        out.append(
            "Perturbation stability adds small Gaussian noise to numeric features "
            "only; it says nothing about adversarial inputs or distribution shift."
        )
        if e.model.get("trusted_code"):
            out.append(
                "The model file was loaded with --trust-model-code: loading it ran "
                "code from the file."
            )
        if e.model.get("caller_trusted_types"):
            out.append(
                "The skops model file was loaded trusting, by --trust-type, the type(s) "
                f"{', '.join(e.model['caller_trusted_types'])}: loading it may run code "
                "they define."
            )
    return out


def build_predicate(
    e: Evaluation,
    *,
    key_id: str,
    fingerprints: Mapping[str, Any],
    timestamp: str,
    run_id: str | None = None,
) -> Predicate:
    """The record (the Statement's predicate) for an evaluation; ids are added on sealing.

    Parameters
    ----------
    e
        The evaluation.
    key_id
        The signing key's id.
    fingerprints
        ``{"dataset": ..., "model": ..., "engine_code": ...}``.
    timestamp
        RFC 3339 UTC time of the run.
    run_id
        The run id; a random UUID when omitted.
    """
    tests: list[TestRecord] = [
        *(_battery_record(t) for t in e.battery),
        *(_rule_record(r) for r in e.rules),
    ]
    spec = e.spec
    run_start: dict[str, Any] = {
        "spec": {"name": spec.path.name if spec.path else None, "sha256": spec.sha256},
        "policy": None
        if e.policy is None
        else {"name": e.policy.path.name if e.policy.path else None, "sha256": e.policy.sha256},
        "settings": {
            "alpha": e.fairness.spec.alpha,
            "min_cell": e.fairness.spec.min_cell,
            "max_left_out": e.fairness.spec.max_left_out,
            "max_missing": e.fairness.spec.max_missing,
            "sources": dict(e.fairness.spec.sources),
            "score": e.score,
            "unit": e.fairness.spec.unit,
            "seed": e.spec.evaluation.seed if e.spec.evaluation else None,
            "model": None if e.model is None else dict(e.model),
            "thresholds": {k: v.to_dict() for k, v in e.thresholds.items()},
        },
    }
    if e.plan is not None:
        run_start["plan"] = dict(e.plan)
    if e.plan_check is not None:
        run_start["plan_check"] = dict(e.plan_check)
    counts = _counts_dict(e.counts)
    claims = {"states": CLAIMS_STATES, "does_not_state": CLAIMS_DOES_NOT_STATE}
    caveats = _caveats(e)
    from respai.blocks import block_named

    for name, result in e.blocks.items():  # each optional block's part, in registry order
        parts = block_named(name).record(result)
        tests += parts.tests
        if parts.run_start is not None:
            run_start[name] = parts.run_start
        if parts.counts is not None:
            counts[name] = parts.counts
        if parts.claims is not None:
            claims = dict(parts.claims)
        caveats += parts.caveats
    return build_record(
        run_id=run_id or str(uuid.uuid4()),
        timestamp=timestamp,
        engine_version=__version__,
        python=platform.python_version(),
        key_id=key_id,
        system=spec.system.to_dict(),
        fingerprints=fingerprints,
        run_start=run_start,
        tests=tests,
        verdict=e.verdict.value,
        exit_code=e.exit_code,
        counts=counts,
        control_mapping=load_controls().to_record(),
        claims=claims,
        caveats=caveats,
    )


def run_fingerprints(e: Evaluation) -> dict[str, Any]:
    """The record's ``fingerprints``: every input file the run read, the model, the code.

    ``dataset`` is the cases file (or, for a DataFrame, the SHA-256 of the canonical Arrow
    IPC stream of the columns read), ``demographics`` the self-identification file when the
    spec joins one; each is hashed from the descriptor the engine read, and every block
    of the run (group rules, battery, LL144 tables) counted those same files.
    """
    from respai.record import engine_code_fingerprint, file_fingerprint

    cases = e.fairness.spec.cases
    if e.dataset_fingerprint is not None:  # the file hashed as counted, or a DataFrame's
        dataset = dict(e.dataset_fingerprint)
    else:
        assert cases is not None
        dataset = file_fingerprint(cases)
    out: dict[str, Any] = {
        "dataset": dataset,
        "model": None if e.model is None else e.model.get("fingerprint"),
        "engine_code": engine_code_fingerprint(),
    }
    out |= {k: dict(v) for k, v in (e.other_fingerprints or {}).items()}
    return out
