"""Retention clocks: the policy's presets, the record's keep-until dates, ``respai log``,
and removing an expired run with a signed tombstone that keeps the ledger verifiable."""

from __future__ import annotations

import base64
import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest
from dateutil.relativedelta import relativedelta
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.plan.helpers import predicate, runs, write_cases, write_spec

import respai.record
from respai.cli import main
from respai.errors import SpecError
from respai.retention import PRESETS, add_period, parse_period, retention_entries
from respai.spec.policy import parse_policy

POLICY = (
    "retention:\n"
    "  - ca-ads\n"
    "  - eu-ai-act-logs\n"
    "  - eu-ai-act-docs\n"
    "  - {preset: ll144-publication, last_use: 2026-11-30}\n"
    "  - {name: internal, keep_for: P1Y6M}\n"
)
SHORT = "retention:\n  - {name: short, keep_for: P1D}\n"


# --- dates, against dateutil's calendar arithmetic --------------------------------------


@settings(max_examples=300, deadline=None)
@given(
    day=st.dates(min_value=dt.date(1990, 1, 1), max_value=dt.date(2090, 12, 31)),
    years=st.integers(0, 12),
    months=st.integers(0, 30),
    days=st.integers(0, 40),
)
def test_periods_match_dateutil(day: dt.date, years: int, months: int, days: int) -> None:
    expected = day + relativedelta(years=years, months=months) + dt.timedelta(days=days)
    assert add_period(day, years, months, days) == expected


@pytest.mark.parametrize(
    ("preset", "years", "months"),
    [("ca-ads", 4, 0), ("eu-ai-act-logs", 0, 6), ("eu-ai-act-docs", 10, 0)],
)
@pytest.mark.parametrize("run_day", ["2024-02-29", "2026-08-31", "2026-12-05", "2027-01-31"])
def test_preset_dates(preset: str, years: int, months: int, run_day: str) -> None:
    (rule,) = parse_policy({"retention": [preset]}).retention
    (entry,) = retention_entries([rule], f"{run_day}T10:00:00Z")
    day = dt.date.fromisoformat(run_day)
    assert entry["keep_until"] == (day + relativedelta(years=years, months=months)).isoformat()
    assert entry["source"] == PRESETS[preset][0] and entry["start"] == run_day


def test_ll144_counts_from_the_last_use() -> None:
    policy = parse_policy(
        {"retention": [{"preset": "ll144-publication", "last_use": "2026-08-31"}]}
    )
    (entry,) = retention_entries(policy.retention, "2026-12-05T00:00:00Z")
    assert (
        entry["keep_until"]
        == "2027-02-28"
        == (dt.date(2026, 8, 31) + relativedelta(months=6)).isoformat()
    )
    assert "5-303" in entry["source"] and entry["start"] == "2026-08-31"


def test_sources_cite_the_articles() -> None:
    assert "Art. 19(1)" in PRESETS["eu-ai-act-logs"][0]
    assert "Art. 26(6)" in PRESETS["eu-ai-act-logs"][0]
    assert "Art. 18(1)" in PRESETS["eu-ai-act-docs"][0]
    assert "1 October 2025" in PRESETS["ca-ads"][0]


@pytest.mark.parametrize(
    ("value", "words"),
    [
        (["ca-adz"], "Did you mean 'ca-ads'"),
        (["ll144-publication"], "last use"),
        ([{"name": "x", "keep_for": "PT6H"}], "not a period"),
        ([{"name": "x"}], "needs both name and keep_for"),
        ([{"preset": "ca-ads", "keep_for": "P1Y"}], "sets its own period"),
        (["ca-ads", "ca-ads"], "listed twice"),
        ([], "non-empty list"),
    ],
)
def test_bad_retention_is_refused(value: Any, words: str) -> None:
    with pytest.raises(SpecError, match=words):
        parse_policy({"retention": value})


def test_parse_period() -> None:
    assert parse_period("P4Y") == (4, 0, 0)
    assert parse_period("P") is None and parse_period("P1W") is None


# --- the ledger ---------------------------------------------------------------------------


def _evaluate(policy: str | None = None) -> int:
    spec = write_spec(Path("."))
    if not Path("cases.csv").exists():
        write_cases(Path("."))
    extra = []
    if policy is not None:
        Path("policy.yaml").write_text(policy, encoding="utf-8")
        extra = ["--policy", "policy.yaml"]
    return main(["evaluate", str(spec), "--out", "out", "-q", *extra])


def _ahead(monkeypatch: pytest.MonkeyPatch, days: int) -> None:
    real = respai.record.times.now_utc

    def later() -> dt.datetime:
        return real() + dt.timedelta(days=days)

    monkeypatch.setattr(respai.record, "now_utc", later)


def _verify(capsys: pytest.CaptureFixture[str]) -> tuple[int, str, dict[str, Any]]:
    capsys.readouterr()
    code = main(["verify", "--ledger", ".respai", "--keys", "keys/keys.json", "--json"])
    captured = capsys.readouterr()
    return code, captured.err + captured.out, json.loads(captured.out)


@pytest.fixture
def ledger(capsys: pytest.CaptureFixture[str]) -> Path:
    """Three runs: no retention, a 1-day clock, the presets (kept for years)."""
    assert main(["keys", "new"]) == 0
    assert _evaluate() in (0, 1, 3)
    assert _evaluate(SHORT) in (0, 1, 3)
    assert _evaluate(POLICY) in (0, 1, 3)
    capsys.readouterr()
    return Path(".respai")


def test_the_record_states_its_clocks_and_verifies(
    ledger: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    first, short, presets = (predicate(p) for p in runs(ledger))
    assert "retention" not in first["records"][0]["settings"]
    entries = presets["records"][0]["settings"]["retention"]
    assert [e["name"] for e in entries] == [
        "ca-ads",
        "eu-ai-act-logs",
        "eu-ai-act-docs",
        "ll144-publication",
        "internal",
    ]
    day = dt.date.fromisoformat(presets["timestamp"][:10])
    assert entries[0]["keep_until"] == (day + relativedelta(years=4)).isoformat()
    assert entries[2]["keep_until"] == (day + relativedelta(years=10)).isoformat()
    assert short["records"][0]["settings"]["retention"][0]["keep_until"] == (
        (day + dt.timedelta(days=1)).isoformat()
    )
    assert main(["verify", str(runs(ledger)[2]), "--keys", "keys/keys.json"]) == 0
    code, _, report = _verify(capsys)
    assert code == 0 and report["ok"]


def test_log_shows_keep_until_and_expiry(
    ledger: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    presets = predicate(runs(ledger)[2])
    day = dt.date.fromisoformat(presets["timestamp"][:10])
    ten = (day + relativedelta(years=10)).isoformat()
    assert main(["log"]) == 0
    out = capsys.readouterr().err
    assert "KEEP UNTIL" in out.splitlines()[0]
    assert ten in out and "(expired)" not in out
    assert main(["log", "--json"]) == 0
    js = json.loads(capsys.readouterr().out)
    assert [r["keep_until"] for r in js["runs"]] == [
        None,
        (day + dt.timedelta(days=1)).isoformat(),
        ten,
    ]
    assert js["runs"][2]["retention"] == ["eu-ai-act-docs"]
    _ahead(monkeypatch, 2)
    assert main(["log"]) == 0
    lines = capsys.readouterr().err.splitlines()
    assert "(expired)" in lines[2] and "(expired)" not in lines[3]


def test_a_log_without_retention_has_no_keep_until_column(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert _evaluate() in (0, 1, 3)
    capsys.readouterr()
    assert main(["log"]) == 0
    assert "KEEP UNTIL" not in capsys.readouterr().err


def test_removal_is_refused_before_expiry(
    ledger: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    held = sorted(p.name for p in (ledger / "runs").iterdir())
    day = dt.date.fromisoformat(predicate(runs(ledger)[1])["timestamp"][:10])
    assert main(["ledger", "remove", "-2", "--reason", "done"]) == 2
    err = capsys.readouterr().err
    assert f"must be kept until {day + dt.timedelta(days=1)}" in err
    assert main(["ledger", "remove", "-3", "--reason", "done"]) == 2  # no retention at all
    assert "states no retention" in capsys.readouterr().err
    assert sorted(p.name for p in (ledger / "runs").iterdir()) == held
    assert not (ledger / "tombstones").exists()


def _remove_short(ledger: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    victim = runs(ledger)[1]
    with monkeypatch.context() as m:
        _ahead(m, 2)
        assert main(["ledger", "remove", "-2", "--reason", "retention ended"]) == 0
    assert not victim.exists()
    return ledger / "tombstones" / victim.name


def test_removal_after_expiry_keeps_the_ledger_verifiable(
    ledger: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    run_id = predicate(runs(ledger)[1])["run_id"]
    stone = _remove_short(ledger, monkeypatch)
    assert stone.is_file()
    code, out, report = _verify(capsys)
    assert code == 0 and report["ok"], report["problems"]
    (line,) = report["removed"]
    assert f"run {run_id}" in line and "under retention short" in line
    assert "retention ended" in line and "tombstone signed by" in line
    assert "gone run" in out
    assert all(c["ok"] for c in report["checkpoints"]) and len(report["checkpoints"]) == 3
    # the log names it, and the ledger still takes new runs on top of the tombstone
    assert main(["log"]) == 0
    assert f"Removed: run {run_id}" in capsys.readouterr().err
    assert _evaluate() in (0, 1, 3)
    code, _, report = _verify(capsys)
    assert code == 0 and report["ok"], report["problems"]
    assert report["tree_size"] == 4


def test_an_edited_tombstone_fails(
    ledger: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    stone = _remove_short(ledger, monkeypatch)
    env = json.loads(stone.read_text())
    statement = json.loads(base64.b64decode(env["payload"]))
    statement["reason"] = "something else"
    env["payload"] = base64.b64encode(json.dumps(statement).encode()).decode()
    stone.write_text(json.dumps(env))
    code, _, report = _verify(capsys)
    assert code == 1 and not report["ok"]
    assert any("signature does not verify" in p for p in report["problems"])
    assert any("missing" in p for p in report["problems"])  # the gap it leaves


def test_a_tombstone_with_another_leaf_fails_the_checkpoints(
    ledger: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from respai.ledger.tombstone import TOMBSTONE_PAYLOAD_TYPE
    from respai.record import load_private_key, sign_envelope
    from respai.sealing import find_signing_key

    stone = _remove_short(ledger, monkeypatch)
    env = json.loads(stone.read_text())
    statement = json.loads(base64.b64decode(env["payload"]))
    statement["leaf_sha256"] = "00" * 32
    signer = find_signing_key(None)
    assert signer is not None
    resigned = sign_envelope(
        json.dumps(statement).encode(),
        signer.key,
        signer.key_id,
        payload_type=TOMBSTONE_PAYLOAD_TYPE,
    )
    stone.write_text(json.dumps(resigned))
    del load_private_key
    code, _, report = _verify(capsys)
    assert code == 1
    bad = [c for c in report["checkpoints"] if not c["ok"]]
    assert [c["size"] for c in bad] == [2, 3]
    assert "does not match" in bad[0]["detail"]


def test_a_tombstone_before_expiry_fails(
    ledger: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from respai.ledger.layout import run_info
    from respai.ledger.tombstone import build_tombstone
    from respai.sealing import find_signing_key

    victim = runs(ledger)[1]  # kept until tomorrow: removed today by hand, tombstone forged
    info = run_info(1, victim)
    signer = find_signing_key(None)
    assert signer is not None
    data = build_tombstone(
        info,
        keep_until=predicate(victim)["records"][0]["settings"]["retention"][0]["keep_until"],
        retention=["short"],
        reason="early",
        removed_at=respai.record.now_utc(),
        key=signer.key,
        key_id=signer.key_id,
    )
    (ledger / "tombstones").mkdir()
    (ledger / "tombstones" / victim.name).write_bytes(data)
    victim.unlink()
    code, _, report = _verify(capsys)
    assert code == 1
    assert any("removed before its retention ended" in p for p in report["problems"])


def test_a_deleted_run_without_tombstone_fails(
    ledger: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    runs(ledger)[1].unlink()
    code, _, report = _verify(capsys)
    assert code == 1
    assert any("missing" in p for p in report["problems"])
