"""respai demo --lifecycle: plan, evaluate under the plan, verify, a changed criterion refused."""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path

import pytest

from respai.cli import main


def test_the_lifecycle_runs_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "demo"
    assert main(["demo", "--out", str(out), "--lifecycle"]) == 0
    err = capsys.readouterr().err
    life = out / "lifecycle"
    record = life / "evaluation" / "record.json"
    envelope = json.loads(record.read_text())
    predicate = json.loads(base64.b64decode(envelope["payload"]))["predicate"]
    start = predicate["records"][0]
    plan_id = start["plan"]["plan_id"]
    assert plan_id.startswith("sha256:") and plan_id in err
    assert "refused (exit 2)" in err and "planned 0.05, now 0.08" in err
    keys = str(life / "keys" / "keys.json")
    assert main(["verify", str(record), "--keys", keys]) == 0
    assert main(["verify", "--ledger", str(life / "ledger"), "--keys", keys]) == 0
    assert not (life / "changed.yaml").exists()
    # the demo signs with a key of its own: the user's key folder is never created
    assert not Path(os.environ["RESPAI_HOME"]).exists()
