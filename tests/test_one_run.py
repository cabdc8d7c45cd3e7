"""One run: every declared block in one signed record, and nothing written when refused.

``respai evaluate`` on a spec with ``evaluation:``, ``fairness.rules`` and ``ll144:``
seals the battery, the rule verdicts and the LL144 tables in one record appended to the
ledger; ``respai ll144 --out`` and ``respai pack`` sign too, so their runs reach the
ledger; a run refused with exit 2 leaves no output, ledger, key or lock behind; the
run's alpha reaches the LL144 Fisher tests.
"""

from __future__ import annotations

import base64
import csv
import json
import random
from pathlib import Path
from typing import Any

import pytest
from scipy.stats import fisher_exact

from respai.cli import main

RACES = ("White", "Black or African American", "Hispanic or Latino", "Asian")


def _write_cases(path: Path, n: int = 600, seed: int = 7) -> Path:
    rng = random.Random(seed)
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["applicant_id", "label", "prediction", "score", "sex", "race"])
        for i in range(n):
            sex = rng.choice(["Female", "Male"])
            y = int(rng.random() < 0.5)
            score = round(min(1.0, max(0.0, rng.gauss(0.35 + 0.3 * y, 0.2))), 3)
            w.writerow([f"a{i}", y, int(score > 0.5), score, sex, rng.choice(RACES)])
    return path


SPEC = """\
system: {name: screener, version: "1.0", first_distributed: 2025-03-01}
data:
  cases: cases.csv
  id: applicant_id
  source: historical
  explanation: "Decisions of 2025 with self-reported categories."
fairness:
  label: label
  prediction: prediction
  probability: score
  unit: applicant_id
  attributes:
    sex: [Female, Male]
  rules:
    - {id: fnr-by-sex, rate: false_negative, attribute: sex, max_group_gap: 0.2}
evaluation:
  score: score
ll144:
  kind: selection
  selected: prediction
  sex: sex
  race: race
  audit_date: 2026-11-30
"""


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("RESPAI_HOME", str(tmp_path / "keys"))
    monkeypatch.chdir(tmp_path)
    _write_cases(tmp_path / "cases.csv")
    (tmp_path / "spec.yaml").write_text(SPEC, encoding="utf-8")
    return tmp_path


def _predicate(record: Path) -> dict[str, Any]:
    envelope = json.loads(record.read_text(encoding="utf-8"))
    statement = json.loads(base64.b64decode(envelope["payload"]))
    return statement["predicate"]  # type: ignore[no-any-return]


def _tree(folder: Path) -> set[str]:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*")}


def test_evaluate_seals_battery_rules_and_ll144_in_one_record(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["evaluate", "spec.yaml", "--out", "out", "--json"])
    summary = json.loads(capsys.readouterr().out)
    pred = _predicate(work / "out" / "record.json")
    assert code == pred["records"][-1]["exit_code"] != 0  # LL144 findings: MANUAL_REVIEW
    assert "PASS" not in {
        r["verdict"] for r in pred["records"] if r.get("test_id") == "ll144_impact_ratio"
    }
    keys = [r.get("test_key") for r in pred["records"] if r["record_type"] == "test"]
    assert "accuracy" in keys and "auc" in keys
    assert "rule:fnr-by-sex" in keys
    assert "ll144:sex:Female" in keys and "ll144:race:Asian" in keys
    assert any(k.startswith("ll144:sex_x_race:") for k in keys)
    assert pred["counts"]["ll144"]["cases"] == 600
    assert pred["records"][0]["ll144"]["settings"]["alpha"] == 0.05
    assert {t["test_key"] for t in summary["tests"]} == set(keys)
    runs = sorted((work / ".respai" / "runs").glob("*.json"))
    assert len(runs) == 1
    assert main(["verify", "out/record.json", "--key", "out/public_key.pem"]) == 0


def test_ll144_out_and_pack_reach_the_ledger(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["ll144", "spec.yaml", "--out", "audit"]) == 0
    assert {"record.json", "public_key.pem", "report.html", "ll144.json"} <= _tree(work / "audit")
    assert main(["pack", "spec.yaml", "--out", "pack"]) == 0
    runs = sorted((work / ".respai" / "runs").glob("*.json"))
    assert len(runs) == 2
    assert _predicate(work / "audit" / "record.json")["kind"] == "respai.ll144"
    # the pack's record is chained after the ll144 run, and still reproduces
    capsys.readouterr()
    assert main(["reproduce", "pack"]) == 0, capsys.readouterr().err
    assert main(["verify", "--ledger", ".respai"]) == 0, capsys.readouterr().err


def test_a_ledger_mixing_three_commands_and_two_keys_verifies(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["keys", "new", "--dir", "other"]) == 0
    other_key = next((work / "other").glob("respai-*.key"))
    assert main(["evaluate", "spec.yaml", "--out", "e1"]) in (1, 3, 4)
    assert main(["ll144", "spec.yaml", "--out", "a1", "--key", str(other_key)]) == 0
    assert main(["pack", "spec.yaml", "--out", "p1"]) == 0
    assert main(["evaluate", "spec.yaml", "--out", "e2", "--key", str(other_key)]) in (1, 3, 4)
    capsys.readouterr()
    ok = main(
        [
            "verify",
            "--ledger",
            ".respai",
            "--keys",
            "keys/keys.json",
            "--keys",
            "other/keys.json",
            "--json",
        ]
    )
    report = json.loads(capsys.readouterr().out)
    assert ok == 0 and report["ok"] is True
    # one key alone does not verify the runs the other signed
    assert main(["verify", "--ledger", ".respai", "--keys", "keys/keys.json"]) == 1


@pytest.mark.parametrize("command", ["evaluate", "ll144", "pack"])
@pytest.mark.parametrize("target", ["file", "folder"])
def test_a_refused_out_writes_nothing(
    work: Path, capsys: pytest.CaptureFixture[str], command: str, target: str
) -> None:
    out = work / "taken"
    if target == "file":
        out.write_text("keep me\n", encoding="utf-8")
    else:
        out.mkdir()
        (out / "notes.txt").write_text("keep me\n", encoding="utf-8")
    before = _tree(work)
    assert main([command, "spec.yaml", "--out", "taken"]) == 2
    err = capsys.readouterr().err
    assert "taken" in err and "Traceback" not in err
    assert _tree(work) == before  # no .respai/, no key folder, no lock, no temporary
    assert not (work / ".respai").exists() and not (work / "keys").exists()


def test_a_failed_ledger_append_takes_outputs_and_new_key_back(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (work / ".respai").write_text("not a ledger folder\n", encoding="utf-8")
    before = _tree(work)
    assert main(["evaluate", "spec.yaml", "--out", "out"]) == 2
    assert "Traceback" not in capsys.readouterr().err
    assert _tree(work) == before
    assert main(["ll144", "spec.yaml", "--out", "audit"]) == 2
    assert _tree(work) == before
    assert main(["pack", "spec.yaml", "--out", "pack"]) == 2
    assert _tree(work) == before


def test_a_failed_append_puts_an_earlier_pack_back(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["pack", "spec.yaml", "--out", "pack", "--no-ledger"]) == 0
    files = sorted(p for p in (work / "pack").rglob("*") if p.is_file())
    before = {p: p.read_bytes() for p in [*files, work / "pack.zip"]}
    (work / ".respai").write_text("not a ledger folder\n", encoding="utf-8")
    assert main(["pack", "spec.yaml", "--out", "pack"]) == 2
    assert "Traceback" not in capsys.readouterr().err
    after = sorted(p for p in (work / "pack").rglob("*") if p.is_file())
    assert after == files
    assert {p: p.read_bytes() for p in [*after, work / "pack.zip"]} == before
    assert not [p for p in work.iterdir() if p.name.startswith(".pack")]


def _alpha_data(folder: Path) -> None:
    """Male 65/100 selected, Female 40/100: one-sided Fisher p = 0.00032, Holm-adjusted
    over the audit's 70 comparisons to 0.0224 (significant at 0.05, not at 0.01)."""
    rows = [("Male", 1)] * 65 + [("Male", 0)] * 35 + [("Female", 1)] * 40 + [("Female", 0)] * 60
    with (folder / "cases.csv").open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["applicant_id", "label", "prediction", "score", "sex", "race"])
        for i, (sex, sel) in enumerate(rows):
            w.writerow([f"a{i}", sel, sel, 0.9 if sel else 0.1, sex, RACES[i % 4]])


@pytest.mark.parametrize(("alpha", "significant"), [(None, True), (0.01, False)])
def test_the_runs_alpha_reaches_the_ll144_tests(
    work: Path, capsys: pytest.CaptureFixture[str], alpha: float | None, significant: bool
) -> None:
    _alpha_data(work)
    expected_p = fisher_exact([[40, 60], [65, 35]], alternative="less").pvalue
    args = ["ll144", "spec.yaml", "--json"]
    if alpha is not None:
        (work / "policy.yaml").write_text(f"alpha: {alpha}\n", encoding="utf-8")
        args += ["--policy", "policy.yaml"]
    assert main(args) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["settings"]["alpha"] == (alpha or 0.05)
    (finding,) = [f for f in doc["findings"] if f["table"] == "sex"]
    assert finding["category"] == "Female"
    assert finding["p_value_fisher_one_sided"] == pytest.approx(expected_p, rel=1e-9)
    assert finding["alpha"] == (alpha or 0.05)
    assert finding["comparisons"] == 70 and finding["adjustment"] == "holm"
    assert finding["p_value_adjusted"] == pytest.approx(0.0224, abs=5e-5)
    assert finding["significant"] is significant
    # the same alpha in the evaluate record (fairness.alpha in the spec works too)
    pol = ["--policy", "policy.yaml"] if alpha is not None else []
    assert main(["evaluate", "spec.yaml", "--out", "out", *pol]) in (1, 3, 4)
    start = _predicate(work / "out" / "record.json")["records"][0]
    assert start["ll144"]["settings"]["alpha"] == (alpha or 0.05)
    assert start["settings"]["alpha"] == (alpha or 0.05)


def _split_self_id(folder: Path) -> None:
    """decisions.csv without the categories, self_id.csv with them (a few rows unmatched)."""
    with (folder / "cases.csv").open(encoding="utf-8", newline="") as fh:
        rows = list(csv.reader(fh))
    header, body = rows[0], rows[1:]
    with (folder / "decisions.csv").open("w", newline="", encoding="utf-8") as fh:
        csv.writer(fh).writerows([header[:4], *(r[:4] for r in body)])
    with (folder / "self_id.csv").open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow([header[0], header[4], header[5]])
        w.writerows([r[0], r[4], r[5]] for i, r in enumerate(body) if i % 50 != 7)
        w.writerow(["nobody", "Female", "Asian"])  # self-ID without a decision
    spec = SPEC.replace(
        "  cases: cases.csv\n",
        "  cases: decisions.csv\n  demographics: self_id.csv\n  join_on: applicant_id\n",
    )
    (folder / "spec.yaml").write_text(spec, encoding="utf-8")


def test_the_demographics_join_works_in_fairness_and_evaluate(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import hashlib

    import pandas as pd

    _split_self_id(work)
    decisions = pd.read_csv(work / "decisions.csv", dtype=str)
    self_id = pd.read_csv(work / "self_id.csv", dtype=str)
    merged = decisions.merge(self_id, on="applicant_id", how="left")
    expected = {
        sex: int(((merged["sex"] == sex) & (merged["label"] == "1")).sum())
        for sex in ("Female", "Male")
    }
    code = main(["fairness", "spec.yaml", "--json"])
    result = json.loads(capsys.readouterr().out)
    assert code == result["exit_code"] != 2
    rule = result["rules"][0]
    assert {g["group"]: g["cases"] for g in rule["groups"]} == expected  # FNR: labelled 1
    assert rule["left_out"]["by_reason"] == {"sex: missing": int(merged["sex"].isna().sum())}
    code = main(["evaluate", "spec.yaml", "--out", "out"])
    pred = _predicate(work / "out" / "record.json")
    assert code == pred["records"][-1]["exit_code"]
    fps = pred["fingerprints"]
    for role, name in (("dataset", "decisions.csv"), ("demographics", "self_id.csv")):
        assert fps[role]["sha256"] == hashlib.sha256((work / name).read_bytes()).hexdigest()
    assert pred["counts"]["cases"] == len(decisions)  # the self-ID-only row is no case
    rec = pred["counts"]["ll144"]["reconciliation"]
    assert rec["self_id_without_decision"] == 1
    assert rec["decisions_without_self_id"] == int(merged["sex"].isna().sum())


@pytest.mark.parametrize("joined", [False, True])
def test_one_scan_counts_the_rules_and_the_ll144_tables(
    work: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    joined: bool,
) -> None:
    from respai import engine

    if joined:
        _split_self_id(work)
    assert main(["ll144", "spec.yaml", "--json"]) == 0
    alone = json.loads(capsys.readouterr().out)
    calls: list[str] = []
    for name in ("count_cube", "group_counts", "count_cube_and_groups"):
        real = getattr(engine, name)

        def spy(*args: Any, _real: Any = real, _name: str = name, **kwargs: Any) -> Any:
            calls.append(_name)
            return _real(*args, **kwargs)

        monkeypatch.setattr(engine, name, spy)
    main(["evaluate", "spec.yaml", "--out", "out"])
    assert calls == ["count_cube_and_groups"]  # one scan; the AUC's sort is its own pass
    tables = _predicate(work / "out" / "record.json")["counts"]["ll144"]["tables"]

    def counts(rows: list[dict[str, Any]]) -> dict[str, tuple[int, int]]:
        return {r["category"]: (r["applicants"], r["selected"]) for r in rows}

    for name, table in tables.items():
        assert counts(table["rows"]) == counts(alone["tables"][name]["rows"])
        assert table["unknown"] == alone["tables"][name]["unknown"]


@pytest.mark.parametrize("command", ["evaluate", "ll144", "pack"])
def test_an_append_that_fails_after_the_outputs_are_in_place_takes_them_back(
    work: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    command: str,
) -> None:
    from respai.errors import InputError
    from respai.ledger.store import Head

    assert main([command, "spec.yaml", "--out", "out"]) != 2  # an earlier output, a ledger
    capsys.readouterr()
    before = {p: p.read_bytes() for p in sorted(work.rglob("*")) if p.is_file()}

    def fail(self: Head, envelope: Any, key: Any) -> Any:
        raise InputError("the disk is full (simulated).")

    monkeypatch.setattr(Head, "append", fail)
    assert main([command, "spec.yaml", "--out", "out"]) == 2
    assert "disk is full" in capsys.readouterr().err
    after = {p: p.read_bytes() for p in sorted(work.rglob("*")) if p.is_file()}
    assert after.keys() == before.keys()
    changed = [p for p in after if after[p] != before[p] and "lock" not in p.name]
    assert changed == []


@pytest.mark.parametrize("command", ["evaluate", "ll144", "pack"])
def test_bad_data_writes_nothing(
    work: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    spec = (work / "spec.yaml").read_text(encoding="utf-8")
    (work / "spec.yaml").write_text(spec.replace("race: race", "race: ethnicity"), "utf-8")
    before = _tree(work)
    assert main([command, "spec.yaml", "--out", "out"]) == 2
    err = capsys.readouterr().err
    assert "ethnicity" in err and "Traceback" not in err
    assert _tree(work) == before  # no output, no .respai/, no key folder


@pytest.mark.parametrize("command", ["evaluate", "ll144", "pack"])
def test_a_run_stored_without_its_checkpoint_keeps_its_outputs(
    work: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    command: str,
) -> None:
    from respai.ledger import store

    real = store._write_checkpoint

    def fail(*args: Any, **kwargs: Any) -> Any:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(store, "_write_checkpoint", fail)
    code = main([command, "spec.yaml", "--out", "out"])
    err = capsys.readouterr().err
    assert code != 2, err
    assert "warning" in err and "could not be written" in err
    assert (work / "out" / "record.json").is_file()  # the run is in the ledger: so are they
    assert len(list((work / ".respai" / "runs").glob("*.json"))) == 1
    monkeypatch.setattr(store, "_write_checkpoint", real)
    assert main(["verify", "--ledger", ".respai"]) == 0


@pytest.mark.parametrize("joined", [False, True])
def test_each_input_file_is_hashed_once_per_run(
    work: Path, monkeypatch: pytest.MonkeyPatch, joined: bool
) -> None:
    from respai.record import fingerprint

    if joined:
        _split_self_id(work)
    hashed: list[str] = []
    real = fingerprint.descriptor_fingerprint

    def spy(fd: int, name: str) -> Any:
        hashed.append(name)
        return real(fd, name)

    monkeypatch.setattr(fingerprint, "descriptor_fingerprint", spy)
    assert main(["evaluate", "spec.yaml", "--out", "out"]) != 2
    files = ["decisions.csv", "self_id.csv"] if joined else ["cases.csv"]
    assert sorted(hashed) == files  # the thread's hash serves the LL144 reconciliation too


@pytest.mark.parametrize("command", ["evaluate", "ll144", "pack"])
def test_a_key_made_for_a_run_is_valid_when_the_run_is_signed(
    work: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    """A clock that moves a second per reading: the key made for the run is listed from
    the second it was made, and the run's signing time may not come before it."""
    import datetime as dt

    import respai.record
    import respai.record.keys

    start = dt.datetime(2026, 12, 2, 12, 0, 0, 250_000, tzinfo=dt.UTC)
    ticks = iter(range(10_000))

    def clock() -> dt.datetime:
        return start + dt.timedelta(seconds=next(ticks))

    monkeypatch.setattr(respai.record, "now_utc", clock)
    monkeypatch.setattr(respai.record.keys, "now_utc", clock)
    assert main([command, "spec.yaml", "--out", "out"]) != 2, capsys.readouterr().err
    capsys.readouterr()
    monkeypatch.undo()
    monkeypatch.setenv("RESPAI_HOME", str(work / "keys"))
    monkeypatch.chdir(work)
    assert main(["verify", "--ledger", ".respai"]) == 0, capsys.readouterr().err
