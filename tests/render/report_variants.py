"""Statements that reach every branch of the report's renderer (for the binding tests).

Imported by path from the report tests (importlib mode): :func:`variants` takes a real
Statement (the loan-screen sample's) and returns edited copies that show an owner, a
policy, a model, a git commit, an undefined reason, small cells, an uncertain verdict, a
missing interval, hostile text, more groups than a chart draws (``many``), and LL144
categories with and without a finding. It adds the record of a real monitoring run
(:func:`monitor_statement`: a gap rule and a worst-group rule over three batches, with a
change alarm), as made and edited to show a continued stream, cases without a prediction
and an undefined change statistic.
"""

from __future__ import annotations

import base64
import copy
import json
import os
import random
import tempfile
from functools import cache
from pathlib import Path
from typing import Any

HOSTILE = 'x\u202egnp.exe <b onmouseover="alert(1)">&amp;</b>\u0007\n'


def variants(statement: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """Named edited copies of ``statement`` (the original is not changed)."""
    out: dict[str, dict[str, Any]] = {"original": copy.deepcopy(statement)}

    s = copy.deepcopy(statement)
    p = s["predicate"]
    p["system"].update(owner="Risk team", jurisdiction="NYC", first_distributed="2026-01-01")
    p["records"][0]["policy"] = {"name": "policy.yaml", "sha256": "ab" * 32}
    plan = {"plan_id": "sha256:" + "ef" * 32, "timestamp": "2026-01-02T03:04:05Z"}
    p["records"][0]["plan"] = {**plan, "record_id": "sha256:" + "12" * 32}
    p["records"][0]["plan_check"] = {**plan, "matches": False, "changed": ["fairness.alpha"]}
    p["fingerprints"]["model"] = {"name": "model.pkl", "sha256": "cd" * 32}
    s["subject"].append({"name": "model.pkl", "digest": {"sha256": "cd" * 32}})
    p["fingerprints"]["engine_code"].update(git_commit="0123abc", git_dirty=True)
    tests = [r for r in p["records"] if r["record_type"] == "test"]
    tests[0]["undefined_reason"] = "no cases with a prediction"
    tests[0]["uncertain"] = True
    tests[1]["interval"] = None
    rule = next(r for r in tests if r["test_id"] == "group_rule")
    rule["details"]["small_cells"] = [{"group": "female", "with_prediction": 12}]
    rule["details"]["groups"][0]["small_cell"] = True
    rule["details"]["groups"][0]["missing_prediction"] = 3
    rule["details"]["weights"] = {  # data.weight: the rule decided on weighted rates
        "decided_on": "weighted rates",
        "interval": "korn-graubard",
        "conditions": "design-based under the stated weights",
    }
    for i, g in enumerate(rule["details"]["groups"]):
        iv = {"lo": 0.3 + i / 100, "hi": 0.5, "confidence": 0.975, "method": "korn-graubard"}
        g["weighted"] = {"rate": 0.4 + i / 100, "interval": iv, "n_eff": 87.25 + i}
    out["branches"] = s

    s = copy.deepcopy(statement)
    p = s["predicate"]
    p["system"]["name"] = HOSTILE
    p["verdict"] = "MAYBE"
    for r in p["records"]:
        if r["record_type"] == "test":
            r["reason"] = HOSTILE
            r["verdict"] = 7
            r["value"] = None
            r["threshold"] = {"comparison": HOSTILE}
            if isinstance(r.get("grouping"), list):
                r["grouping"] = [HOSTILE, 3]
            for g in r.get("details", {}).get("groups", []):
                g["group"] = HOSTILE * 3
                g["rate"] = "high"
    p["caveats"] = [HOSTILE, 5]
    p["timestamp"] = "2026-02-30T10:00:00Z"
    out["hostile"] = s

    s = copy.deepcopy(statement)
    p = s["predicate"]
    for key in ("system", "fingerprints", "engine", "counts", "claims", "control_mapping"):
        p.pop(key, None)
    for r in p["records"]:
        if r["record_type"] == "test":
            for key in ("details", "threshold", "interval", "supports", "uncertain", "method"):
                r.pop(key, None)
    out["sparse"] = s
    out["many"] = many_groups(statement, MANY)
    out["monitor"] = monitor_statement()
    s = copy.deepcopy(out["monitor"])
    p = s["predicate"]
    p["records"][0]["monitor"].update(earlier_looks=2, new_looks=[3, 4, 5])
    tests = [r for r in p["records"] if r["record_type"] == "test"]
    for r in tests:
        r["details"]["look"] += 2
        r["details"]["groups"][0]["batch"]["missing"] = 3
        r["details"]["groups"][0]["missing"] = 4
    tests[0]["details"]["change"]["detectors"][0].update(statistic=None, log_statistic=None)
    out["monitor-continued"] = s
    out["monitor-history"] = monitor_with_history(out["monitor"])
    out["ll144"] = ll144_tests(statement, with_finding=True)
    out["ll144-no-finding"] = ll144_tests(statement, with_finding=False)
    return out


MONITOR_SPEC = """\
system: {name: screener, version: "1"}
fairness:
  label: label
  prediction: prediction
  attributes:
    sex: [f, m]
  rules:
    - {id: sel-gap, rate: selection, attribute: sex, max_group_gap: 0.1}
    - {id: sel-max, rate: selection, attribute: sex, worst_group: {max: 0.6}}
"""


def monitor_with_history(statement: dict[str, Any]) -> dict[str, Any]:
    """The monitoring run as the third of three runs: looks 1-2 copied into its history.

    Its own looks become 3-5; the copies of looks 1 and 2 (as a continued stream's run
    holds them in ``run_start.monitor.history``) are the original run's look 1 and 2.
    """
    from respai.monitor.ledger_check import history_entry

    s = copy.deepcopy(statement)
    p = s["predicate"]
    tests = [r for r in p["records"] if r["record_type"] == "test"]
    history = [history_entry(copy.deepcopy(r)) for r in tests if r["details"]["look"] <= 2]
    for r in tests:
        r["details"]["look"] += 2
    p["records"][0]["monitor"].update(earlier_looks=2, new_looks=[3, 4, 5], history=history)
    return s


@cache
def monitor_statement() -> dict[str, Any]:
    """The Statement of ``respai monitor`` on three batches; women's selection jumps at 3."""
    from respai.cli import main

    rng = random.Random(11)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        (work / "spec.yaml").write_text(MONITOR_SPEC, encoding="utf-8")
        names = []
        for look, rate in enumerate((0.4, 0.42, 0.75), start=1):
            rows = ["label,prediction,sex"]
            for _ in range(800):
                sex = rng.choice("fm")
                p = rate if sex == "f" else 0.4
                rows.append(f"{rng.randint(0, 1)},{int(rng.random() < p)},{sex}")
            (work / f"b{look}.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
            names.append(str(work / f"b{look}.csv"))
        old = os.environ.get("RESPAI_HOME")
        os.environ["RESPAI_HOME"] = str(work / "keys")
        try:
            code = main(["monitor", str(work / "spec.yaml"), *names, "--no-ledger", "--out",
                         str(work / "out")])  # fmt: skip
        finally:
            if old is None:
                os.environ.pop("RESPAI_HOME", None)
            else:
                os.environ["RESPAI_HOME"] = old
        assert code == 1, code
        envelope = json.loads((work / "out" / "record.json").read_text(encoding="utf-8"))
    from respai.record.canonical import loads_strict

    # as the page's script reads it: an integer past 2^53 (a large statistic) is a float
    statement: dict[str, Any] = loads_strict(base64.b64decode(envelope["payload"]))
    return statement


def ll144_tests(statement: dict[str, Any], *, with_finding: bool) -> dict[str, Any]:
    """The statement with its first two tests made LL144 categories (the findings list).

    The first has a finding when ``with_finding``; the second never has one.
    """
    s = copy.deepcopy(statement)
    tests = [r for r in s["predicate"]["records"] if r["record_type"] == "test"]
    for i, r in enumerate(tests[:2]):
        r.update(test_id="ll144_impact_ratio", test_key=f"ll144:sex:C{i}", value=0.7 + i / 10)
        r["verdict"] = "MANUAL_REVIEW"
        finding = with_finding and i == 0
        r["details"] = {
            "table": "sex",
            "category": f"C{i}",
            "rate": 0.25,
            "rate_interval": {"lo": 0.2, "hi": 0.3, "method": "wilson", "confidence": 0.95},
            "finding": "below_line_underpowered" if finding else None,
            "finding_sentence": "Impact ratio 0.700 is under the 0.8 line." if finding else None,
        }
    return s


#: Groups in the ``many`` variant: past the 50 a chart draws in full.
MANY = 73


def _spread(group: dict[str, Any], i: int, value: float | None, key: str) -> dict[str, Any]:
    g = copy.deepcopy(group)
    g["group"] = f"g{i}"
    g[key] = value
    for name in ("interval", "interval_95", "interval_simultaneous"):
        if isinstance(g.get(name), dict) and value is not None:
            width = 0.02 if name == "interval_95" else 0.04
            g[name] = {**g[name], "lo": max(value - width, 0.0), "hi": min(value + width, 1.0)}
    return g


def many_groups(statement: dict[str, Any], n: int) -> dict[str, Any]:
    """``statement`` with ``n`` groups in every group list its charts draw.

    The values repeat (ties), three groups have none, so the lowest and highest groups a
    capped chart draws depend on the record's order as well as the values.
    """
    s = copy.deepcopy(statement)
    values: list[float | None] = [round(0.2 + (i * 37 % 41) / 100, 2) for i in range(n)]
    for i in (3, 30, n - 1):
        values[i] = None
    for r in s["predicate"]["records"]:
        details = r.get("details") if r.get("record_type") == "test" else None
        if not isinstance(details, dict):
            continue
        if isinstance(details.get("groups"), list) and details["groups"]:
            first = details["groups"][0]
            details["groups"] = [_spread(first, i, v, "rate") for i, v in enumerate(values)]
        for attr, entries in (details.get("per_group") or {}).items():
            if isinstance(entries, list) and entries:
                details["per_group"][attr] = [
                    _spread(entries[0], i, v, "value") for i, v in enumerate(values)
                ]
    for grouping in s["predicate"]["counts"]["groupings"].values():
        grouping["groups"] = [_counted(i) for i in range(n)]
    return s


def _counted(i: int) -> dict[str, Any]:
    """The counts of the ``i``-th group of a long list: cases repeat (ties), a few groups
    are empty or have no case labelled 1 or predicted 1 (undefined rates), and one holds a
    count that is not an integer (shown as a dash, its group left out of the extremes)."""
    tp, fp, tn, fn = i * 7 % 13, i * 5 % 11, i * 3 % 17, i % 4
    if i % 9 == 4:
        tp = fn = 0
    if i % 10 == 6:
        tp = fp = 0
    cell: dict[str, Any] = {"key": [f"g{i:02d}"], "tp": tp, "fp": fp, "tn": tn, "fn": fn}
    cell["missing_prediction_label_1"] = i % 3
    cell["missing_prediction_label_0"] = 0 if i % 5 else 2
    if i == 0:
        cell.update(tp=0, fp=0, tn=0, fn=0, missing_prediction_label_1=0)
        cell["missing_prediction_label_0"] = 0
    if i == 17:
        cell["tn"] = 2.5
    return cell


def resign(statement: dict[str, Any], private_key: Any) -> dict[str, Any]:
    """``statement`` re-chained (record ids, links, run_end) and signed with ``private_key``.

    What someone who can edit the record and holds a key of their own can produce: the
    predicate names the new key, so every check but the comparison of key ids passes.
    """
    from respai.record import canonical_bytes, key_id, sign_envelope
    from respai.record.chain import link_records

    s = copy.deepcopy(statement)
    p = s["predicate"]
    first = p["records"][0]
    p["records"] = link_records(
        p["records"],
        run_id=p["run_id"],
        prev_record_id=first["prev_record_id"],
        start_seq=first["seq"],
    )
    p["key_id"] = key_id(private_key.public_key())
    return sign_envelope(canonical_bytes(s), private_key, p["key_id"])
