"""respai plan seals criteria without data; evaluate --plan holds a run to them."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
from tests.plan.helpers import POLICY, SPEC, predicate, runs, write_cases, write_spec

from respai.cli import main
from respai.ledger import verify_ledger
from respai.record import KeyRing


def _plan(capsys: pytest.CaptureFixture[str], *args: str) -> dict:
    code = main(["plan", *args, "--json"])
    out = capsys.readouterr().out
    assert code == 0
    return dict(json.loads(out))


def _ring() -> KeyRing:
    return KeyRing.load(Path("keys") / "keys.json")


def test_plan_needs_no_data_file_and_verifies(tmp_path: Path, capsys) -> None:
    spec = write_spec(tmp_path)
    assert not (tmp_path / "cases.csv").exists()
    plan = _plan(capsys, str(spec), "--out", str(tmp_path / "p"))
    assert plan["plan_id"].startswith("sha256:") and len(plan["plan_id"]) == 71
    assert not (tmp_path / "cases.csv").exists()
    record = tmp_path / "p" / "plan.json"
    assert main(["verify", str(record), "--keys", "keys/keys.json"]) == 0
    pred = predicate(record)
    assert pred["kind"] == "respai.plan"
    assert [r["record_type"] for r in pred["records"]] == ["run_start", "run_end"]
    assert "verdict" not in pred
    start = pred["records"][0]
    assert start["plan_id"] == plan["plan_id"]
    # the record's subject is the criteria file written beside it
    criteria = (tmp_path / "p" / "criteria.json").read_bytes()
    import hashlib

    assert pred["fingerprints"]["dataset"]["sha256"] == hashlib.sha256(criteria).hexdigest()
    assert "sha256:" + hashlib.sha256(criteria).hexdigest() == plan["plan_id"]
    assert json.loads(criteria) == start["criteria"]
    (ledger_run,) = runs(Path(".respai"))
    assert verify_ledger(Path(".respai"), _ring()).ok
    assert predicate(ledger_run)["run_id"] == pred["run_id"]


def test_evaluate_with_the_plan_records_it(tmp_path: Path, capsys) -> None:
    spec = write_spec(tmp_path)
    plan = _plan(capsys, str(spec))
    write_cases(tmp_path)
    out = tmp_path / "out"
    code = main(
        ["evaluate", str(spec), "--plan", plan["plan_id"], "--out", str(out), "--json", "-q"]
    )
    printed = json.loads(capsys.readouterr().out)
    assert code in (0, 1, 3, 4)
    ref = {
        "plan_id": plan["plan_id"],
        "timestamp": plan["timestamp"],
        "record_id": plan["record_id"],
    }
    assert printed["plan"] == ref
    assert predicate(out / "record.json")["records"][0]["plan"] == ref
    assert main(["verify", str(out / "record.json"), "--keys", "keys/keys.json"]) == 0
    assert verify_ledger(Path(".respai"), _ring()).ok
    html = (out / "report.html").read_text()
    assert "Criteria registered" in html


@pytest.mark.parametrize(
    ("edit", "named"),
    [
        (
            ("max_group_gap: 0.1", "max_group_gap: 0.2"),
            "fairness.rules[fnr-by-sex].max_group_gap: planned 0.1, now 0.2",
        ),
        (("  alpha: 0.05\n", "  alpha: 0.01\n"), "fairness.alpha: planned 0.05, now 0.01"),
        (("    sex: [F, M]\n", "    sex: [F, M, X]\n"), "fairness.attributes[sex]"),
    ],
)
def test_evaluate_refuses_a_changed_criterion_and_writes_nothing(
    tmp_path: Path, capsys, edit: tuple[str, str], named: str
) -> None:
    spec = write_spec(tmp_path)
    plan = _plan(capsys, str(spec))
    write_cases(tmp_path)
    assert edit[0] in SPEC
    write_spec(tmp_path, SPEC.replace(*edit))
    before = runs(Path(".respai"))
    out = tmp_path / "out"
    code = main(["evaluate", str(spec), "--plan", plan["plan_id"], "--out", str(out), "--json"])
    captured = capsys.readouterr()
    assert code == 2
    assert named in captured.err
    assert captured.out == ""
    assert not out.exists()
    assert runs(Path(".respai")) == before


def test_a_changed_policy_is_refused(tmp_path: Path, capsys) -> None:
    spec = write_spec(tmp_path)
    plan = _plan(capsys, str(spec))
    write_cases(tmp_path)
    (tmp_path / "policy.yaml").write_text(POLICY)
    code = main(
        [
            "evaluate",
            str(spec),
            "--plan",
            plan["plan_id"],
            "--policy",
            str(tmp_path / "policy.yaml"),
        ]
    )
    err = capsys.readouterr().err
    assert code == 2
    assert "fairness.rules[fnr-by-sex].max_group_gap: planned 0.1, now 0.08" in err
    assert "policy: planned none" in err


def test_a_plan_sealed_with_the_policy_passes_with_it(tmp_path: Path, capsys) -> None:
    spec = write_spec(tmp_path)
    (tmp_path / "policy.yaml").write_text(POLICY)
    plan = _plan(capsys, str(spec), "--policy", str(tmp_path / "policy.yaml"))
    write_cases(tmp_path)
    code = main(
        [
            "evaluate",
            str(spec),
            "--plan",
            plan["plan_id"],
            "--policy",
            str(tmp_path / "policy.yaml"),
            "-q",
        ]
    )
    assert code != 2, capsys.readouterr().err


def test_an_unknown_plan_id_is_refused(tmp_path: Path, capsys) -> None:
    spec = write_spec(tmp_path)
    _plan(capsys, str(spec))
    write_cases(tmp_path)
    code = main(
        ["evaluate", str(spec), "--plan", "sha256:" + "0" * 64, "--out", str(tmp_path / "o")]
    )
    assert code == 2
    assert "is not in the ledger" in capsys.readouterr().err
    assert not (tmp_path / "o").exists()


def _tamper(run_file: Path) -> None:
    """Raise the planned threshold inside the signed payload (the signature then fails)."""
    env = json.loads(run_file.read_text())
    statement = json.loads(base64.b64decode(env["payload"]))
    statement["predicate"]["records"][0]["criteria"]["fairness"]["rules"]["fnr-by-sex"][
        "max_group_gap"
    ] = 0.2
    env["payload"] = base64.b64encode(json.dumps(statement).encode()).decode()
    run_file.write_text(json.dumps(env))


def test_a_tampered_plan_is_refused(tmp_path: Path, capsys) -> None:
    spec = write_spec(tmp_path)
    plan = _plan(capsys, str(spec))
    write_cases(tmp_path)
    (run_file,) = runs(Path(".respai"))
    _tamper(run_file)
    write_spec(tmp_path, SPEC.replace("max_group_gap: 0.1", "max_group_gap: 0.2"))
    code = main(["evaluate", str(spec), "--plan", plan["plan_id"], "--out", str(tmp_path / "o")])
    err = capsys.readouterr().err
    assert code == 2
    assert run_file.name in err and "does not verify" in err
    assert not (tmp_path / "o").exists()


def test_without_plan_the_run_says_whether_it_matches_the_newest_plan(
    tmp_path: Path, capsys
) -> None:
    spec = write_spec(tmp_path)
    plan = _plan(capsys, str(spec))
    write_cases(tmp_path)
    main(["evaluate", str(spec), "--out", str(tmp_path / "same"), "--json", "-q"])
    same = json.loads(capsys.readouterr().out)["plan_check"]
    assert same["matches"] is True and same["changed"] == [] and same["plan_id"] == plan["plan_id"]
    write_spec(tmp_path, SPEC.replace("max_group_gap: 0.1", "max_group_gap: 0.2"))
    main(["evaluate", str(spec), "--out", str(tmp_path / "other"), "--json", "-q"])
    captured = capsys.readouterr()
    other = json.loads(captured.out)["plan_check"]
    assert other["matches"] is False
    assert other["changed"] == ["fairness.rules[fnr-by-sex].max_group_gap: planned 0.1, now 0.2"]
    assert predicate(tmp_path / "other" / "record.json")["records"][0]["plan_check"] == other
    assert "differ from the newest plan" in captured.err


def test_plan_needs_the_ledger_for_evaluate(tmp_path: Path, capsys) -> None:
    spec = write_spec(tmp_path)
    plan = _plan(capsys, str(spec))
    write_cases(tmp_path)
    code = main(["evaluate", str(spec), "--plan", plan["plan_id"], "--no-ledger"])
    assert code == 2
    assert "--no-ledger" in capsys.readouterr().err


def test_a_bad_spec_or_out_writes_no_plan(tmp_path: Path, capsys) -> None:
    spec = write_spec(tmp_path, SPEC.replace("  flag_rule:", "  flag_rules:"))
    assert main(["plan", str(spec)]) == 2
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "mine.txt").write_text("keep")
    spec = write_spec(tmp_path)
    assert main(["plan", str(spec), "--out", str(tmp_path / "busy")]) == 2
    capsys.readouterr()
    assert not Path(".respai").exists()
    assert not Path("keys").exists()


def test_verify_ledger_flags_a_run_whose_plan_is_missing(tmp_path: Path, capsys) -> None:
    import dataclasses

    from respai.run.evaluation import run_evaluation as evaluate
    from respai.run.seal import seal_evaluation
    from respai.sealing import signing_key

    spec = write_spec(tmp_path)
    write_cases(tmp_path)
    sk = signing_key(None)
    missing = {
        "plan_id": "sha256:" + "ab" * 32,
        "timestamp": "2026-01-01T00:00:00Z",
        "record_id": "sha256:" + "cd" * 32,
    }
    result = dataclasses.replace(evaluate(spec), plan=missing)
    ledger = tmp_path / "ledger"
    seal_evaluation(result, sk, out=tmp_path / "o", summary="", ledger=ledger)
    report = verify_ledger(ledger, _ring())
    assert not report.ok
    (problem,) = report.problems
    assert missing["plan_id"] in problem and "not a plan run earlier in the ledger" in problem
    assert main(["verify", "--ledger", str(ledger), "--keys", "keys/keys.json"]) == 1
    assert "not a plan run earlier" in capsys.readouterr().err


def test_verify_ledger_flags_a_plan_reference_with_the_wrong_record_id(
    tmp_path: Path, capsys
) -> None:
    import dataclasses

    from respai.run.evaluation import run_evaluation as evaluate
    from respai.run.seal import seal_evaluation
    from respai.sealing import signing_key

    spec = write_spec(tmp_path)
    plan = _plan(capsys, str(spec))
    write_cases(tmp_path)
    wrong = {
        "plan_id": plan["plan_id"],
        "timestamp": plan["timestamp"],
        "record_id": "sha256:" + "cd" * 32,
    }
    result = dataclasses.replace(evaluate(spec), plan=wrong)
    seal_evaluation(
        result, signing_key(None), out=tmp_path / "o", summary="", ledger=Path(".respai")
    )
    (problem,) = verify_ledger(Path(".respai"), _ring()).problems
    assert "that plan's run_start record is " + plan["record_id"] in problem
