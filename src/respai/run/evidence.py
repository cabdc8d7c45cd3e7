"""The evidence record of a run: its test records, counts, claims, caveats and fingerprints.

:func:`build_predicate` turns an :class:`~respai.results.Evaluation` into the record's
predicate through the one typed builder (:mod:`respai.record.predicate`): each block's test
records (:meth:`respai.blocks.Block.record`: a test record per battery test, per group
rule, per LL144 category, per paired comparison), each with its value, interval,
threshold and source, verdict and the clauses it supports; the integer counts behind
every number; what the record claims and does not claim; and the caveats of the count
pass and of each block. :func:`run_fingerprints` lists the inputs the run read. Nothing
here signs or writes: :mod:`respai.sealing` does.
"""

from __future__ import annotations

import platform
import uuid
from collections.abc import Mapping
from typing import Any

from respai.controls import CLAIMS_DOES_NOT_STATE, CLAIMS_STATES, load_controls
from respai.counts import Counts, calibration_columns
from respai.record.compact import (
    COMPACT_MIN_GROUPS,
    COMPACT_SCHEMA_VERSION,
    compact_grouping,
    compact_groupings,
    compact_tests,
)
from respai.record.predicate import Predicate, TestRecord
from respai.record.predicate import build_predicate as build_record
from respai.results import Evaluation
from respai.version import __version__

__all__ = [
    "build_predicate",
    "run_fingerprints",
]

# --- the record's predicate ------------------------------------------------------------


def _in_order(by_key: Mapping[Any, Any], keys: list[Any]) -> list[Any]:
    """The values of ``by_key`` in the order of ``keys`` (read in order when it is theirs)."""
    if list(by_key) == keys:
        return list(by_key.values())
    return [by_key[k] for k in keys]


def _counts_dict(counts: Counts) -> dict[str, Any]:
    """The integer counts behind every number, so a reader can recompute them."""
    out: dict[str, Any] = {
        "cases": counts.total,
        "overall": counts.overall.to_dict(),
        "empty_cells": dict(counts.null_cells),
        "groupings": {},
    }
    for g in counts.groupings.values():
        if len(g.groups) > COMPACT_MIN_GROUPS:  # columns of integers, no object per group
            keys = list(g.groups)
            ranks = None if counts.ranks is None else counts.ranks[g.attributes]
            out["groupings"][g.name] = compact_grouping(
                g.attributes,
                keys,
                g.groups.values(),
                g.left_out,
                None if g.calibration is None else calibration_columns(g.calibration, keys),
                None if ranks is None else _in_order(ranks, keys),
            )
            continue
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
    return out


def _settings(e: Evaluation) -> dict[str, Any]:
    """``run_start.settings`` of a run with a ``fairness:`` block."""
    return {
        "alpha": e.fairness.spec.alpha,
        "min_cell": e.fairness.spec.min_cell,
        "max_left_out": e.fairness.spec.max_left_out,
        "max_missing": e.fairness.spec.max_missing,
        "sources": dict(e.fairness.spec.sources),
        # run-level family-wise control over the run's tests (a policy's familywise:)
        "familywise": None if e.familywise is None else dict(e.familywise),
        "score": e.score,
        "unit": e.fairness.spec.unit,
        "favorable": e.fairness.spec.favorable,
        "orientation": e.fairness.spec.orientation,
        "seed": e.spec.evaluation.seed if e.spec.evaluation else None,
        "model": None if e.model is None else dict(e.model),
        "thresholds": {k: v.to_dict() for k, v in e.thresholds.items()},
        # the verdicts the person running accepted (--accept): the run_end exit_code
        # is the worst verdict's that is not accepted, 0 when none is left
        "accepted": [v.value for v in e.accepted],
    }


#: The caveat of a run without a ``fairness:`` block.
NO_FAIRNESS_CAVEAT = (
    "The spec declares no fairness: block: the run has no group rules of binary "
    "decisions and no battery; counts.cases is the number of rows of the cases file, and "
    "each block's counts are under its own name."
)

#: Why each setting of the ``fairness:`` block is ``null`` in a run without one.
NULL_SETTINGS: Mapping[str, str] = {
    "min_cell": "no fairness: block; each block states its own min_cell",
    "max_left_out": "no fairness: block; each block counts its left-out cases by reason",
    "unit": "no fairness: block declares a unit column",
    "favorable": "no fairness: block: no binary label or prediction to orient",
    "orientation": "no fairness: block: no binary label or prediction to orient",
    "score": "no fairness: block, so no battery and no AUC score",
    "seed": "no evaluation: battery",
    "model": "no evaluation: battery",
}


def _settings_without_fairness(e: Evaluation) -> dict[str, Any]:
    """``run_start.settings`` of a run without a ``fairness:`` block.

    ``alpha`` and ``max_missing`` are the run's (the policy's, else the defaults: the
    values the blocks without their own read, :func:`respai.decision.resolve_alpha`); the
    settings only the fairness block gives are ``null``, each with its reason under
    ``null_reasons``.
    """
    from respai.decision import resolve_alpha, resolve_max_missing

    alpha, alpha_source = resolve_alpha(e.spec, e.policy)
    max_missing, mm_source = resolve_max_missing(e.spec, e.policy)
    return {
        "alpha": alpha,
        "min_cell": None,
        "max_left_out": None,
        "max_missing": max_missing,
        "sources": {"alpha": alpha_source, "max_missing": mm_source},
        "familywise": None if e.familywise is None else dict(e.familywise),
        "score": None,
        "unit": None,
        "favorable": None,
        "orientation": None,
        "seed": None,
        "model": None,
        "thresholds": {},
        "accepted": [v.value for v in e.accepted],
        "null_reasons": dict(NULL_SETTINGS),
    }


def block_counts(e: Evaluation) -> dict[str, Any]:
    """The record's ``counts`` of a run without a ``fairness:`` block.

    ``cases`` (the rows of the cases file) and each block's counts under its name, as
    :func:`build_predicate` writes them; ``respai verify --data --spec`` recounts these.
    """
    from respai.blocks import block_named

    out: dict[str, Any] = {"cases": e.cases}
    for name, result in e.blocks.items():
        parts = block_named(name).record(result)
        if parts.counts is not None:
            out[name] = parts.counts
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
    tests: list[TestRecord] = []
    spec = e.spec
    run_start: dict[str, Any] = {
        "spec": {"name": spec.path.name if spec.path else None, "sha256": spec.sha256},
        "policy": None
        if e.policy is None
        else {"name": e.policy.path.name if e.policy.path else None, "sha256": e.policy.sha256},
        "settings": _settings(e) if e.has_fairness else _settings_without_fairness(e),
    }
    if e.policy is not None and e.policy.retention:
        # the retention clocks (a policy's retention:), only when set: a record without
        # them stays byte-identical
        from respai.retention import retention_entries

        run_start["settings"]["retention"] = retention_entries(e.policy.retention, timestamp)
    if e.plan is not None:
        run_start["plan"] = dict(e.plan)
    if e.plan_check is not None:
        run_start["plan_check"] = dict(e.plan_check)
    if e.has_fairness:
        counts = _counts_dict(e.counts)
        if e.fairness.weighted is not None:  # data.weight: the weights' fingerprint and sums
            run_start["weights"] = e.fairness.weighted.fingerprint()
            counts["weighted"] = e.fairness.weighted.counts_dict()
        caveats = _caveats(e)
    else:  # the rows of the cases file, counted; each block's integers under its name
        counts = {"cases": e.cases}
        caveats = [NO_FAIRNESS_CAVEAT]
    claims = {"states": CLAIMS_STATES, "does_not_state": CLAIMS_DOES_NOT_STATE}
    from respai.blocks import block_named

    for name, result in e.blocks.items():  # each block's part, in registry order
        parts = block_named(name).record(result)
        tests += parts.tests
        if parts.run_start is not None:
            run_start[name] = parts.run_start
        if parts.counts is not None:
            counts[name] = parts.counts
        if parts.claims is not None:
            claims = dict(parts.claims)
        caveats += parts.caveats
    compact = compact_groupings(counts)
    if compact:  # per-group rows derived from the counts' columns, not written
        tests = compact_tests(tests, compact)
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
        schema_version=COMPACT_SCHEMA_VERSION if compact else None,
    )


def run_fingerprints(e: Evaluation, engine_code: dict[str, Any] | None = None) -> dict[str, Any]:
    """The record's ``fingerprints``: every input file the run read, the model, the code.

    ``dataset`` is the cases file (or, for a DataFrame, the SHA-256 of the canonical Arrow
    IPC stream of the columns read), ``demographics`` the self-identification file when the
    spec joins one; each is hashed from the descriptor the engine read, and every block
    of the run (group rules, battery, LL144 tables) counted those same files.
    ``engine_code`` is the running code's fingerprint when the caller already has it
    (hashed during the run); ``None`` hashes it now.
    """
    from respai.record import engine_code_fingerprint, file_fingerprint

    cases = e.spec.data.cases if not e.has_fairness else e.fairness.spec.cases
    if e.dataset_fingerprint is not None:  # the file hashed as counted, or a DataFrame's
        dataset = dict(e.dataset_fingerprint)
    else:
        assert cases is not None
        dataset = file_fingerprint(cases)
    out: dict[str, Any] = {
        "dataset": dataset,
        "model": None if e.model is None else e.model.get("fingerprint"),
        "engine_code": engine_code_fingerprint() if engine_code is None else engine_code,
    }
    out |= {k: dict(v) for k, v in (e.other_fingerprints or {}).items()}
    return out
