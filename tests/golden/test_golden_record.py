"""Record bodies are unchanged by speed-ups: the golden evaluation record.

``respai evaluate`` on the generated golden case (``tests/golden/case.py``) must sign the same
statement, byte for byte once canonicalised, as the committed ``evaluate_statement.json``,
except for what differs on every run by design: the run id, the timestamp, the record
ids chained from them, the signing key, the fingerprint of the engine's own code and the
Python version running it.

A change that alters a number, a reason, an interval or the record's layout fails here.
When such a change is meant (a method change, with its dated methods changelog entry),
rewrite the file with ``RESPAI_WRITE_GOLDEN=1 pytest tests/golden`` and review the diff.
"""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from tests.golden.case import write_case

from respai.record import canonical_bytes

GOLDEN = Path(__file__).resolve().parent / "evaluate_statement.json"

#: Fields that change on every run, by design, and how they are shown in the golden file.
_PER_RUN = {
    "run_id": "<run id>",
    "timestamp": "<timestamp>",
    "record_id": "<record id>",
    "prev_record_id": "<record id>",
    "key_id": "<key id>",
}


def _normalise(value: Any) -> Any:
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if k in _PER_RUN and v is not None:
                out[k] = _PER_RUN[k]
            elif k == "record_ids":
                out[k] = ["<record id>" for _ in v]
            elif k == "engine_code":
                out[k] = "<engine code>"
            elif k == "engine" and isinstance(v, dict):  # the Python running the test
                out[k] = {**v, "python": "<python>"}
            else:
                out[k] = _normalise(v)
        return out
    if isinstance(value, list):
        return [_normalise(v) for v in value]
    return value


def _statement(tmp_path: Path) -> Any:
    spec = write_case(tmp_path)
    env = {**os.environ, "RESPAI_HOME": str(tmp_path / "keys"), "COLUMNS": "100"}
    run = subprocess.run(
        [sys.executable, "-m", "respai", "evaluate", spec.name, "--no-ledger", "--out", "out"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode in (0, 1, 3, 4), run.stderr
    envelope = json.loads((tmp_path / "out" / "record.json").read_text(encoding="utf-8"))
    return _normalise(json.loads(base64.b64decode(envelope["payload"])))


def test_the_evaluation_record_is_the_golden_one(tmp_path: Path) -> None:
    got = _statement(tmp_path)
    if os.environ.get("RESPAI_WRITE_GOLDEN") == "1":
        GOLDEN.write_text(json.dumps(got, indent=1, sort_keys=True) + "\n", encoding="utf-8")
        pytest.skip(f"wrote {GOLDEN.name}")
    want = json.loads(GOLDEN.read_text(encoding="utf-8"))
    if canonical_bytes(got) != canonical_bytes(want):
        # name the first differing path, so the failure says what changed
        assert got == want


def test_the_golden_case_reaches_every_kind_of_rule() -> None:
    want = json.loads(GOLDEN.read_text(encoding="utf-8"))
    text = json.dumps(want)
    for kind in ("max_group_gap", "min_group_ratio", "worst_group", "equalized_odds"):
        assert kind in text
    assert '"reference"' in text
