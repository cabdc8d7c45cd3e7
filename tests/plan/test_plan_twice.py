"""The same criteria sealed twice: the plan id names its first sealing, everywhere."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from tests.plan.helpers import predicate, runs, write_cases, write_spec

from respai.cli import main
from respai.ledger import verify_ledger
from respai.record import KeyRing


def _plan(capsys: pytest.CaptureFixture[str], spec: Path) -> dict[str, str]:
    assert main(["plan", str(spec), "--json"]) == 0
    return dict(json.loads(capsys.readouterr().out))


def test_plan_plan_evaluate_with_the_plan_verifies(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = write_spec(tmp_path)
    first = _plan(capsys, spec)
    second = _plan(capsys, spec)
    assert first["plan_id"] == second["plan_id"]
    assert first["record_id"] != second["record_id"]
    write_cases(tmp_path)
    out = tmp_path / "out"
    code = main(["evaluate", str(spec), "--plan", first["plan_id"], "--out", str(out), "-q"])
    assert code in (0, 1, 3, 4), capsys.readouterr().err
    held = predicate(out / "record.json")["records"][0]["plan"]
    assert held["record_id"] == first["record_id"]  # the first sealing
    assert held["timestamp"] == first["timestamp"]
    report = verify_ledger(Path(".respai"), KeyRing.load(Path("keys") / "keys.json"))
    assert report.ok, report.problems
    capsys.readouterr()
    assert main(["verify", "--ledger", ".respai", "--keys", "keys/keys.json"]) == 0


def test_without_plan_the_newest_criteria_name_their_first_sealing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = write_spec(tmp_path)
    first = _plan(capsys, spec)
    _plan(capsys, spec)
    write_cases(tmp_path)
    main(["evaluate", str(spec), "--out", str(tmp_path / "o"), "--json", "-q"])
    check = json.loads(capsys.readouterr().out)["plan_check"]
    assert check["record_id"] == first["record_id"] and check["matches"] is True
    assert len(runs(Path(".respai"))) == 3
