"""The shipped JSON Schema: sealed records validate; violations are named by path."""

from __future__ import annotations

import importlib.resources
from types import SimpleNamespace
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from respai.record import RecordError, key_id, record_schema, seal, validate_predicate


def test_schema_is_valid_draft_2020_12_and_shipped() -> None:
    schema = record_schema()
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert (importlib.resources.files("respai.record") / "record.schema.json").is_file()


def test_sealed_predicate_validates(statement: dict[str, Any]) -> None:
    assert validate_predicate(statement["predicate"]) == []


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda p: p.pop("caveats"), "$.caveats: required field is missing"),
        (lambda p: p["records"][1].pop("verdict"), "$.records[1].verdict: required field"),
        (lambda p: p["fingerprints"]["dataset"].pop("sha256"), "$.fingerprints.dataset.sha256"),
        (lambda p: p["records"][2].pop("undefined_reason"), "$.records[2].undefined_reason"),
        (lambda p: p["records"][1].update(verdict="MAYBE"), "$.records[1].verdict: 'MAYBE'"),
        (lambda p: p["records"][1].update(value="0.07"), "$.records[1].value"),
        (lambda p: p["records"][0].update(record_id="abc"), "$.records[0].record_id"),
        (lambda p: p["records"][-1].pop("record_ids"), "$.records[4].record_ids"),
        (lambda p: p.update(schema_version="2"), "$.schema_version"),
        (lambda p: p.update(timestamp="2026-01-15 10:20:30"), "$.timestamp"),
        (lambda p: p["control_mapping"].update(relation="proves"), "$.control_mapping.relation"),
        (lambda p: p["engine"].update(name="other"), "$.engine.name"),
        (lambda p: p["fingerprints"]["model"].pop("sha256"), "$.fingerprints.model"),
        (lambda p: p["records"][1].update(seq=-1), "$.records[1].seq"),
    ],
)
def test_violations_name_the_path(statement: dict[str, Any], edit: Any, message: str) -> None:
    predicate = statement["predicate"]
    edit(predicate)
    problems = validate_predicate(predicate)
    assert any(p.startswith(message) for p in problems), problems


def test_model_may_be_null_and_extra_fields_allowed(statement: dict[str, Any]) -> None:
    predicate = statement["predicate"]
    predicate["fingerprints"]["model"] = None
    predicate["lead_adds_this"] = {"anything": [1, 2]}
    predicate["records"][1]["extra"] = "ok"
    assert validate_predicate(predicate) == []


def test_seal_refuses_a_schema_violation(rec: SimpleNamespace) -> None:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    key = Ed25519PrivateKey.generate()
    predicate = rec.make_predicate()
    del predicate["claims"]
    predicate["records"][1]["verdict"] = "pass"
    with pytest.raises(RecordError) as info:
        seal(predicate, None, key, key_id(key.public_key()))
    assert "$.claims: required field is missing" in info.value.message
    assert "$.records[1].verdict" in info.value.message
