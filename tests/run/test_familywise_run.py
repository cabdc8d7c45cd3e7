"""``familywise: bonferroni`` over every verdict-deciding test of a ``respai evaluate`` run.

The family is the group rules, the battery tests decided on their interval and the
paired comparisons; each is decided at ``alpha / m``, its interval shown at that level,
and the record, the terminal and the report state the family. Without the key nothing
changes (the golden record test checks the bytes).
"""

from __future__ import annotations

import base64
import csv
import json
import random
from pathlib import Path
from typing import Any

import pytest
from statsmodels.stats.proportion import proportion_confint

from respai.cli import main
from respai.record import validate_predicate
from respai.run.family import run_family
from respai.spec import load_policy, load_spec

SPEC = """\
system: {name: screener, version: "1.0"}
fairness:
  cases: cases.csv
  label: label
  prediction: prediction
  attributes:
    sex: [Female, Male]
  rules:
    - {id: sel, rate: selection, attribute: sex, max_group_gap: 0.2}
    - {id: err, rate: error, attribute: sex, worst_group: {max: 0.3}}
paired:
  cases: pairs.csv
  pair: pair_id
  variant: variant
  variants: [control, black_name, white_name]
  outcome: advanced
  max_difference: 0.05
"""

#: the battery's interval-decided tests without a score column or a model
BATTERY = [
    "accuracy",
    "impact_ratio:sex",
    "selection_rate_diff:sex",
    "equal_opportunity_diff:sex",
    "missing_decisions",
    "completeness",
    "class_balance",
]
MEMBERS = ["rule:sel", "rule:err", *BATTERY]
PAIRED = ["paired_difference:black_name", "paired_difference:white_name"]


def _write(folder: Path) -> Path:
    rng = random.Random(5)
    with (folder / "cases.csv").open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["label", "prediction", "sex"])
        for _ in range(600):
            y = int(rng.random() < 0.4)
            w.writerow([y, y if rng.random() < 0.88 else 1 - y, rng.choice(["Female", "Male"])])
    with (folder / "pairs.csv").open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["pair_id", "variant", "advanced"])
        for i in range(400):
            ref = int(rng.random() < 0.5)
            w.writerow([i, "control", ref])
            for v in ("black_name", "white_name"):
                w.writerow([i, v, ref if rng.random() < 0.95 else 1 - ref])
    spec = folder / "spec.yaml"
    spec.write_text(SPEC)
    return spec


def _policy(folder: Path, text: str) -> Path:
    path = folder / "policy.yaml"
    path.write_text(text)
    return path


def _run(
    folder: Path, *args: str, capsys: pytest.CaptureFixture[str]
) -> tuple[dict[str, Any], str]:
    out = folder / "out"
    main(["evaluate", str(folder / "spec.yaml"), "--out", str(out), "--no-ledger", *args])
    captured = capsys.readouterr()
    terminal = captured.out + captured.err
    envelope = json.loads((out / "record.json").read_text())
    predicate: dict[str, Any] = json.loads(base64.b64decode(envelope["payload"]))["predicate"]
    return predicate, terminal


def _tests(predicate: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {r["test_key"]: r for r in predicate["records"] if r["record_type"] == "test"}


def _settings(predicate: dict[str, Any]) -> dict[str, Any]:
    start = next(r for r in predicate["records"] if r["record_type"] == "run_start")
    return start["settings"]  # type: ignore[no-any-return]


@pytest.fixture
def keys(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RESPAI_HOME", str(tmp_path / "keys"))
    monkeypatch.delenv("RESPAI_KEY_PASSPHRASE", raising=False)


def test_the_family_is_every_verdict_deciding_test_at_alpha_over_m(
    tmp_path: Path, keys: None, capsys: pytest.CaptureFixture[str]
) -> None:
    _write(tmp_path)
    policy = _policy(tmp_path, "familywise: bonferroni\n")
    predicate, terminal = _run(tmp_path, "--policy", str(policy), capsys=capsys)
    assert validate_predicate(predicate) == []
    family = _settings(predicate)["familywise"]
    m = len(MEMBERS) + len(PAIRED)
    assert family["members"] == [*MEMBERS, *PAIRED] and family["tests"] == m == 11
    assert family["rules"] == 2 and family["alpha"] == 0.05
    assert family["alpha_per_test"] == pytest.approx(0.05 / m)
    assert [o["test"] for o in family["outside"]] == ["perturbation_stability"]
    assert "P(any wrong FAIL among them) <= 0.05" in family["guarantee"]
    assert family["conditions"]
    level = 1 - 0.05 / m
    tests = _tests(predicate)
    for key in BATTERY:  # every battery member's interval at 1 - alpha / m
        assert tests[key]["interval"]["confidence"] == pytest.approx(level)
        assert "family-wise (Bonferroni)" in tests[key]["threshold"]["guarantee"]
    # stability without a model is outside: its threshold says nothing of the family
    assert "family-wise" not in tests["perturbation_stability"]["threshold"]["guarantee"]
    for key in ("rule:sel", "rule:err"):
        details = tests[key]["details"]
        assert details["alpha"] == pytest.approx(0.05 / m)
        assert details["familywise"] == {
            "method": "bonferroni",
            "tests": m,
            "alpha_per_test": pytest.approx(0.05 / m),
        }
    for key in PAIRED:  # the block's share is 2 alpha / m, each comparison at alpha / m
        assert tests[key]["interval"]["confidence"] == pytest.approx(level)
    # the accuracy interval is statsmodels' Wilson interval at alpha / m
    d = tests["accuracy"]["details"]
    lo, hi = proportion_confint(d["correct"], d["with_prediction"], 0.05 / m, "wilson")
    assert (tests["accuracy"]["interval"]["lo"], tests["accuracy"]["interval"]["hi"]) == (
        pytest.approx(lo, abs=1e-12),
        pytest.approx(hi, abs=1e-12),
    )
    assert "family-wise (Bonferroni): each of the run's 11" in terminal
    assert f"{level * 100:.4g}% interval" in terminal


def test_the_family_agrees_with_the_plan_and_leaves_estimate_tests_out(
    tmp_path: Path, keys: None, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = _write(tmp_path)
    policy = _policy(
        tmp_path,
        "familywise: bonferroni\ntests:\n  accuracy: {decision: estimate}\n",
    )
    family = run_family(load_spec(spec), load_policy(policy))
    assert family is not None
    assert "accuracy" not in family.members and family.m == 10
    assert family.outside[0][0] == "accuracy" and "estimate" in family.outside[0][1]
    predicate, _ = _run(tmp_path, "--policy", str(policy), capsys=capsys)
    recorded = _settings(predicate)["familywise"]
    assert recorded == family.to_dict()
    tests = _tests(predicate)
    assert "outside the run's family-wise control" in tests["accuracy"]["threshold"]["guarantee"]
    # every member of the family is a test the record carries
    assert set(family.members) <= set(tests)


def test_without_the_key_the_levels_are_unchanged(
    tmp_path: Path, keys: None, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = _write(tmp_path)
    assert run_family(load_spec(spec), None) is None
    predicate, terminal = _run(tmp_path, capsys=capsys)
    assert _settings(predicate)["familywise"] is None
    tests = _tests(predicate)
    assert tests["accuracy"]["interval"]["confidence"] == 0.95
    assert tests["impact_ratio:sex"]["interval"]["confidence"] == 0.95
    assert tests["rule:sel"]["details"]["familywise"] is None
    assert "family-wise (Bonferroni)" not in terminal and "95% interval" in terminal


def test_the_report_states_the_family(
    tmp_path: Path, keys: None, capsys: pytest.CaptureFixture[str]
) -> None:
    _write(tmp_path)
    policy = _policy(tmp_path, "familywise: bonferroni\n")
    _run(tmp_path, "--policy", str(policy), capsys=capsys)
    report = tmp_path / "report.html"
    assert main(["report", str(tmp_path / "out" / "record.json"), "--output", str(report)]) == 0
    page = report.read_text()
    assert "Family-wise control" in page and "each of the run&#x27;s 11" in page.replace(
        "&#39;", "&#x27;"
    )


def test_the_battery_intervals_follow_the_runs_alpha_without_the_key(
    tmp_path: Path, keys: None, capsys: pytest.CaptureFixture[str]
) -> None:
    _write(tmp_path)
    policy = _policy(tmp_path, "alpha: 0.01\n")
    predicate, terminal = _run(tmp_path, "--policy", str(policy), capsys=capsys)
    tests = _tests(predicate)
    for key in BATTERY:  # every battery interval at 1 - alpha, as the rules are
        assert tests[key]["interval"]["confidence"] == 0.99, key
    d = tests["accuracy"]["details"]
    lo, hi = proportion_confint(d["correct"], d["with_prediction"], 0.01, "wilson")
    assert tests["accuracy"]["interval"]["lo"] == pytest.approx(lo, abs=1e-12)
    assert tests["accuracy"]["interval"]["hi"] == pytest.approx(hi, abs=1e-12)
    assert "99% interval" in terminal and "95% interval" not in terminal
