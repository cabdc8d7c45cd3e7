"""The record's types, its builder and the shipped schema say the same thing."""

from __future__ import annotations

import copy
import importlib.util
import json
import typing
from pathlib import Path
from typing import Any

import pytest

from respai.record import predicate as model
from respai.record import record_schema, validate_predicate

ROOT = Path(__file__).resolve().parents[2]


def _generator() -> Any:
    spec = importlib.util.spec_from_file_location(
        "gen_record_schema", ROOT / "scripts" / "gen_record_schema.py"
    )
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_shipped_schema_is_the_one_the_types_generate(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    gen = _generator()
    copy_path = tmp_path / "record.schema.json"
    copy_path.write_text(gen.SCHEMA.read_text(encoding="utf-8"), encoding="utf-8")
    monkeypatch.setattr(gen, "SCHEMA", copy_path)
    gen.main()
    assert json.loads(copy_path.read_text()) == record_schema(), (
        "record.schema.json is stale: run python scripts/gen_record_schema.py"
    )


@pytest.mark.parametrize("test_id", sorted(model.DETAILS_TYPES))
def test_every_test_kind_has_its_details_in_the_schema(test_id: str) -> None:
    cls = model.DETAILS_TYPES[test_id]
    defs = record_schema()["$defs"]
    name = "details_" + cls.__name__.removesuffix("Details").lower()
    entry = defs[name]
    hints = typing.get_type_hints(cls, include_extras=True)
    assert set(entry["properties"]) == set(hints)
    assert set(entry["required"]) == set(cls.__required_keys__)
    assert entry["additionalProperties"] is False
    rules = defs["test_record"]["allOf"]
    assert any(
        r["if"]["properties"]["test_id"]["const"] == test_id
        and r["then"]["properties"]["details"]["$ref"] == f"#/$defs/{name}"
        for r in rules
    )


def test_every_battery_test_has_a_details_type() -> None:
    from respai.battery import BATTERY, REGISTRY

    assert set(BATTERY) <= set(model.DETAILS_TYPES)
    # one renderer kind, one details type: the kinds name the types, they do not redefine them
    by_kind: dict[str, set[type]] = {}
    for test in REGISTRY.values():
        by_kind.setdefault(test.details, set()).add(model.DETAILS_TYPES[test.id])
    assert all(len(types) == 1 for types in by_kind.values()), by_kind


def _predicate() -> dict[str, Any]:
    rec = model.test_record(
        test_id="class_balance",
        test_key="class_balance",
        grouping=None,
        value=0.4,
        interval={"lo": 0.3, "hi": 0.5, "method": "wilson", "confidence": 0.95},
        threshold={"comparison": ">=", "value": 0.1},
        verdict="PASS",
        reason="ok",
        method="minority label share",
        details={"labelled_0": 6, "labelled_1": 4},
        supports=[],
        uncertain=False,
    )
    pred = model.build_predicate(
        run_id="r1",
        timestamp="2026-12-01T00:00:00Z",
        engine_version="0.2.0",
        python="3.11.7",
        key_id="sha256:" + "ab" * 32,
        system={"name": "s"},
        fingerprints={
            "dataset": {
                "name": "c.csv",
                "media_type": "text/csv",
                "size_bytes": 1,
                "sha256": "00" * 32,
            },
            "model": None,
            "engine_code": {
                "sha256": "11" * 32,
                "files": 1,
                "version": "0.2.0",
                "git_commit": None,
                "git_dirty": None,
            },
        },
        run_start={"spec": {"name": "s.yaml", "sha256": "22" * 32}},
        tests=[rec],
        verdict="PASS",
        exit_code=0,
        counts={"cases": 10},
        control_mapping={"version": "1", "review_status": "x", "relation": "supports"},
        claims={"states": ["a"], "does_not_state": ["b"]},
        caveats=[],
    )
    from respai.record.chain import GENESIS, link_records

    out = dict(pred)
    out["records"] = link_records(out["records"], run_id="r1", prev_record_id=GENESIS, start_seq=0)
    return out


def test_the_builder_makes_a_record_the_schema_accepts() -> None:
    pred = _predicate()
    assert validate_predicate(pred) == []
    assert [r["record_type"] for r in pred["records"]] == ["run_start", "test", "run_end"]
    assert pred["records"][0]["planned_tests"] == ["class_balance"]
    assert pred["engine"]["name"] == model.ENGINE_NAME


@pytest.mark.parametrize("change", ["extra", "missing", "wrong_type"])
def test_details_that_break_their_type_are_refused(change: str) -> None:
    pred = copy.deepcopy(_predicate())
    details = pred["records"][1]["details"]
    if change == "extra":
        details["surprise"] = 1
    elif change == "missing":
        del details["labelled_1"]
    else:
        details["labelled_0"] = "six"
    problems = validate_predicate(pred)
    assert problems and all("details" in p for p in problems), problems


def test_an_undefined_value_needs_its_reason() -> None:
    with pytest.raises(ValueError, match="needs its reason"):
        model.test_record(
            test_id="auc",
            test_key="auc",
            grouping=None,
            value=None,
            interval=None,
            threshold=None,
            verdict="INSUFFICIENT_EVIDENCE",
            reason="r",
            method="m",
            details={},
            supports=[],
        )
