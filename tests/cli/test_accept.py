"""``--accept VERDICT``: a gate lets named verdicts through; the record keeps the truth."""

from __future__ import annotations

import base64
import csv
import itertools
import json
import random
from pathlib import Path
from typing import Any

import pytest

from respai.cli import main
from respai.schemas import validate_output
from respai.types import ACCEPTABLE, Verdict, accepted_exit_code

SPEC = """\
fairness:
  cases: cases.csv
  label: label
  prediction: prediction
  unit: id
  attributes:
    sex: [female, male]
  rules:
    - {id: selection-by-sex, rate: selection, attribute: sex, max_group_gap: 0.5}
evaluation:
  tests: [accuracy, perturbation_stability]  # no model: perturbation stability is MANUAL_REVIEW
"""


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("RESPAI_HOME", str(tmp_path / "keys"))
    monkeypatch.chdir(tmp_path)
    rng = random.Random(27)
    with (tmp_path / "cases.csv").open("w", newline="", encoding="utf-8") as f:
        writer = csv.writer(f)
        writer.writerow(["id", "label", "prediction", "sex"])
        for i in range(2000):
            label = int(rng.random() < 0.5)
            prediction = label if rng.random() < 0.95 else 1 - label
            writer.writerow([i, label, prediction, rng.choice(["female", "male"])])
    (tmp_path / "spec.yaml").write_text(SPEC, encoding="utf-8")
    return tmp_path


def _predicate(path: Path) -> Any:
    envelope = json.loads(path.read_text(encoding="utf-8"))
    return json.loads(base64.b64decode(envelope["payload"]))["predicate"]


def test_accepting_manual_review_passes_the_gate_and_the_record_says_so(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["evaluate", "spec.yaml", "--out", "plain", "--no-ledger", "-q"]) == 4
    capsys.readouterr()
    argv = ["evaluate", "spec.yaml", "--out", "gate", "--no-ledger", "-q", "--json"]
    assert main([*argv, "--accept", "MANUAL_REVIEW"]) == 0
    out, err = capsys.readouterr()
    assert "verdict: MANUAL_REVIEW (exit 0; accepted: MANUAL_REVIEW)" in err
    doc = json.loads(out)
    assert (doc["verdict"], doc["exit_code"]) == ("MANUAL_REVIEW", 0)
    assert validate_output("evaluate", doc) == []

    record = _predicate(work / "gate" / "record.json")
    start, end = record["records"][0], record["records"][-1]
    assert start["settings"]["accepted"] == ["MANUAL_REVIEW"]
    assert (record["verdict"], end["verdict"], end["exit_code"]) == ("MANUAL_REVIEW",) * 2 + (0,)
    verdicts = {r["test_key"]: r["verdict"] for r in record["records"][1:-1]}
    assert verdicts["perturbation_stability"] == "MANUAL_REVIEW"  # the true verdict stays
    assert "accepted: MANUAL_REVIEW" in (work / "gate" / "summary.txt").read_text("utf-8")
    # the run without --accept states that nothing was accepted, and its exit code
    plain = _predicate(work / "plain" / "record.json")
    assert plain["records"][0]["settings"]["accepted"] == []
    assert plain["records"][-1]["exit_code"] == 4
    assert main(["verify", "gate/record.json", "--key", "gate/public_key.pem"]) == 0


def test_accepting_another_verdict_leaves_the_gate_closed(work: Path) -> None:
    argv = ["evaluate", "spec.yaml", "--out", "o", "--no-ledger", "-q"]
    assert main([*argv, "--accept", "INSUFFICIENT_EVIDENCE"]) == 4
    record = _predicate(work / "o" / "record.json")
    assert record["records"][0]["settings"]["accepted"] == ["INSUFFICIENT_EVIDENCE"]
    assert record["records"][-1]["exit_code"] == 4


@pytest.mark.parametrize("given", ["FAIL", "PASS", "maybe"])
def test_fail_can_never_be_accepted(
    work: Path, capsys: pytest.CaptureFixture[str], given: str
) -> None:
    before = sorted(work.rglob("*"))
    assert main(["evaluate", "spec.yaml", "--out", "o", "--accept", given]) == 2
    err = capsys.readouterr().err
    assert "--accept" in err and "INSUFFICIENT_EVIDENCE" in err
    if given == "FAIL":
        assert "FAIL can never be accepted" in err
    assert sorted(work.rglob("*")) == before  # nothing written, no key made


def test_fairness_accepts_insufficient_evidence(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # a limit of 0.001 on the selection-rate gap cannot be settled by 2,000 cases
    text = SPEC.replace("max_group_gap: 0.5", "max_group_gap: 0.001").split("evaluation:")[0]
    (work / "tight.yaml").write_text(text, encoding="utf-8")
    assert main(["fairness", "tight.yaml", "--json"]) == 3
    capsys.readouterr()
    assert main(["fairness", "tight.yaml", "--json", "--accept", "insufficient_evidence"]) == 0
    out, err = capsys.readouterr()
    doc = json.loads(out)
    assert (doc["verdict"], doc["exit_code"]) == ("INSUFFICIENT_EVIDENCE", 0)
    assert doc["settings"]["accepted"] == ["INSUFFICIENT_EVIDENCE"]
    assert doc["rules"][0]["verdict"] == "INSUFFICIENT_EVIDENCE"
    assert validate_output("fairness", doc) == []
    assert "(exit 0; accepted: INSUFFICIENT_EVIDENCE)" in err


def _reference(verdicts: list[Verdict], accepted: set[Verdict]) -> int:
    """An exit code by enumeration: the lowest code no unaccepted verdict beats."""
    codes = {Verdict.PASS: 0, Verdict.MANUAL_REVIEW: 4, Verdict.INSUFFICIENT_EVIDENCE: 3}
    if Verdict.FAIL in verdicts:
        return 1
    left = [v for v in verdicts if v not in accepted and v is not Verdict.PASS]
    if not left:
        return 0
    return 3 if Verdict.INSUFFICIENT_EVIDENCE in left else codes[left[0]]


def test_the_exit_code_over_every_set_of_verdicts_and_acceptances() -> None:
    every = list(Verdict)
    for n in range(1, 5):
        for verdicts in itertools.combinations_with_replacement(every, n):
            for k in range(len(ACCEPTABLE) + 1):
                for accepted in itertools.combinations(ACCEPTABLE, k):
                    got = accepted_exit_code(list(verdicts), accepted)
                    assert got == _reference(list(verdicts), set(accepted)), (verdicts, accepted)
    with pytest.raises(ValueError, match="FAIL"):
        accepted_exit_code([Verdict.FAIL], [Verdict.FAIL])


# -- the Python API: respai.evaluate(..., accept=...) has the CLI's semantics ----------------


@pytest.mark.parametrize(
    "accept",
    [(), ("MANUAL_REVIEW",), ("INSUFFICIENT_EVIDENCE",), ("manual-review", "MANUAL_REVIEW")],
)
def test_the_api_accepts_as_the_cli_does(work: Path, accept: tuple[str, ...]) -> None:
    import respai

    argv = ["evaluate", "spec.yaml", "--out", "cli", "--no-ledger", "-q"]
    code = main([*argv, *(x for a in accept for x in ("--accept", a))])
    unsealed = respai.evaluate("spec.yaml", accept=accept)
    sealed = respai.evaluate("spec.yaml", out="api", accept=accept)
    assert unsealed.exit_code == sealed.exit_code == code
    assert unsealed.verdict is sealed.verdict is Verdict.MANUAL_REVIEW  # the verdict stays
    cli, api = _predicate(work / "cli" / "record.json"), _predicate(work / "api" / "record.json")
    assert api["records"][0]["settings"]["accepted"] == cli["records"][0]["settings"]["accepted"]
    assert api["records"][-1]["exit_code"] == cli["records"][-1]["exit_code"] == code


def test_the_api_takes_verdicts_and_a_single_name(work: Path) -> None:
    import respai

    assert respai.evaluate("spec.yaml", accept=Verdict.MANUAL_REVIEW).exit_code == 0
    assert respai.evaluate("spec.yaml", accept="MANUAL_REVIEW").accepted == (
        Verdict.MANUAL_REVIEW,
    )


@pytest.mark.parametrize("given", ["FAIL", "PASS", "maybe", Verdict.FAIL])
def test_the_api_refuses_what_the_cli_refuses(work: Path, given: Any) -> None:
    import respai
    from respai.errors import InputError

    before = sorted(work.rglob("*"))
    with pytest.raises(InputError, match="INSUFFICIENT_EVIDENCE") as caught:
        respai.evaluate("spec.yaml", out="o", accept=[given])
    if given in ("FAIL", Verdict.FAIL):
        assert "FAIL can never be accepted" in str(caught.value)
    assert sorted(work.rglob("*")) == before  # nothing written, no key made


def test_evaluate_fairness_accepts_as_respai_fairness_does(work: Path) -> None:
    import respai

    text = SPEC.replace("max_group_gap: 0.5", "max_group_gap: 0.001").split("evaluation:")[0]
    (work / "tight.yaml").write_text(text, encoding="utf-8")
    assert respai.evaluate_fairness("tight.yaml").exit_code == 3
    accepted = respai.evaluate_fairness("tight.yaml", accept="insufficient_evidence")
    assert (accepted.verdict.value, accepted.exit_code) == ("INSUFFICIENT_EVIDENCE", 0)
    assert accepted.to_dict()["settings"]["accepted"] == ["INSUFFICIENT_EVIDENCE"]
    assert main(["fairness", "tight.yaml", "--accept", "INSUFFICIENT_EVIDENCE"]) == 0
