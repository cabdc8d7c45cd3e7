"""The evaluate summary names where each threshold came from: "respai default" only for
the thresholds respai's defaults set (issue 27 point 5: it was printed under every run,
even when the gate's thresholds were the spec's own rules)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from respai.cli import main

SAMPLES = Path(__file__).resolve().parents[2] / "src" / "respai" / "samples"
RULES = ("fnr-by-sex", "fnr-crossed", "error-by-age", "selection-by-sex")


@pytest.fixture
def spec(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("RESPAI_HOME", str(tmp_path / "keys"))
    for name in ("loan_screen.yaml", "loan_screen.csv"):
        shutil.copy(SAMPLES / name, tmp_path / name)
    return tmp_path / "loan_screen.yaml"


def _sources(spec: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> list[str]:
    out = spec.parent / f"out{len(extra)}"
    main(["evaluate", str(spec), "--out", str(out), "--no-ledger", *extra])
    err = capsys.readouterr().err
    return [line for line in err.splitlines() if line.startswith(("battery thr", "rule thr"))]


def test_defaults_and_the_spec_are_named_for_what_they_set(
    spec: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # no policy: the battery's thresholds are respai's defaults, the rules' the spec's
    assert _sources(spec, capsys) == [
        "battery thresholds: respai default, for every test",
        "rule thresholds: the spec, for every rule",
    ]


def test_a_policy_is_named_for_what_it_set_and_the_defaults_for_the_rest(
    spec: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    policy = spec.parent / "gate.yaml"
    policy.write_text(
        "tests:\n  accuracy: {threshold: 0.9}\nrules:\n  fnr-by-sex: {max_group_gap: 0.08}\n",
        encoding="utf-8",
    )
    battery, rules = _sources(spec, capsys, "--policy", str(policy))
    head, rest = battery.split("; respai default: ")
    assert head.startswith("battery thresholds: policy ") and head.endswith(": accuracy")
    assert "accuracy" not in rest and "auc" in rest.split(", ")
    assert rules.startswith("rule thresholds: policy ") and ": fnr-by-sex; " in rules
    assert rules.endswith("the spec: " + ", ".join(RULES[1:]))
    assert "respai default" not in rules  # no rule threshold is a default
