"""Comparing two records of one system: verdicts first, then values, thresholds, fingerprints."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from respai.cli import main
from respai.compare import CompareError, compare_records
from respai.record import key_id, seal

KEY = Ed25519PrivateKey.generate()
KID = key_id(KEY.public_key())


def make_test(key: str, value: float | None, verdict: str, threshold: float) -> dict[str, Any]:
    record: dict[str, Any] = {
        "record_type": "test",
        "test_id": key.split(":")[0],
        "test_key": key,
        "value": value,
        "verdict": verdict,
        "threshold": {"comparison": ">=", "value": threshold, "source": "policy p.yaml"},
    }
    if value is None:
        record["undefined_reason"] = "a group has no case"
    record["details"] = DETAILS.get(record["test_id"], {})
    return record


#: Minimal details of the test kinds the schema checks (compare does not read them).
DETAILS: dict[str, dict[str, Any]] = {
    "accuracy": {"correct": 81, "with_prediction": 100, "missing_prediction": 0},
    "auc": {"overall": {}, "per_group": {}, "cases_without_score": 0},
    "impact_ratio": {"groups": [], "rate": "selection rate"},
}


def envelope(
    run_id: str,
    tests: list[dict[str, Any]],
    *,
    dataset_sha256: str = "1f" * 32,
    system: dict[str, str] | None = None,
    timestamp: str = "2026-01-15T10:20:30Z",
    favorable: int | None = None,
) -> dict[str, Any]:
    worst = "FAIL" if any(t["verdict"] == "FAIL" for t in tests) else "PASS"
    predicate: dict[str, Any] = {
        "schema_version": "1.0",
        "run_id": run_id,
        "timestamp": timestamp,
        "engine": {"name": "respai-evidence-engine", "version": "0.1.0"},
        "verdict": worst,
        "fingerprints": {
            "dataset": {
                "name": "cases.csv",
                "media_type": "text/csv",
                "size_bytes": 10,
                "sha256": dataset_sha256,
            },
            "model": None,
            "engine_code": {
                "sha256": "3d" * 32,
                "files": 3,
                "version": "0.1.0",
                "git_commit": None,
                "git_dirty": None,
            },
        },
        "records": [
            {
                "record_type": "run_start",
                "spec": {"name": "spec.yaml", "sha256": "4c" * 32},
                **({} if favorable is None else {"settings": {"favorable": favorable}}),
            },
            *tests,
            {"record_type": "run_end", "verdict": worst},
        ],
        "control_mapping": {"version": "t", "review_status": "test", "relation": "supports"},
        "claims": {"states": [], "does_not_state": []},
        "caveats": [],
    }
    predicate["system"] = {"name": "loan-screen", "version": "1.0"} if system is None else system
    if not predicate["system"]:
        del predicate["system"]
    return seal(predicate, None, KEY, KID)


BASE = [
    make_test("accuracy", 0.81, "PASS", 0.7),
    make_test("impact_ratio:sex", 0.9, "PASS", 0.8),
    make_test("auc", 0.8, "PASS", 0.7),
    make_test("selection_rate_gap:age", 0.05, "PASS", 0.0),
]


def test_changed_value_verdict_threshold_and_dataset_are_reported() -> None:
    a = envelope("run-a", BASE)
    b = envelope(
        "run-b",
        [
            make_test("accuracy", 0.65, "FAIL", 0.7),  # value and verdict change
            make_test("impact_ratio:sex", 0.92, "PASS", 0.85),  # value and threshold
            make_test("selection_rate_gap:age", 0.05, "PASS", 0.0),  # unchanged
            make_test("calibration", None, "INSUFFICIENT_EVIDENCE", 0.1),  # new
        ],
        dataset_sha256="2e" * 32,
        timestamp="2026-02-01T09:00:00Z",
    )
    c = compare_records(a, b, labels=("a.json", "b.json"))
    assert c.same_system and c.changed and c.verdict_changed
    assert (c.a.run_id, c.b.run_id) == ("run-a", "run-b")
    assert (c.a.timestamp, c.b.timestamp) == ("2026-01-15T10:20:30Z", "2026-02-01T09:00:00Z")
    assert (c.a.verdict, c.b.verdict) == ("PASS", "FAIL")

    # Verdict changes first, then the other changes, then the unchanged.
    assert [t.test_key for t in c.tests] == [
        "accuracy",
        "impact_ratio:sex",
        "selection_rate_gap:age",
    ]
    accuracy, impact, gap = c.tests
    assert (accuracy.verdict_a, accuracy.verdict_b) == ("PASS", "FAIL")
    assert accuracy.value_changed and accuracy.delta == pytest.approx(-0.16)
    assert not accuracy.threshold_changed
    assert impact.value_changed and not impact.verdict_changed and impact.threshold_changed
    assert impact.delta == pytest.approx(0.02)
    assert not gap.changed and gap.delta == 0.0
    assert [t.test_key for t in c.verdict_changes] == ["accuracy"]
    assert c.only_in_a == ("auc",) and c.only_in_b == ("calibration",)
    assert [(f.field, f.a, f.b) for f in c.fingerprint_changes] == [
        ("dataset sha256", "1f" * 32, "2e" * 32)
    ]

    data = c.to_dict()
    assert json.loads(json.dumps(data)) == data
    assert data["verdict_changes"] == ["accuracy"] and data["changed"] is True
    assert data["fingerprint_changes"][0]["b"] == "2e" * 32

    lines = c.lines()
    text = "\n".join(lines)
    assert lines[0].startswith("A: a.json: run run-a at 2026-01-15T10:20:30Z, loan-screen 1.0")
    assert lines[2] == "Verdict: PASS → FAIL"
    assert lines[3] == "Verdict changes (1):"
    assert lines[4] == "  accuracy: PASS → FAIL; value 0.81 → 0.65 (-0.16)"
    assert "  impact_ratio:sex: 0.9 → 0.92 (+0.02); verdict PASS in both" in lines
    assert "  impact_ratio:sex: >= 0.8 → >= 0.85" in lines
    assert "Only in A (1): auc" in lines and "Only in B (1): calibration" in lines
    assert "  dataset sha256: 1f1f1f1f1f1f… → 2e2e2e2e2e2e…" in lines
    assert lines[-1] == "1 test(s) unchanged."
    assert text.index("Verdict changes") < text.index("Value changes")
    assert text.index("Value changes") < text.index("Fingerprint changes")


def test_identical_records_report_no_change() -> None:
    a = envelope("run-a", BASE)
    c = compare_records(a, a)
    assert not c.changed and not c.verdict_changed
    assert c.fingerprint_changes == () and c.only_in_a == () and c.only_in_b == ()
    assert all(not t.changed for t in c.tests) and len(c.tests) == 4
    assert c.lines()[-1].startswith("No change:") and "4 test(s)" in c.lines()[-1]
    # A run re-sealed with another run id and time is still "no change" in substance...
    b = envelope("run-b", BASE, timestamp="2026-03-01T00:00:00Z")
    again = compare_records(a, b)
    assert not again.changed and again.b.run_id == "run-b"


def test_envelope_statement_and_predicate_are_all_accepted() -> None:
    env = envelope("run-a", BASE)
    statement = json.loads(base64.b64decode(env["payload"]))
    assert not compare_records(env, statement).changed
    assert not compare_records(statement["predicate"], env).changed


def test_system_identity() -> None:
    a = envelope("a", BASE)
    other = envelope("b", BASE, system={"name": "hiring-screen", "version": "1.0"})
    c = compare_records(a, other)
    assert not c.same_system
    assert any("different systems" in line for line in c.lines())
    newer = compare_records(a, envelope("c", BASE, system={"name": "loan-screen", "version": "2"}))
    assert newer.same_system
    assert [f.field for f in newer.fingerprint_changes] == ["system version"]
    neither = compare_records(envelope("d", BASE, system={}), envelope("e", BASE, system={}))
    assert neither.same_system is None and not neither.changed
    assert any(line.startswith("Neither record names its system") for line in neither.lines())
    assert not any("different systems" in line for line in neither.lines())
    one = compare_records(a, envelope("f", BASE, system={}))
    assert one.same_system is None
    assert any(line.startswith("B names no system") for line in one.lines())


def test_records_without_a_system_are_told_apart_by_their_dataset() -> None:
    # two different specs without a system: block are not called "the same system"
    a = envelope("a", BASE, system={})
    b = envelope("b", BASE, system={})
    pred_b = json.loads(base64.b64decode(b["payload"]))
    pred_b["predicate"]["fingerprints"]["dataset"]["name"] = "hiring.csv"
    c = compare_records(a, pred_b)
    assert c.same_system is None
    assert c.to_dict()["same_system"] is None and c.to_dict()["b"]["dataset"] == "hiring.csv"
    assert "no system named (dataset hiring.csv)" in c.lines()[1]
    assert [f.field for f in c.fingerprint_changes] == ["dataset name"]


def test_undefined_values() -> None:
    a = envelope("a", [make_test("tpr_gap:sex", None, "INSUFFICIENT_EVIDENCE", 0.1)])
    b = envelope("b", [make_test("tpr_gap:sex", 0.04, "PASS", 0.1)])
    c = compare_records(a, b)
    (t,) = c.tests
    assert t.value_changed and t.verdict_changed and t.delta is None
    assert "  tpr_gap:sex: INSUFFICIENT_EVIDENCE → PASS; value undefined → 0.04" in c.lines()


def test_not_a_record() -> None:
    with pytest.raises(CompareError, match="Record B is not a respai record"):
        compare_records(envelope("a", BASE), {"hello": 1})
    with pytest.raises(CompareError, match="payload cannot be read"):
        compare_records({"payload": "!!!", "payloadType": "x"}, envelope("a", BASE))
    with pytest.raises(CompareError, match="not a JSON object"):
        compare_records([], envelope("a", BASE))  # type: ignore[arg-type]


def test_opposite_orientations_are_warned_once_in_lines_and_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = envelope("run-a", BASE, favorable=1)
    flipped = envelope("run-b", BASE, favorable=0)
    c = compare_records(good, flipped)
    assert c.favorable == (1, 0) and c.orientation_differs
    warned = [line for line in c.lines() if line.startswith("Warning:")]
    assert len(warned) == 1 and "opposite outcomes" in warned[0]
    assert "A favorable: 1, B favorable: 0" in warned[0]
    doc = c.to_dict()
    assert doc["favorable"] == {"a": 1, "b": 0, "differs": True}
    assert doc["warnings"] == [warned[0].removeprefix("Warning: ")]
    # the same orientation, or a record that does not state one: no warning
    assert compare_records(good, envelope("run-c", BASE, favorable=1)).warnings == ()
    unstated = compare_records(good, envelope("run-d", BASE))
    assert unstated.favorable == (1, None) and unstated.warnings == ()
    assert unstated.to_dict()["warnings"] == []
    # through the command line, with --json
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    a.write_text(json.dumps(good))
    b.write_text(json.dumps(flipped))
    assert main(["compare", str(a), str(b), "--json"]) == 0
    captured = capsys.readouterr()
    shown = captured.out + captured.err
    assert shown.count("Warning: The two runs count opposite outcomes") == 1
    body = captured.out[captured.out.index("{") :]
    assert json.loads(body)["favorable"]["differs"] is True
