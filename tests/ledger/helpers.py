"""What the ledger tests share: a small valid record, appending it, reading runs back, the
RFC 6962 reference tree head and the Certificate Transparency vectors.

Plain functions (no pytest), so the child processes of ``test_locking.py`` load this
file by path to append from another process."""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from respai.ledger import Ledger
from respai.record import format_timestamp, now_utc

# -- a small record that passes the schema ----------------------------------------------


def make_predicate(
    run_id: str,
    *,
    values: dict[str, float | None] | None = None,
    verdicts: dict[str, str] | None = None,
    dataset_sha256: str = "1f" * 32,
    system: tuple[str, str] = ("loan-screen", "1.0"),
    thresholds: dict[str, float] | None = None,
) -> dict[str, Any]:
    values = {"accuracy": 0.81, "impact_ratio:sex": 0.9} if values is None else values
    verdicts = verdicts or {}
    thresholds = thresholds or {}
    tests = []
    for name, value in values.items():
        test: dict[str, Any] = {
            "record_type": "test",
            # An id of no battery kind, so the schema asks for no kind's details: the
            # ledger reads none of them.
            "test_id": "ledger_" + name.split(":")[0],
            "test_key": name,
            "value": value,
            "verdict": verdicts.get(name, "PASS"),
            "threshold": {
                "comparison": ">=",
                "value": thresholds.get(name, 0.7),
                "source": "default",
            },
            "interval": None,
        }
        if value is None:
            test["undefined_reason"] = "no case in a group"
        tests.append(test)
    worst = "FAIL" if "FAIL" in verdicts.values() else "PASS"
    return {
        "schema_version": "1.0",
        "run_id": run_id,
        "timestamp": format_timestamp(now_utc()),
        "engine": {"name": "respai-evidence-engine", "version": "0.1.0"},
        "system": {"name": system[0], "version": system[1]},
        "verdict": worst,
        "fingerprints": {
            "dataset": {
                "name": "cases.csv",
                "media_type": "text/csv",
                "size_bytes": 1234,
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
            {"record_type": "run_start", "planned_tests": list(values)},
            *tests,
            {"record_type": "run_end", "verdict": worst},
        ],
        "control_mapping": {"version": "t", "review_status": "test", "relation": "supports"},
        "claims": {"states": [], "does_not_state": []},
        "caveats": [],
    }


def append_run(directory: Path, key: Ed25519PrivateKey, run_id: str, **kw: Any) -> Any:
    ledger = Ledger.open(directory, create=True)
    return ledger.seal_and_append(make_predicate(run_id, **kw), key)


def run_paths(directory: Path) -> list[Path]:
    return sorted((directory / "runs").glob("*.json"))


def decode(envelope: dict[str, Any]) -> dict[str, Any]:
    statement: dict[str, Any] = json.loads(base64.b64decode(envelope["payload"]))
    return statement


def problems_mentioning(report: Any, *words: str) -> list[str]:
    return [p for p in report.problems if all(w in p for w in words)]


def reference_mth(leaves: list[bytes]) -> bytes:
    """RFC 6962 section 2.1, written out as the recursion."""
    n = len(leaves)
    if n == 0:
        return hashlib.sha256(b"").digest()
    if n == 1:
        return hashlib.sha256(b"\x00" + leaves[0]).digest()
    k = 1
    while k * 2 < n:
        k *= 2
    return hashlib.sha256(b"\x01" + reference_mth(leaves[:k]) + reference_mth(leaves[k:])).digest()


# The RFC 6962 reference inputs and tree heads of the Certificate Transparency test suite.
CT_LEAVES = [
    b"",
    b"\x00",
    b"\x10",
    b"\x20\x21",
    b"\x30\x31",
    b"\x40\x41\x42\x43",
    bytes(range(0x50, 0x58)),
    bytes(range(0x60, 0x70)),
]
CT_ROOTS = [
    "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
    "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
    "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
    "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
    "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
]
