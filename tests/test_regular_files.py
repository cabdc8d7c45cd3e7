"""Only regular files are read: a FIFO or a device named as a spec, policy, model or cases
file is refused at once (exit 2), never waited on."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

SAMPLE = Path(__file__).resolve().parent.parent / "src" / "respai" / "samples"


def _run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "RESPAI_HOME": str(cwd / "keys")}
    return subprocess.run(
        [sys.executable, "-m", "respai", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def _spec(folder: Path, **changes: str) -> Path:
    text = (SAMPLE / "loan_screen.yaml").read_text(encoding="utf-8")
    text = text.replace("cases: loan_screen.csv", f"cases: {SAMPLE / 'loan_screen.csv'}")
    for old, new in changes.items():
        text = text.replace(old, new)
    path = folder / "spec.yaml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_a_spec_that_is_no_regular_file_is_refused(tmp_path: Path, kind: str) -> None:
    target = tmp_path / "spec.yaml"
    if kind == "fifo":
        os.mkfifo(target)
    else:
        target.symlink_to("/dev/zero")
    proc = _run("fairness", str(target), cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert "not a regular file" in proc.stderr


def test_a_policy_that_is_a_fifo_is_refused(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "policy.yaml")
    proc = _run("fairness", str(_spec(tmp_path)), "--policy", "policy.yaml", cwd=tmp_path)
    assert proc.returncode == 2 and "not a regular file" in proc.stderr


def test_a_model_that_is_a_fifo_is_refused(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "model.onnx")
    spec = _spec(tmp_path)
    spec.write_text(
        spec.read_text(encoding="utf-8")
        + "evaluation:\n  model: model.onnx\n  features: [score]\n",
        encoding="utf-8",
    )
    proc = _run("evaluate", str(spec), "--out", "out", cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr
    assert "not a regular file" in proc.stderr
    assert not (tmp_path / "out").exists() and not (tmp_path / ".respai").exists()


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_a_cases_file_that_is_no_regular_file_is_refused(tmp_path: Path, kind: str) -> None:
    target = tmp_path / "cases.csv"
    if kind == "fifo":
        os.mkfifo(target)
    else:
        target.symlink_to("/dev/zero")
    spec = _spec(tmp_path, **{str(SAMPLE / "loan_screen.csv"): str(target)})
    proc = _run("fairness", str(spec), cwd=tmp_path)
    assert proc.returncode == 2, proc.stderr


def test_a_keys_json_that_is_a_fifo_is_refused(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "keys.json")
    proc = _run("verify", "--ledger", str(tmp_path), "--keys", "keys.json", cwd=tmp_path)
    assert proc.returncode == 2 and "not a regular file" in proc.stderr


def test_a_public_key_that_is_a_fifo_is_refused(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "key.pem")
    (tmp_path / "record.json").write_text("{}", encoding="utf-8")
    proc = _run("verify", "record.json", "--key", "key.pem", cwd=tmp_path)
    assert proc.returncode == 2 and "not a regular file" in proc.stderr
