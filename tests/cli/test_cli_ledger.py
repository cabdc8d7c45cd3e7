"""The ledger through the command line: evaluate appends, log lists, verify, compare."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from respai.cli import main

SPEC = Path(__file__).resolve().parents[2] / "src" / "respai" / "samples" / "loan_screen.yaml"


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("RESPAI_HOME", str(tmp_path / "keys"))
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_runs_chain_into_the_ledger(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["evaluate", str(SPEC), "--out", "o1"]) == 1
    assert main(["evaluate", str(SPEC), "--out", "o2"]) == 1
    capsys.readouterr()
    assert main(["log", "--json"]) == 0
    runs = json.loads(capsys.readouterr().out)["runs"]
    assert len(runs) == 2
    assert main(["verify", "--ledger", ".respai", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["ok"] is True
    # the second run's record verifies on its own, chained after the first
    assert main(["verify", "o2/record.json", "--key", "o1/public_key.pem"]) == 0
    capsys.readouterr()
    assert main(["compare", "-2", "-1", "--json"]) == 0
    diff = json.loads(capsys.readouterr().out)
    assert diff["same_system"] is True
    assert diff["verdict"]["changed"] is False
    assert diff["verdict_changes"] == []


def test_a_dropped_run_is_found(work: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for out in ("o1", "o2", "o3"):
        assert main(["evaluate", str(SPEC), "--out", out]) == 1
    runs = sorted((work / ".respai" / "runs").glob("*.json"))
    runs[1].unlink()
    capsys.readouterr()
    assert main(["verify", "--ledger", ".respai"]) == 1
    err = capsys.readouterr().err
    assert "ledger NOT verified" in err


def test_killing_evaluate_mid_run_leaves_a_verifiable_ledger(work: Path) -> None:
    env = {**os.environ, "RESPAI_HOME": str(work / "keys")}
    cmd = [sys.executable, "-m", "respai", "evaluate", str(SPEC), "--out"]
    first = subprocess.run([*cmd, "o0"], cwd=work, env=env, capture_output=True, check=False)
    assert first.returncode == 1, first.stderr
    for i, delay in enumerate((0.3, 0.8, 1.2, 1.6)):
        proc = subprocess.Popen(
            [*cmd, f"k{i}"],
            cwd=work,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(delay)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    check = subprocess.run(
        [sys.executable, "-m", "respai", "verify", "--ledger", ".respai", "--json"],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert check.returncode == 0, check.stderr
    assert json.loads(check.stdout)["ok"] is True


def test_a_ledger_signed_by_two_keys_verifies_with_both_keys_json(
    work: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Two key folders, one run signed by each, both appended to the same ledger.
    for name in ("a", "b"):
        monkeypatch.setenv("RESPAI_HOME", str(work / name))
        assert main(["evaluate", str(SPEC), "--out", f"o-{name}"]) == 1
    a, b = work / "a" / "keys.json", work / "b" / "keys.json"
    monkeypatch.setenv("RESPAI_HOME", str(work / "nobody"))  # no own keys.json to fall back on
    capsys.readouterr()

    assert main(["verify", "--ledger", ".respai", "--keys", str(a), "--keys", str(b)]) == 0
    assert "(2 key(s))" in capsys.readouterr().err
    both = work / "both.json"
    listed = json.loads(a.read_text())
    listed["keys"] += json.loads(b.read_text())["keys"]
    both.write_text(json.dumps(listed))
    assert main(["verify", "--ledger", ".respai", "--keys", str(both), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["ok"] is True

    # With only a's keys, b's run (the second, seq 1 onward) fails on its signature.
    assert main(["verify", "--ledger", ".respai", "--keys", str(a), "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    failed = [r for r in report["runs"] if not r["ok"]]
    assert len(failed) == 1 and failed[0]["file"] == report["runs"][1]["file"]
    assert any(failed[0]["file"] in p and "failed: signature" in p for p in report["problems"])

    assert main(["verify", "--ledger", ".respai", "--key", "o-a/public_key.pem",
                 "--keys", str(a)]) == 2  # fmt: skip
    err = capsys.readouterr().err
    assert "give --key or --keys, not both" in err and str(a) in err


def test_log_takes_the_ledger_as_an_argument(
    work: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``respai log [DIR]`` as docs/ledger.md shows it; ``--ledger DIR`` still works."""
    assert main(["evaluate", str(SPEC), "--out", "o1", "--ledger", "book"]) == 1
    capsys.readouterr()
    assert main(["log", "book", "--json"]) == 0
    by_argument = json.loads(capsys.readouterr().out)
    assert main(["log", "--ledger", "book", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == by_argument
    assert len(by_argument["runs"]) == 1
    assert main(["log", "book", "--ledger", "other"]) == 2
    assert main(["log", "missing"]) == 2
