"""A monitoring call's signed record: the looks it added, each batch's counts, the verdicts.

One run per ``respai monitor`` call (kind ``respai.monitor``), built through the record's
one constructor. ``counts.monitor.looks`` holds each new batch's own counts (never a
running total), so the next call recomputes the cumulative counts from verified batches.
One ``monitor_rule`` test record per rule per new look carries the cumulative counts, the
confidence sequence of every group and the verdict.
"""

from __future__ import annotations

import platform
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from respai.monitor.change import CHANGE_METHOD, HORIZON, guarantee_text
from respai.monitor.kind import TEST_ID
from respai.monitor.looks import RuleLook
from respai.monitor.run import MonitorResult
from respai.monitor.sequence import CS_METHOD
from respai.monitor.stream import KIND
from respai.record.predicate import Predicate, TestRecord, test_record
from respai.record.predicate import build_predicate as build_record
from respai.version import __version__

if TYPE_CHECKING:
    from respai.io import StagedFolder
    from respai.sealing import Signing, SigningKey

__all__ = ["monitor_output", "monitor_predicate", "seal_monitor"]


_METHOD = (
    f"{CS_METHOD}: time-uniform confidence sequence per group (Jeffreys mixture martingale, "
    "Ville's inequality), Bonferroni over the rule's groups, cases without a prediction at "
    "their worst; the group rules' decision table on the cumulative counts at this look; "
    f"beside it {CHANGE_METHOD}: a CUSUM e-detector per group (per ordered pair of groups "
    "for a gap rule) from each batch's likelihood-ratio e-values against the rule's limit "
    "(Shin, Ramdas and Rinaldo 2023), FAIL from the look its statistic reaches "
    "K * horizon / alpha"
)
_STATES = [
    "These rates were measured on the batches listed, in this order, by this engine version.",
    "Each group's interval holds at every look of the stream at once with at least the "
    "stated confidence (a confidence sequence), so looking after every batch does not "
    "inflate the chance of a wrong verdict.",
    "Each rule's change detectors raise a false alarm, while the rule holds at every "
    "batch, after an average of at least horizon / alpha looks, and within the stream's "
    "first horizon looks with chance at most alpha (run_start.monitor.change_guarantee).",
]
_DOES_NOT_STATE = [
    "That the batches are all the outcomes the system produced in the period.",
    "That the system is fair or compliant in general.",
]


def _test(res: MonitorResult, look: int, r: RuleLook) -> TestRecord:
    rule = next(x for x in res.fairness.rules if x.id == r.id)
    limit = (
        rule.max_group_gap
        if rule.max_group_gap is not None
        else (rule.worst_min if rule.worst_min is not None else rule.worst_max)
    )
    comparison = (
        "max_group_gap"
        if rule.max_group_gap is not None
        else "worst_min"
        if rule.worst_min is not None
        else "worst_max"
    )
    details: dict[str, Any] = {
        "stream": res.stream,
        "look": look,
        "rule": r.id,
        "rate": rule.rate.value,
        "attribute": list(rule.attributes),
        "alpha": res.fairness.alpha,
        "groups": [g.to_json() for g in r.groups],
        "gap_bounds": None
        if r.gap_bounds is None
        else {"lo": r.gap_bounds[0], "hi": r.gap_bounds[1]},
        "changed_from": None if r.changed_from is None else r.changed_from.value,
        "cumulative_verdict": None if r.cumulative_verdict is None else r.cumulative_verdict.value,
        "change": None if r.change is None else r.change.to_json(),
        "window": None if r.window is None else r.window.to_json(),
    }
    return test_record(
        test_id=TEST_ID,
        test_key=f"monitor:{r.id}:look{look}",
        grouping=list(rule.attributes),
        value=None,
        interval=None,
        threshold={"comparison": comparison, "value": limit, "source": "spec"},
        verdict=r.verdict.value,
        reason=r.reason,
        method=_METHOD,
        details=details,
        supports=[],
        undefined_reason="a monitored rule is decided on its groups' sequences; see details",
    )


def monitor_predicate(
    res: MonitorResult,
    *,
    key_id: str,
    fingerprints: Mapping[str, Any],
    timestamp: str,
) -> Predicate:
    """The record of one ``respai monitor`` call; ids are added on sealing."""
    from respai.controls import load_controls

    new = {b.look for b in res.new_batches}
    tests = [
        _test(res, look.look, r) for look in res.looks if look.look in new for r in look.rules
    ]
    spec = res.spec
    return build_record(
        run_id=str(uuid.uuid4()),
        timestamp=timestamp,
        engine_version=__version__,
        python=platform.python_version(),
        key_id=key_id,
        kind=KIND,
        system=spec.system.to_dict(),
        fingerprints=fingerprints,
        run_start={
            "spec": {"name": spec.path.name if spec.path else None, "sha256": spec.sha256},
            "monitor": {
                "stream": res.stream,
                "criteria_id": res.criteria_id,
                "criteria": dict(res.criteria),
                "new_stream": None if res.new_stream is None else dict(res.new_stream),
                "new_looks": sorted(new),
                "earlier_looks": min(new) - 1,
                "interval_method": CS_METHOD,
                "alpha": res.fairness.alpha,
                "favorable": res.fairness.favorable,
                "orientation": res.fairness.orientation,
                "change_method": CHANGE_METHOD,
                "change_horizon": HORIZON,
                "change_guarantee": guarantee_text(res.fairness.alpha),
                "window": res.window,
                "history": [dict(h) for h in res.history],
            },
        },
        tests=tests,
        verdict=res.verdict.value,
        exit_code=res.exit_code,
        counts={"monitor": {"looks": [b.to_json() for b in res.new_batches]}},
        control_mapping=load_controls().to_record(),
        claims={"states": _STATES, "does_not_state": _DOES_NOT_STATE},
        caveats=[
            "Each call's verdict is the latest look's; earlier looks are in earlier runs of "
            "the stream in the ledger, and run_start.monitor.history copies each of them "
            "from the record it names (respai verify --ledger checks every copy).",
        ],
    )


def monitor_output(out: Path) -> StagedFolder:
    """The ``--out`` folder of ``respai monitor``, checked before any batch is read."""
    from respai.io import StagedFolder
    from respai.sealing import earlier_output

    return StagedFolder(out, earlier_output("record.json"), what="respai monitor output")


def seal_monitor(
    result: MonitorResult, signing: Signing
) -> tuple[Mapping[str, Any], Path | None, str | None]:
    """Sign the looks of one ``respai monitor`` call, write ``--out`` and append the run.

    Returns the envelope, the ledger it joined (``None``: none) and a note when the
    ledger took the run short of a checkpoint (see :func:`respai.sealing.seal_run`).
    """
    from respai.record import engine_code_fingerprint, format_timestamp, now_utc, seal
    from respai.record.keys import public_key_raw
    from respai.render.report import render_report
    from respai.sealing import envelope_bytes

    prints = list(result.fingerprints)
    fingerprints = {
        "dataset": dict(prints[-1]),
        "model": None,
        "engine_code": engine_code_fingerprint(),
        "batches": [dict(p) for p in prints],
    }

    def build(sk: SigningKey, prev: str, start: int) -> Mapping[str, Any]:
        predicate = monitor_predicate(
            result,
            key_id=sk.key_id,
            fingerprints=fingerprints,
            timestamp=format_timestamp(now_utc()),
        )
        return seal(predicate, None, sk.key, sk.key_id, prev_record_id=prev, start_seq=start)

    def files(sk: SigningKey, envelope: Mapping[str, Any]) -> dict[str, str | bytes]:
        # the page embeds this record and the key that just signed it, and checks both
        page = render_report(envelope, public_key_raw(sk.key.public_key()))
        return {"record.json": envelope_bytes(envelope), "report.html": page}

    return signing.seal(build, files)
