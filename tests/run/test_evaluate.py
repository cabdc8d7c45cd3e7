"""``respai evaluate`` end to end: battery numbers, the signed record, keys, policy."""

from __future__ import annotations

import base64
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from sklearn.metrics import accuracy_score, roc_auc_score

from respai.cli import main
from respai.record import KeyRing, load_public_key, validate_predicate, verify_envelope

SAMPLES = Path(__file__).resolve().parents[2] / "src" / "respai" / "samples"
SPEC = SAMPLES / "loan_screen.yaml"


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    keys = tmp_path / "keys"
    monkeypatch.setenv("RESPAI_HOME", str(keys))
    monkeypatch.delenv("RESPAI_KEY_PASSPHRASE", raising=False)
    monkeypatch.chdir(tmp_path)
    return keys


def _payload(envelope: dict[str, Any]) -> dict[str, Any]:
    return json.loads(base64.b64decode(envelope["payload"]))  # type: ignore[no-any-return]


def run_evaluate(*args: str) -> tuple[int, dict[str, Any]]:
    from contextlib import redirect_stdout
    from io import StringIO

    buf = StringIO()
    with redirect_stdout(buf):
        code = main(["evaluate", str(SPEC), "--json", "--no-ledger", *args])
    return code, json.loads(buf.getvalue())


def test_evaluate_writes_a_record_that_verifies(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, summary = run_evaluate("--out", str(tmp_path / "out"))
    err = capsys.readouterr().err
    assert code == 1 and summary["verdict"] == "FAIL"
    assert "a new one was created" in err  # no key was configured
    envelope = json.loads((tmp_path / "out" / "record.json").read_text())
    ring = KeyRing.from_public_key(load_public_key(tmp_path / "out" / "public_key.pem"))
    report = verify_envelope(envelope, ring)
    assert report.ok, report.failed
    predicate = _payload(envelope)["predicate"]
    assert validate_predicate(predicate) == []
    assert predicate["engine"]["name"] == "respai-evidence-engine"
    assert predicate["control_mapping"]["relation"] == "supports"
    assert predicate["fingerprints"]["dataset"]["name"] == "loan_screen.csv"
    # a second run reuses the key, and says nothing about creating one
    assert run_evaluate("--out", str(tmp_path / "out2"))[0] == 1
    assert "a new one was created" not in capsys.readouterr().err


def test_battery_numbers_match_sklearn_on_the_sample(home: Path, tmp_path: Path) -> None:
    _, summary = run_evaluate("--out", str(tmp_path / "out"))
    tests = {t["test_key"]: t for t in summary["tests"]}
    df = pd.read_csv(SAMPLES / "loan_screen.csv", dtype={"sex": "string"})
    with_pred = df.dropna(subset=["prediction"])
    assert tests["accuracy"]["value"] == pytest.approx(
        accuracy_score(with_pred["label"], with_pred["prediction"]), abs=1e-12
    )
    assert tests["auc"]["value"] == pytest.approx(
        roc_auc_score(df["label"], df["score"]), abs=1e-12
    )
    declared = with_pred[with_pred["sex"].isin(["female", "male"])]
    rates = declared.groupby("sex")["prediction"].mean()
    assert tests["impact_ratio:sex"]["value"] == pytest.approx(rates.min() / rates.max())
    assert tests["perturbation_stability"]["verdict"] == "MANUAL_REVIEW"
    assert tests["rule:fnr-crossed"]["verdict"] == "FAIL"


def test_numbers_recompute_from_the_record_alone(home: Path, tmp_path: Path) -> None:
    run_evaluate("--out", str(tmp_path / "out"))
    envelope = json.loads((tmp_path / "out" / "record.json").read_text())
    predicate = _payload(envelope)["predicate"]
    counts = predicate["counts"]
    overall = counts["overall"]
    correct = overall["tp"] + overall["tn"]
    predicted = correct + overall["fp"] + overall["fn"]
    tests = {r["test_key"]: r for r in predicate["records"] if r["record_type"] == "test"}
    assert tests["accuracy"]["value"] == correct / predicted
    sel = []
    for g in counts["groupings"]["sex"]["groups"]:
        n = g["tp"] + g["fp"] + g["tn"] + g["fn"]
        sel.append((g["tp"] + g["fp"]) / n)
    assert tests["impact_ratio:sex"]["value"] == pytest.approx(min(sel) / max(sel))
    # AUC and its DeLong error from the rank sums in the record (DeLong et al. 1988)
    ranks = counts["rank_sums"]
    m, n_neg = ranks["scored_labelled_1"], ranks["scored_labelled_0"]
    u2 = int(ranks["twice_u"])
    sx, sv = int(ranks["positive_placement_squares"]), int(ranks["negative_placement_squares"])
    auc = u2 / (2 * m * n_neg)
    assert tests["auc"]["value"] == pytest.approx(auc, abs=1e-12)
    var10 = (sx / (2 * n_neg) ** 2 - m * auc**2) / (m - 1)
    var01 = (sv / (2 * m) ** 2 - n_neg * auc**2) / (n_neg - 1)
    se = (var10 / m + var01 / n_neg) ** 0.5
    assert tests["auc"]["details"]["overall"]["standard_error"] == pytest.approx(se, rel=1e-6)
    by_sex = {tuple(r["key"]): r for r in counts["groupings"]["sex"]["rank_sums"]}
    assert sum(r["scored_labelled_1"] for r in by_sex.values()) <= m


def test_policy_sets_thresholds_and_the_decision_rule(home: Path, tmp_path: Path) -> None:
    policy = tmp_path / "gate.yaml"
    policy.write_text(
        "tests:\n  impact_ratio: {threshold: 0.9, decision: interval}\n"
        "  accuracy: {threshold: 0.95}\n"
    )
    _, summary = run_evaluate("--policy", str(policy), "--out", str(tmp_path / "out"))
    tests = {t["test_key"]: t for t in summary["tests"]}
    acc = tests["accuracy"]
    assert acc["threshold"]["value"] == 0.95 and acc["verdict"] == "FAIL"
    assert acc["threshold"]["source"].startswith("policy gate.yaml sha256:")
    ir = tests["impact_ratio:sex"]  # 0.907 with an interval crossing 0.9
    assert ir["threshold"]["decision"] == "interval"
    assert ir["verdict"] == "INSUFFICIENT_EVIDENCE"
    assert tests["auc"]["threshold"]["source"].startswith("respai default")


def test_encrypted_key_with_passphrase_from_the_environment(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RESPAI_KEY_PASSPHRASE", "correct horse battery staple")
    assert main(["keys", "new", "--dir", str(tmp_path / "k")]) == 0
    key = next((tmp_path / "k").glob("respai-*.key"))
    assert key.read_text().startswith("-----BEGIN ENCRYPTED PRIVATE KEY-----")
    assert (key.stat().st_mode & 0o777) == 0o600
    code, summary = run_evaluate("--key", str(key), "--out", str(tmp_path / "out"))
    assert code == 1 and summary["key_id"].startswith("sha256:")
    monkeypatch.setenv("RESPAI_KEY_PASSPHRASE", "wrong")
    assert (
        main(
            [
                "evaluate",
                str(SPEC),
                "--key",
                str(key),
                "--no-ledger",
                "--out",
                str(tmp_path / "out3"),
            ]
        )
        == 2
    )
    assert not (tmp_path / "out3").exists()


def test_key_readable_by_others_is_refused(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["keys", "new", "--dir", str(tmp_path / "k")]) == 0
    key = next((tmp_path / "k").glob("respai-*.key"))
    os.chmod(key, 0o644)
    code = main(
        ["evaluate", str(SPEC), "--key", str(key), "--no-ledger", "--out", str(tmp_path / "out")]
    )
    err = capsys.readouterr().err
    assert code == 2 and "chmod 600" in err
    assert not (tmp_path / "out").exists()


def test_verify_cli_names_the_failed_check(home: Path, tmp_path: Path) -> None:
    run_evaluate("--out", str(tmp_path / "out"))
    record = tmp_path / "out" / "record.json"
    pub = tmp_path / "out" / "public_key.pem"
    ok = subprocess.run(
        [sys.executable, "-m", "respai", "verify", str(record), "--key", str(pub), "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["ok"] is True
    envelope = json.loads(record.read_text())
    statement = _payload(envelope)
    for r in statement["predicate"]["records"]:
        if r.get("test_key") == "accuracy":
            r["value"] = 0.99
    import rfc8785

    envelope["payload"] = base64.b64encode(rfc8785.dumps(statement)).decode()
    record.write_text(json.dumps(envelope))
    bad = subprocess.run(
        [sys.executable, "-m", "respai", "verify", str(record), "--key", str(pub), "--json"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert bad.returncode == 1
    failed = json.loads(bad.stdout)["failed"]
    assert "signature" in failed and "record_id" in failed
    assert "FAIL  signature" in bad.stderr


def test_verify_with_another_key_fails(home: Path, tmp_path: Path) -> None:
    run_evaluate("--out", str(tmp_path / "out"))
    assert main(["keys", "new", "--dir", str(tmp_path / "other")]) == 0
    other = next((tmp_path / "other").glob("respai-*.pub"))
    assert main(["verify", str(tmp_path / "out" / "record.json"), "--key", str(other)]) == 1


def test_verify_needs_a_key(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "r.json").write_text("{}")
    assert main(["verify", str(tmp_path / "r.json")]) == 2
    assert "no public key to verify with" in capsys.readouterr().err


def test_a_retired_key_may_not_sign(
    home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import datetime as dt

    from respai.record import retire_key

    assert main(["keys", "new", "--dir", str(tmp_path / "k")]) == 0
    key = next((tmp_path / "k").glob("respai-*.key"))
    kid = json.loads((tmp_path / "k" / "keys.json").read_text())["keys"][0]["key_id"]
    retire_key(
        tmp_path / "k" / "keys.json", kid, dt.datetime.now(dt.UTC) - dt.timedelta(seconds=1)
    )
    capsys.readouterr()
    code = main(
        ["evaluate", str(SPEC), "--key", str(key), "--no-ledger", "--out", str(tmp_path / "out")]
    )
    assert code == 2 and "cannot sign now" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_the_dataset_is_hashed_while_the_engine_counts(tmp_path: Path) -> None:
    import hashlib
    import shutil

    from respai.run.evaluation import run_evaluation as evaluate

    for name in ("loan_screen.yaml", "loan_screen.csv"):
        shutil.copy(SAMPLES / name, tmp_path / name)
    result = evaluate(tmp_path / "loan_screen.yaml")
    data = (tmp_path / "loan_screen.csv").read_bytes()
    assert result.dataset_fingerprint is not None
    assert result.dataset_fingerprint["sha256"] == hashlib.sha256(data).hexdigest()
    assert result.dataset_fingerprint["size_bytes"] == len(data)


def test_the_sealed_predicate_is_the_signed_one(home: Path, tmp_path: Path) -> None:
    # --json, the JUnit export and the Python API read the predicate back from the signed
    # payload: the same values, of the same JSON types, as record.json holds
    import respai

    result = respai.evaluate(SPEC, out=tmp_path / "out")
    assert result.sealed is not None
    envelope = json.loads((tmp_path / "out" / "record.json").read_text())
    signed = _payload(envelope)["predicate"]
    assert result.sealed.predicate == signed
    assert json.dumps(result.sealed.predicate) == json.dumps(signed)
    assert result.sealed.predicate is result.sealed.predicate  # read once, then kept


def test_a_run_closes_its_files_once_every_block_has_read_them(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from respai.load import Inputs

    closed: list[Inputs] = []
    original = Inputs.close

    def close(self: Inputs) -> None:
        closed.append(self)
        original(self)

    monkeypatch.setattr(Inputs, "close", close)
    code, summary = run_evaluate("--out", str(tmp_path / "out"))
    assert code == 1 and summary["verdict"] == "FAIL" and len(closed) == 1
