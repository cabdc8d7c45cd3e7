"""The command line contract: exit codes, stdout/stderr split, the demo."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from respai.cli import main

SAMPLES = Path(__file__).resolve().parent.parent / "src" / "respai" / "samples"


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "respai", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        check=False,
        timeout=120,
    )


def test_fairness_json_goes_to_stdout_and_the_summary_to_stderr() -> None:
    proc = run("fairness", str(SAMPLES / "loan_screen.yaml"), "--json")
    assert proc.returncode == 1  # the sample holds a failing rule
    payload = json.loads(proc.stdout)
    assert payload["verdict"] == "FAIL" and payload["exit_code"] == 1
    assert {r["id"]: r["verdict"] for r in payload["rules"]} == {
        "fnr-by-sex": "INSUFFICIENT_EVIDENCE",
        "fnr-crossed": "FAIL",
        "error-by-age": "INSUFFICIENT_EVIDENCE",
        "selection-by-sex": "PASS",
    }
    assert "verdict: FAIL" in proc.stderr
    assert "per-group table" in proc.stderr


def test_without_json_stdout_is_empty(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["fairness", str(SAMPLES / "loan_screen.yaml")])
    out, err = capsys.readouterr()
    assert code == 1 and out == ""
    assert "fnr-crossed" in err and "left out:" in err and "assumptions" in err


def test_policy_changes_the_exit_code(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    policy = tmp_path / "lenient.yaml"
    policy.write_text(
        "rules:\n  fnr-crossed: {max_group_gap: 1.0}\n"
        "  fnr-by-sex: {max_group_gap: 0.2}\n"
        "  error-by-age: {worst_group: {max: 0.5}}\n"
    )
    code = main(["fairness", str(SAMPLES / "loan_screen.yaml"), "--policy", str(policy)])
    err = " ".join(capsys.readouterr().err.split())  # undo terminal wrapping
    # crossed rule now has a limit of 1.0 but the female x over_60 cell is fine, so
    # every rule passes
    assert code == 0, err
    assert "from policy lenient.yaml sha256:" in err


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["fairness"]) == 2
    assert main(["no-such-command"]) == 2
    assert main(["fairness", "missing.yaml"]) == 2
    err = capsys.readouterr().err
    assert "respai: error: spec file missing.yaml does not exist." in err


def test_help_and_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--help"]) == 0
    assert "Exit codes" in capsys.readouterr().out
    assert main(["--version"]) == 0
    assert "respai, version" in capsys.readouterr().out


def test_demo_writes_its_outputs_and_exits_0(tmp_path: Path) -> None:
    out = tmp_path / "demo-out"
    proc = run("demo", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    names = sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())
    assert names == [
        "fairness.json",
        "fairness.txt",
        "loan_screen.csv",
        "loan_screen.yaml",
        "tables/age_band.csv",
        "tables/sex.csv",
        "tables/sex_age_band.csv",
    ]
    assert f"wrote {out}" in proc.stderr
    payload = json.loads((out / "fairness.json").read_text())
    assert payload["source"] == str(out / "loan_screen.csv")
    # the copied spec re-runs to the same verdict
    again = run("fairness", str(out / "loan_screen.yaml"), "--json")
    assert json.loads(again.stdout)["rules"] == payload["rules"]
    # a second demo into the same folder replaces it
    assert run("demo", "--out", str(out)).returncode == 0


def test_demo_refuses_a_folder_it_did_not_write(tmp_path: Path) -> None:
    (tmp_path / "precious.txt").write_text("keep me")
    proc = run("demo", "--out", str(tmp_path))
    assert proc.returncode == 2
    assert "not an earlier demo output folder" in proc.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["precious.txt"]


def test_exit_code_table() -> None:
    from respai import Verdict

    assert {v.value: v.exit_code for v in Verdict} == {
        "PASS": 0,
        "FAIL": 1,
        "INSUFFICIENT_EVIDENCE": 3,
        "MANUAL_REVIEW": 4,
    }


@pytest.mark.parametrize("target", ["afile", "afile/sub"])
def test_demo_bad_out_is_a_clear_error(
    tmp_path: Path, target: str, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "afile").write_text("x")
    code = main(["demo", "--out", str(tmp_path / target)])
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.startswith("respai: error: ") and "Traceback" not in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile"]


def test_nan_probability_in_a_polars_frame_is_named() -> None:
    import polars as pl

    from respai import InputError, evaluate_fairness

    df = pl.DataFrame({"y": [1, 0], "p": [1, 0], "s": [0.5, float("nan")], "g": ["a", "b"]})
    with pytest.raises(InputError, match="probability column 's'"):
        evaluate_fairness(
            {"label": "y", "prediction": "p", "probability": "s", "attributes": {"g": ["a", "b"]}},
            df,
        )
