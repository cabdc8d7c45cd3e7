"""The CycloneDX export: a valid 1.6 ML-BOM carrying every metric, interval and verdict."""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from respai.cli import main

cyclonedx = pytest.importorskip("cyclonedx")


def _predicate(record: Path) -> dict[str, Any]:
    envelope = json.loads(record.read_text(encoding="utf-8"))
    return json.loads(base64.b64decode(envelope["payload"]))["predicate"]  # type: ignore[no-any-return]


@pytest.fixture
def bom(home: Any, tmp_path: Path) -> dict[str, Any]:
    out = tmp_path / "bom.json"
    assert main(["export", str(home.record), "--format", "cyclonedx", "-o", str(out)]) == 0
    return json.loads(out.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def test_the_bom_validates_against_the_cyclonedx_1_6_schema(bom: dict[str, Any]) -> None:
    from cyclonedx.schema import SchemaVersion
    from cyclonedx.validation.json import JsonStrictValidator

    error = JsonStrictValidator(SchemaVersion.V1_6).validate_str(json.dumps(bom))
    assert error is None, error
    # the validator does refuse a broken BOM, so the check above can fail
    broken = json.loads(json.dumps(bom))
    broken["components"][0]["modelCard"]["quantitativeAnalysis"]["performanceMetrics"][0]["n"] = 3
    assert JsonStrictValidator(SchemaVersion.V1_6).validate_str(json.dumps(broken)) is not None


def _properties(card: dict[str, Any]) -> dict[str, str]:
    return {p["name"]: p["value"] for p in card["properties"]}


def test_every_measured_test_is_a_metric_with_its_interval_n_and_method(
    home: Any, bom: dict[str, Any]
) -> None:
    card = bom["components"][0]["modelCard"]
    metrics = card["quantitativeAnalysis"]["performanceMetrics"]
    props = _properties(card)
    found = 0
    for rec in _predicate(home.record)["records"]:
        if rec["record_type"] != "test" or rec["test_id"] == "group_rule":
            continue
        grouping = " × ".join(rec["grouping"] or []) or "overall"
        i = next(
            i
            for i, m in enumerate(metrics)
            if m["type"] == rec["test_id"] and m["slice"] == grouping
        )
        assert props[f"respai:metric:{i}:test_key"] == rec["test_key"]
        if rec["value"] is None:
            assert "value" not in metrics[i]
            assert props[f"respai:metric:{i}:undefined_reason"] == rec["undefined_reason"]
            continue
        assert float(metrics[i]["value"]) == rec["value"]
        if rec["interval"] is not None:
            ci = metrics[i]["confidenceInterval"]
            assert (float(ci["lowerBound"]), float(ci["upperBound"])) == (
                rec["interval"]["lo"],
                rec["interval"]["hi"],
            )
            assert props[f"respai:metric:{i}:method"] == rec["interval"]["method"]
            assert float(props[f"respai:metric:{i}:confidence"]) == rec["interval"]["confidence"]
        found += 1
    assert found >= 6


def test_each_rule_group_is_a_slice_and_the_gap_lower_bound_is_not_negative(
    home: Any, bom: dict[str, Any]
) -> None:
    card = bom["components"][0]["modelCard"]
    metrics = card["quantitativeAnalysis"]["performanceMetrics"]
    props = _properties(card)
    rules = [r for r in _predicate(home.record)["records"] if r.get("test_id") == "group_rule"]
    assert rules
    for rule in rules:
        for group in rule["details"]["groups"]:
            rate = (
                rule["details"]["rate"].replace("_", " ") + f" rate (rule {rule['test_key'][5:]})"
            )
            i = next(
                i
                for i, m in enumerate(metrics)
                if m["type"] == rate and m["slice"] == f"sex: {group['group']}"
            )
            assert float(metrics[i]["value"]) == group["rate"]
            assert float(metrics[i]["confidenceInterval"]["lowerBound"]) == group["interval"]["lo"]
            assert props[f"respai:metric:{i}:n"] == str(group["cases"])
            assert props[f"respai:metric:{i}:method"] == "clopper-pearson"
        bounds = rule["details"].get("gap_bounds")
        if bounds:
            gap = next(
                m
                for m in metrics
                if m["type"].startswith("largest gap") and rule["details"]["id"] in m["type"]
            )
            assert float(gap["confidenceInterval"]["lowerBound"]) == max(bounds["lo"], 0.0)
            assert float(gap["confidenceInterval"]["upperBound"]) == bounds["hi"]


def test_fairness_assessments_carry_each_rule_verdict(home: Any, bom: dict[str, Any]) -> None:
    assessments = bom["components"][0]["modelCard"]["considerations"]["fairnessAssessments"]
    grouped = [
        r
        for r in _predicate(home.record)["records"]
        if r["record_type"] == "test" and r.get("grouping")
    ]
    assert len(assessments) == len(grouped)
    verdicts = {r["verdict"] for r in grouped}
    assert "FAIL" in verdicts
    for assessment, rec in zip(assessments, grouped, strict=True):
        assert f": {rec['verdict']}." in assessment["harms"]
        assert assessment["groupAtRisk"].startswith("sex: ")


def test_the_record_digest_is_an_external_reference(home: Any, bom: dict[str, Any]) -> None:
    digest = hashlib.sha256(home.record.read_bytes()).hexdigest()
    (ref,) = bom["components"][0]["externalReferences"]
    assert ref["type"] == "attestation"
    assert ref["hashes"] == [{"alg": "SHA-256", "content": digest}]
    assert bom["specVersion"] == "1.6"
    assert bom["components"][0]["type"] == "machine-learning-model"
    props = {p["name"]: p["value"] for p in bom["components"][0]["properties"]}
    assert props["respai:record_sha256"] == digest
    assert props["respai:verdict"] == _predicate(home.record)["verdict"]


def test_the_same_record_gives_the_same_bom(home: Any, tmp_path: Path) -> None:
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    for out in (a, b):
        assert main(["export", str(home.record), "--format", "cyclonedx", "-o", str(out)]) == 0
    assert a.read_bytes() == b.read_bytes()
