"""A reader that closes the pipe early never makes a run read as a verdict.

``respai fairness ... | head -2`` used to exit 1 (FAIL) whatever the verdict: click and
rich both turn a closed pipe into exit 1. Now the run ends quietly with 141 (128 +
SIGPIPE), the code a shell gives a program a closed pipe stopped.
"""

from __future__ import annotations

import csv
import os
import subprocess
import sys
from pathlib import Path

import pytest

from respai.cli.app import EXIT_BROKEN_PIPE

VERDICT_CODES = {0, 1, 3, 4}


@pytest.fixture
def spec(tmp_path: Path) -> Path:
    with (tmp_path / "cases.csv").open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["label", "prediction", "sex"])
        for i in range(300):  # equal rates: the verdict is PASS (exit 0), not 1
            w.writerow([i % 2, (i // 4) % 2, "f" if i % 4 < 2 else "m"])
    path = tmp_path / "spec.yaml"
    path.write_text(
        "fairness:\n  cases: cases.csv\n  label: label\n  prediction: prediction\n"
        "  attributes: {sex: [f, m]}\n"
        "  rules:\n    - {id: sel, rate: selection, attribute: sex, max_group_gap: 0.5}\n",
        encoding="utf-8",
    )
    return path


def _run_with_closed(stream: str, *args: str) -> tuple[int, bytes]:
    """Run respai with ``stream``'s reader closed before the child writes anything."""
    pipes = {"stdout": subprocess.PIPE, "stderr": subprocess.PIPE}
    proc = subprocess.Popen(
        [sys.executable, "-m", "respai", *args], **pipes, env={**os.environ, "COLUMNS": "80"}
    )
    closed, kept = (proc.stdout, proc.stderr) if stream == "stdout" else (proc.stderr, proc.stdout)
    assert closed is not None and kept is not None
    closed.close()
    with kept:
        other = kept.read()
    return proc.wait(timeout=120), other


def test_the_run_exits_with_its_verdict_when_nothing_is_closed(spec: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "respai", "fairness", str(spec), "-q", "--json"],
        capture_output=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr  # the reference: PASS


@pytest.mark.parametrize("stream", ["stdout", "stderr"])
def test_a_closed_pipe_exits_141_not_a_verdict(spec: Path, stream: str) -> None:
    code, other = _run_with_closed(stream, "fairness", str(spec), "-q", "--json")
    assert code == EXIT_BROKEN_PIPE == 141
    assert code not in VERDICT_CODES
    if stream == "stdout":  # stderr still works: no traceback, no "Exception ignored"
        assert b"Traceback" not in other and b"Exception ignored" not in other
        assert b"internal error" not in other


def test_a_closed_pipe_on_export_to_stdout_is_141_too(tmp_path: Path, spec: Path) -> None:
    env = {**os.environ, "RESPAI_HOME": str(tmp_path / "keys")}
    sealed = subprocess.run(
        [
            sys.executable,
            "-m",
            "respai",
            "evaluate",
            str(spec),
            "--out",
            str(tmp_path / "o"),
            "--no-ledger",
            "-q",
        ],
        capture_output=True,
        env=env,
        check=False,
    )
    assert sealed.returncode in VERDICT_CODES, sealed.stderr
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "respai",
            "export",
            str(tmp_path / "o" / "record.json"),
            "--format",
            "junit",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()
    with proc.stderr:
        err = proc.stderr.read()
    assert proc.wait(timeout=120) == 141, err
    assert b"Traceback" not in err
