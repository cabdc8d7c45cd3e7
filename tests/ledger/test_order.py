"""verify --ledger names runs whose times contradict their order in the chain.

The clock is faked the way the other tests fake it: ``respai.record.now_utc`` (which the
sealing code reads when it signs) and ``respai.record.keys.now_utc`` (a key's
``not_before``) are replaced by a settable clock. No faketime binary.
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest
from tests.plan.helpers import write_cases, write_spec

from respai.cli import main
from respai.ledger import verify_ledger
from respai.record import KeyRing
from respai.schemas import validate_output


class Clock:
    """A settable UTC clock that moves one millisecond per reading."""

    def __init__(self) -> None:
        self.now = dt.datetime(2025, 1, 1, tzinfo=dt.UTC)

    def set(self, text: str) -> None:
        self.now = dt.datetime.fromisoformat(text).replace(tzinfo=dt.UTC)

    def __call__(self) -> dt.datetime:
        self.now += dt.timedelta(milliseconds=1)
        return self.now


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> Clock:
    import respai.record
    import respai.record.keys

    fake = Clock()
    monkeypatch.setattr(respai.record, "now_utc", fake)
    monkeypatch.setattr(respai.record.keys, "now_utc", fake)
    return fake


@pytest.fixture
def spec(tmp_path: Path) -> Path:
    write_cases(tmp_path)
    return write_spec(tmp_path)


def _key(capsys: pytest.CaptureFixture[str]) -> Path:
    assert main(["keys", "new"]) == 0
    capsys.readouterr()
    return max(Path("keys").glob("respai-*.key"), key=lambda p: p.stat().st_mtime_ns)


def _evaluate(capsys: pytest.CaptureFixture[str], spec: Path, *extra: str) -> None:
    code = main(["evaluate", str(spec), "--out", "out", "-q", *extra])
    assert code in (0, 1, 3, 4), capsys.readouterr().err
    capsys.readouterr()


def _plan(capsys: pytest.CaptureFixture[str], spec: Path) -> str:
    assert main(["plan", str(spec), "--json"]) == 0
    return str(json.loads(capsys.readouterr().out)["plan_id"])


def _verify(capsys: pytest.CaptureFixture[str]) -> tuple[int, str, dict]:
    code = main(["verify", "--ledger", ".respai", "--keys", "keys/keys.json", "--json"])
    captured = capsys.readouterr()
    report = json.loads(captured.out)
    assert validate_output("verify", report) == []  # findings in the shipped schema
    return code, captured.err, report


def _runs() -> list[str]:
    return [f"runs/{p.name}" for p in sorted(Path(".respai/runs").glob("*.json"))]


def test_timestamps_that_run_backwards_are_named(
    spec: Path, clock: Clock, capsys: pytest.CaptureFixture[str]
) -> None:
    _key(capsys)
    clock.set("2030-01-01T00:00:00")
    _evaluate(capsys, spec)
    clock.set("2026-06-01T00:00:00")  # the clock set back
    _evaluate(capsys, spec)
    first, second = _runs()
    code, err, report = _verify(capsys)
    assert code == 1
    (finding,) = report["findings"]
    assert finding["name"] == "time_order" and finding["severity"] == "problem"
    assert finding["runs"] == [first, second]
    assert "time_order: " + second in err and "2030-01-01" in err
    assert "ledger NOT verified" in err


def test_a_backdated_plan_after_a_run_of_the_same_data_is_named(
    spec: Path, clock: Clock, capsys: pytest.CaptureFixture[str]
) -> None:
    _key(capsys)
    clock.set("2026-06-01T00:00:00")
    _evaluate(capsys, spec)
    clock.set("2026-01-01T00:00:00")  # the plan signed with the clock set back
    plan_id = _plan(capsys, spec)
    clock.set("2026-06-02T00:00:00")
    _evaluate(capsys, spec, "--plan", plan_id)
    data_run, plan_run, planned = _runs()
    code, _, report = _verify(capsys)
    assert code == 1
    names = {f["name"]: f for f in report["findings"]}
    assert set(names) == {"time_order", "plan_after_data"}
    assert names["time_order"]["runs"] == [data_run, plan_run]
    assert names["plan_after_data"]["severity"] == "warning"
    assert names["plan_after_data"]["runs"] == [data_run, plan_run, planned]


def test_an_honest_plan_after_data_is_a_named_warning(
    spec: Path, clock: Clock, capsys: pytest.CaptureFixture[str]
) -> None:
    _key(capsys)
    clock.set("2026-02-01T00:00:00")
    _evaluate(capsys, spec)
    clock.set("2026-03-01T00:00:00")
    plan_id = _plan(capsys, spec)
    clock.set("2026-03-02T00:00:00")
    _evaluate(capsys, spec, "--plan", plan_id)
    data_run, plan_run, planned = _runs()
    code, err, report = _verify(capsys)
    assert code == 0, err
    assert plan_run in err
    (finding,) = report["findings"]
    assert finding["name"] == "plan_after_data" and finding["severity"] == "warning"
    assert f"plan_after_data: {planned} is held to the plan {plan_id}" in err
    assert data_run in err and "ledger verified" in err
    assert any(n.startswith("plan_after_data: ") for n in report["notes"])


def test_a_retired_key_signing_after_its_successor_is_named(
    spec: Path, clock: Clock, capsys: pytest.CaptureFixture[str]
) -> None:
    old = _key(capsys)
    clock.set("2026-01-01T00:00:00")
    _evaluate(capsys, spec)
    clock.set("2026-02-01T00:00:00")
    new = _key(capsys)  # the rotation: the new key signs from now on
    assert new != old
    clock.set("2026-02-02T00:00:00")
    _evaluate(capsys, spec)
    clock.set("2026-03-01T00:00:00")
    kid = KeyRing.load(Path("keys/keys.json")).entries[0].key_id
    assert main(["keys", "retire", kid, "--at", "2026-03-01T00:00:00Z"]) == 0
    # the old key's holder signs again, stamped inside its window and after the new run
    clock.set("2026-02-15T00:00:00")
    _evaluate(capsys, spec, "--key", str(old))
    _, by_new, by_old = _runs()
    code, err, report = _verify(capsys)
    assert code == 1
    (finding,) = report["findings"]
    assert finding["name"] == "key_after_successor"
    assert finding["runs"] == [by_new, by_old]
    assert kid in err and "key_after_successor: the retired key" in err


def test_an_honest_ledger_with_a_plan_and_a_rotation_has_no_finding(
    spec: Path, clock: Clock, capsys: pytest.CaptureFixture[str]
) -> None:
    _key(capsys)
    clock.set("2026-01-01T00:00:00")
    plan_id = _plan(capsys, spec)
    _plan(capsys, spec)  # sealed twice
    clock.set("2026-01-02T00:00:00")
    _evaluate(capsys, spec, "--plan", plan_id)
    clock.set("2026-02-01T00:00:00")
    _key(capsys)
    kid = KeyRing.load(Path("keys/keys.json")).entries[0].key_id
    assert main(["keys", "retire", kid]) == 0
    clock.set("2026-02-02T00:00:00")
    _evaluate(capsys, spec, "--plan", plan_id)
    capsys.readouterr()
    code, err, report = _verify(capsys)
    assert code == 0, err
    assert report["findings"] == [] and report["problems"] == [] and report["notes"] == []
    assert verify_ledger(Path(".respai"), KeyRing.load(Path("keys/keys.json"))).ok


def test_a_minute_of_clock_disagreement_is_tolerated() -> None:
    """A predicate stamped before waiting for the lock, or a pack's time without its
    fraction, may be a little earlier than the run before it; more than 60 s is not."""
    from respai.ledger.layout import RunInfo
    from respai.ledger.order import check_order

    def info(name: str, stamp: str) -> RunInfo:
        predicate = {"timestamp": stamp, "key_id": "k", "records": [{}]}
        return RunInfo(Path(name), 0, "", b"", predicate, None, 0, 0, None, None, None)

    ring = KeyRing(())
    same = [info("a", "2026-01-01T12:00:00.500000Z"), info("b", "2026-01-01T12:00:00Z")]
    assert check_order(Path(), same, ring) == []
    near = [info("a", "2026-01-01T12:01:00Z"), info("b", "2026-01-01T12:00:00Z")]
    assert check_order(Path(), near, ring) == []
    back = [info("a", "2026-01-01T12:01:01Z"), info("b", "2026-01-01T12:00:00Z")]
    assert [f.name for f in check_order(Path(), back, ring)] == ["time_order"]
