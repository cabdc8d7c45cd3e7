"""``respai evaluate``: the RESPAI battery and the group rules, sealed in a signed record.

:func:`evaluate` computes everything (one count pass, plus one sort by score for the
AUC's rank sums) and returns an :class:`Evaluation`; :func:`build_predicate` turns it
into the record's predicate (every test with value, interval, threshold and source,
verdict, the clauses it supports, and the integer counts behind it). Signing and the
ledger are the caller's (:mod:`respai.cli`, :mod:`respai.ledger`): this module prints
nothing and writes nothing.
"""

from __future__ import annotations

import platform
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from respai import __version__
from respai.battery import BATTERY, DEFAULT_THRESHOLDS, Decision, TestId, TestResult, Threshold
from respai.battery import run_battery as _run_battery
from respai.controls import load_controls
from respai.counts import Counts
from respai.errors import InputError, SpecError
from respai.fairness import FairnessResult, rule_dict, run_rules
from respai.record.model import Predicate, TestRecord, test_record
from respai.record.model import build_predicate as build_record
from respai.rules import RuleResult
from respai.spec import Policy, Spec, load_policy, load_spec
from respai.types import Interval, Verdict, worst

if TYPE_CHECKING:
    from respai.ll144.audit import LL144Result

__all__ = ["Evaluation", "build_predicate", "evaluate", "run_fingerprints", "thresholds_for"]


CLAIMS_STATES = [
    "These defined properties were measured on this dataset, by these methods, at this "
    "time, with this engine version.",
    "Each value is given with its interval, the threshold it was compared with, where that "
    "threshold came from, and the verdict.",
    "The SHA-256 fingerprints of the inputs and of the engine code are listed, and the "
    "whole record is signed.",
    "The framework clauses listed with a test call for the kind of measurement it makes "
    "(the test supports them).",
]
CLAIMS_DOES_NOT_STATE = [
    "That the system is safe, fair or compliant in general.",
    "That any legal obligation is met.",
    "That respai acts as an independent auditor under NYC Local Law 144 or as a notified "
    "body under the EU AI Act; it is neither.",
    "That the results hold for data the system meets after the evaluation.",
]


@dataclass(frozen=True, slots=True)
class Evaluation:
    """Everything one evaluation measured, before it is sealed.

    Attributes
    ----------
    fairness
        The group rules, per-group tables and counts (see
        :class:`~respai.fairness.FairnessResult`).
    battery
        The battery's tests in report order.
    thresholds
        The threshold used per battery test, with its source.
    verdict
        The worst verdict over the battery and the group rules.
    """

    spec: Spec
    policy: Policy | None
    fairness: FairnessResult
    battery: tuple[TestResult, ...]
    thresholds: Mapping[str, Threshold]
    score: str | None
    verdict: Verdict
    model: Mapping[str, Any] | None = None
    #: The cases file's fingerprint, hashed while the engine counted (``None``: not yet).
    dataset_fingerprint: Mapping[str, Any] | None = None
    #: The LL144 tables of the spec's ``ll144:`` block, when it declares one.
    ll144: LL144Result | None = None

    @property
    def exit_code(self) -> int:
        """The process exit code: the worst verdict's."""
        return self.verdict.exit_code

    @property
    def counts(self) -> Counts:
        """The integer counts everything was computed from."""
        return self.fairness.counts

    @property
    def rules(self) -> tuple[RuleResult, ...]:
        """The declared group rules' results."""
        return self.fairness.rules


def thresholds_for(policy: Policy | None) -> dict[str, Threshold]:
    """Default thresholds (seed 000) with a policy's per-test overrides applied."""
    out = dict(DEFAULT_THRESHOLDS)
    if policy is None:
        return out
    for test_id, override in policy.tests.items():
        base = out[test_id]
        out[test_id] = Threshold(
            comparison=base.comparison,
            value=override.get("threshold", base.value),
            source=policy.source if override else base.source,
            decision=Decision(override.get("decision", base.decision.value)),
        )
    return out


def evaluate(
    spec: Spec | str | Path,
    *,
    policy: Policy | str | Path | None = None,
    trust_model_code: bool = False,
    on_batch: Callable[[int, int], None] | None = None,
    engine: str = "duckdb",
) -> Evaluation:
    """Run the battery and the declared group rules on the spec's cases file.

    Parameters
    ----------
    spec
        A spec file path or a parsed :class:`~respai.spec.Spec` naming a cases file.
    policy
        A policy file path or :class:`~respai.spec.Policy` (thresholds, decisions).
    trust_model_code
        Allow a pickle/joblib model file to load (it runs code); the record says so.
    on_batch
        Progress callback ``(done_rows, total_rows)`` for perturbation stability.
    engine
        ``"duckdb"`` or ``"spark"``: where the count passes over the cases file run.

    Raises
    ------
    respai.errors.SpecError, respai.errors.InputError
        For a bad spec, policy or cases file.
    """
    parsed = spec if isinstance(spec, Spec) else load_spec(spec)
    pol = policy if isinstance(policy, Policy) or policy is None else load_policy(policy)
    if parsed.fairness.cases is None:
        raise InputError(
            "a signed record needs a cases file, and the spec names none.",
            "Set fairness.cases (or data.cases).",
        )
    ev = parsed.evaluation
    score = (ev.score if ev else None) or parsed.fairness.probability
    if ev is None or not ev.explicit_tests:
        # without a score column the default battery leaves AUC out (and says so)
        tests = BATTERY if score else tuple(t for t in BATTERY if t != TestId.AUC)
    else:
        tests = ev.tests
        if TestId.AUC in tests and score is None:
            origin = str(parsed.path) if parsed.path else "spec"
            raise SpecError(
                f"{origin}: evaluation.tests: lists auc, but there is no score column.",
                "Set evaluation.score (or fairness.probability), or remove auc.",
            )
    model = None
    if ev is not None and ev.model is not None:
        from respai.model import load_model

        # load (and refuse) the model before the data is read
        model = load_model(
            ev.model,
            trust_model_code=trust_model_code,
            trusted_types=ev.trusted_types,
            positive_label=ev.positive_label,
        )
    # the record needs the file's SHA-256: hash it on a thread while the engine counts
    # (hashlib releases the GIL), from the file the engine opened (None: object storage)
    from concurrent.futures import ThreadPoolExecutor

    from respai.load import open_cases
    from respai.spec import apply_policy

    source = open_cases(apply_policy(parsed.fairness, pol), None, engine, [score] if score else [])
    with ThreadPoolExecutor(max_workers=1) as pool:
        hashing = pool.submit(source.fingerprint)
        try:
            fairness = run_rules(parsed, pol, source, score=score, engine_name=engine)
        except BaseException:
            hashing.cancel()
            raise
        fingerprint: Mapping[str, Any] | None = hashing.result()
    thresholds = thresholds_for(pol)
    battery = _run_battery(fairness.counts, tests, thresholds, fairness.spec.alpha)
    if model is not None and ev is not None and TestId.PERTURBATION_STABILITY in tests:
        from respai.load import case_batches
        from respai.robustness import perturbation_stability

        attrs = list(fairness.spec.attributes)
        columns = list(dict.fromkeys([*ev.features, *attrs]))
        stability = perturbation_stability(
            model,
            case_batches(fairness.spec, columns),
            features=ev.features,
            numeric=ev.numeric,
            groups=attrs,
            noise=ev.noise,
            trials=ev.trials,
            seed=ev.seed or 0,
            on_batch=on_batch,
        )
        measured = stability.test_result(thresholds[TestId.PERTURBATION_STABILITY])
        stable = TestId.PERTURBATION_STABILITY
        battery = tuple(measured if t.test_id == stable else t for t in battery)
    audit = None
    if parsed.ll144 is not None:
        from respai.ll144.audit import run_ll144

        audit = run_ll144(parsed, policy=pol)
    verdicts = [*(t.verdict for t in battery), *(r.verdict for r in fairness.rules)]
    if audit is not None and audit.tables:
        verdicts.append(Verdict.MANUAL_REVIEW)  # LL144 findings are judged, not gated
    verdict = worst(verdicts)
    source.check_unchanged()  # the file counted and hashed is still the file named
    return Evaluation(
        parsed,
        pol,
        fairness,
        battery,
        thresholds,
        score,
        verdict,
        None if model is None else model.to_record(),
        fingerprint,
        audit,
    )


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
    )


def _rule_value(r: RuleResult) -> tuple[float | None, str | None]:
    """The observed statistic a rule's threshold is about, from the point estimates."""
    rates = [g.rate for g in r.groups]
    if any(x is None for x in rates):
        return None, "some declared group has no case with a prediction"
    defined = [float(x) for x in rates if x is not None]
    if r.rule.max_group_gap is not None:
        return max(defined) - min(defined), None
    return (min(defined) if r.rule.worst_min is not None else max(defined)), None


def _rule_record(r: RuleResult) -> TestRecord:
    value, undefined = _rule_value(r)
    detail = rule_dict(r)
    return test_record(
        test_id=TestId.GROUP_RULE,
        test_key=f"rule:{r.rule.id}",
        grouping=list(r.rule.attributes),
        value=value,
        value_meaning="largest gap between group rates"
        if r.rule.max_group_gap is not None
        else "worst group rate",
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
            "rates are over cases with a prediction."
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
            "sources": dict(e.fairness.spec.sources),
            "score": e.score,
            "unit": e.fairness.spec.unit,
            "seed": e.spec.evaluation.seed if e.spec.evaluation else None,
            "model": None if e.model is None else dict(e.model),
            "thresholds": {k: v.to_dict() for k, v in e.thresholds.items()},
        },
    }
    counts = _counts_dict(e.counts)
    claims = {"states": CLAIMS_STATES, "does_not_state": CLAIMS_DOES_NOT_STATE}
    caveats = _caveats(e)
    if e.ll144 is not None:
        from respai.ll144.seal import (
            LL144_CLAIMS_DOES_NOT_STATE,
            LL144_CLAIMS_STATES,
            ll144_caveats,
            ll144_counts,
            ll144_run_start,
            ll144_tests,
        )

        tests += ll144_tests(e.ll144)
        run_start["ll144"] = ll144_run_start(e.ll144)
        counts["ll144"] = ll144_counts(e.ll144)
        claims = {"states": LL144_CLAIMS_STATES, "does_not_state": LL144_CLAIMS_DOES_NOT_STATE}
        caveats += [f"LL144: {c}" for c in ll144_caveats(e.ll144)]
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

    ``dataset`` is the cases file (hashed from the bytes the engine counted). When the
    ``ll144:`` block reads other files (a self-identification file joined on an id, or a
    decisions file other than the cases file), each is listed under its role.
    """
    from respai.record import engine_code_fingerprint, file_fingerprint

    cases = e.fairness.spec.cases
    assert cases is not None
    out: dict[str, Any] = {
        "dataset": dict(e.dataset_fingerprint or file_fingerprint(cases)),
        "model": None if e.model is None else e.model.get("fingerprint"),
        "engine_code": engine_code_fingerprint(),
    }
    if e.ll144 is not None:
        for f in e.ll144.data.reconciliation.files:
            if f.fingerprint.get("sha256") != out["dataset"].get("sha256"):
                out["demographics" if f.role != "decisions" else "ll144_decisions"] = dict(
                    f.fingerprint
                )
    return out
