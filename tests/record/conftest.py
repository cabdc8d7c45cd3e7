"""Shared material for the record tests: a realistic predicate, keys, sealed envelopes."""

from __future__ import annotations

import base64
import copy
import json
from types import SimpleNamespace
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from respai.record import (
    KeyRing,
    canonical_bytes,
    key_id,
    record_id,
    seal,
    sign_envelope,
)

TIMESTAMP = "2026-01-15T10:20:30.123456Z"


def counts(n: int, pos: int) -> dict[str, int]:
    return {"n": n, "positives": pos, "negatives": n - pos}


def make_predicate() -> dict[str, Any]:
    """A realistic record: run_start, three test records with nested counts, run_end."""
    return {
        "schema_version": "1.0",
        "run_id": "0193f6a2-7c1e-7b3a-9d2f-5e8a1c0b7d44",
        "timestamp": TIMESTAMP,
        "engine": {"name": "respai-evidence-engine", "version": "0.1.0", "python": "3.11.7"},
        "fingerprints": {
            "dataset": {
                "name": "cases.csv",
                "media_type": "text/csv",
                "size_bytes": 5231904,
                "sha256": "1f" * 32,
            },
            "model": {
                "name": "model.onnx",
                "media_type": "application/onnx",
                "size_bytes": 81234,
                "sha256": "2e" * 32,
            },
            "engine_code": {
                "sha256": "3d" * 32,
                "files": 34,
                "version": "0.1.0",
                "git_commit": "d20ace79" * 5,
                "git_dirty": False,
            },
        },
        "records": [
            {
                "record_type": "run_start",
                "planned_tests": ["selection_rate_gap", "tpr_gap", "accuracy"],
                "spec": {"path": "spec.yaml", "sha256": "4c" * 32},
            },
            {
                "record_type": "test",
                "test_id": "selection_rate_gap",
                "attribute": "sex",
                "verdict": "PASS",
                "value": 0.0731,
                "interval": {"lo": 0.0102, "hi": 0.1377, "method": "newcombe", "level": 0.95},
                "threshold": {"op": "<=", "value": 0.1, "source": "policy policy.yaml"},
                "per_group": {
                    "Female": {"counts": counts(512, 57), "rate": 0.111328125},
                    "Male": {"counts": counts(611, 113), "rate": 0.18494271685761047},
                },
                "groups": ["Female", "Male"],
                "controls": [{"framework": "NYC LL144", "clause": "5-301"}],
            },
            {
                "record_type": "test",
                "test_id": "tpr_gap",
                "attribute": "age_band",
                "verdict": "INSUFFICIENT_EVIDENCE",
                "value": None,
                "undefined_reason": "no positive labels in group 65+",
                "threshold": {"op": "<=", "value": 0.05, "source": "spec"},
                "per_group": {
                    "18-39": {"counts": counts(300, 40), "rate": 0.4},
                    "40-64": {"counts": counts(250, 30), "rate": 0.36},
                    "65+": {"counts": counts(12, 0), "rate": None},
                },
                "power": {"min_detectable": 0.21, "adequate": False},
                "groups": ["18-39", "40-64", "65+"],
            },
            {
                "record_type": "test",
                "test_id": "accuracy",
                "verdict": "FAIL",
                "value": 0.8125,
                "threshold": {"op": ">=", "value": 0.85},
                "confusion": [[400, 50], [100, 250]],
                "flags": [True, False],
                "details": {"correct": 650, "with_prediction": 800, "missing_prediction": 0},
            },
            {"record_type": "run_end", "worst_verdict": "FAIL"},
        ],
        "control_mapping": {
            "version": "2026.1",
            "review_status": "unreviewed draft",
            "relation": "supports",
            "entries": [{"test_id": "selection_rate_gap", "supports": ["NYC LL144 5-301"]}],
        },
        "claims": {
            "states": ["the measured values on the fingerprinted dataset"],
            "does_not_state": ["that the system is fair", "legal compliance"],
        },
        "caveats": ["self-reported demographics for 12% of cases"],
    }


def decode(envelope: dict[str, Any]) -> dict[str, Any]:
    statement: dict[str, Any] = json.loads(base64.b64decode(envelope["payload"]))
    return statement


def with_statement(envelope: dict[str, Any], statement: Any) -> dict[str, Any]:
    """The envelope with a canonically re-encoded statement, keeping the signatures."""
    out = copy.deepcopy(envelope)
    out["payload"] = base64.b64encode(canonical_bytes(statement)).decode()
    return out


def resign(statement: Any, key: Ed25519PrivateKey, payload: bytes | None = None) -> dict[str, Any]:
    body = canonical_bytes(statement) if payload is None else payload
    return sign_envelope(body, key, key_id(key.public_key()))


def relink(records: list[dict[str, Any]]) -> None:
    """Recompute every id, prev link and the run_end list, in order (an informed forger)."""
    for i, record in enumerate(records):
        if i > 0:
            record["prev_record_id"] = records[i - 1]["record_id"]
        if record["record_type"] == "run_end":
            record["record_ids"] = [r["record_id"] for r in records[:i]]
            record["record_count"] = i
        record["record_id"] = record_id(record)


@pytest.fixture(scope="session")
def signing_key() -> Ed25519PrivateKey:
    return Ed25519PrivateKey.generate()


@pytest.fixture(scope="session")
def other_key() -> Ed25519PrivateKey:
    return Ed25519PrivateKey.generate()


@pytest.fixture(scope="session")
def ring(signing_key: Ed25519PrivateKey) -> KeyRing:
    return KeyRing.from_public_key(signing_key.public_key())


@pytest.fixture(scope="session")
def sealed(signing_key: Ed25519PrivateKey) -> dict[str, Any]:
    return seal(make_predicate(), None, signing_key, key_id(signing_key.public_key()))


@pytest.fixture
def statement(sealed: dict[str, Any]) -> dict[str, Any]:
    return decode(sealed)


@pytest.fixture(scope="session")
def rec() -> SimpleNamespace:
    """The helpers above, for test modules (importlib mode cannot import conftest)."""
    return SimpleNamespace(
        TIMESTAMP=TIMESTAMP,
        decode=decode,
        with_statement=with_statement,
        resign=resign,
        relink=relink,
        make_predicate=make_predicate,
    )
