"""Output to a file, a pipe or a CI log is never cut at rich's fallback of 80 columns.

``respai fairness`` runs in a subprocess with standard error to a pipe (or a terminal),
on a spec whose group name is 120 characters long with two rules of different verdicts.
"""

from __future__ import annotations

import csv
import fcntl
import os
import pty
import re
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest
import yaml

LONG = ('group "quoted": with colons, ' + "x" * 120)[:120]
assert len(LONG) == 120


def _write(folder: Path) -> Path:
    """Cases with a short and a 120-character group; a rule that passes, one that fails."""
    with (folder / "cases.csv").open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["label", "prediction", "grp"])
        for i in range(600):
            group = LONG if i % 2 else "short"
            label = i % 4 < 2
            # the long group is selected far more often: the selection gap fails
            prediction = label if group == "short" else (i % 5 != 0)
            w.writerow([int(label), int(prediction), group])
    spec = {
        "fairness": {
            "name": "long-names",
            "cases": "cases.csv",
            "label": "label",
            "prediction": "prediction",
            "attributes": {"grp": ["short", LONG]},
            "min_cell": 30,
            "rules": [
                {"id": "error-gap", "rate": "error", "attribute": "grp", "max_group_gap": 0.9},
                {"id": "sel-gap", "rate": "selection", "attribute": "grp", "max_group_gap": 0.05},
            ],
        }
    }
    path = folder / "spec.yaml"
    path.write_text(yaml.safe_dump(spec, sort_keys=False), encoding="utf-8")
    return path


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "FORCE_COLOR")}
    env.update(extra)
    return env


def _fairness(spec: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "respai", "fairness", str(spec)],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env=env,
        cwd=spec.parent,
        check=False,
    )


def _group_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if LONG in line]


def test_a_pipe_gets_full_group_names_and_verdicts(tmp_path: Path) -> None:
    proc = _fairness(_write(tmp_path), _env())
    assert proc.returncode == 1, proc.stderr
    text = proc.stderr
    assert "…" not in text
    lines = text.splitlines()
    assert "verdict: FAIL (exit 1)" in lines
    # every rule's verdict line is whole, on one line
    assert any(
        re.fullmatch(r"PASS  error-gap  error rate by grp, max_group_gap 0\.9", x) for x in lines
    )
    assert any(
        re.fullmatch(r"FAIL  sel-gap  selection rate by grp, max_group_gap 0\.05", x)
        for x in lines
    )
    # the long name, whole, on the same line as its counts: two rule tables, one group table
    rows = _group_lines(text)
    assert len(rows) == 3, text
    for row in rows:
        assert re.search(re.escape(LONG) + r"\s+\d+\s+\d+\s+\S", row), row
    # the per-group table keeps the layout chosen for 80 columns (one line per rate)
    assert sum(1 for x in lines if re.search(r"^\s+FNR\s", x)) == 2


def test_columns_still_wins(tmp_path: Path) -> None:
    proc = _fairness(_write(tmp_path), _env(COLUMNS="80"))
    assert proc.returncode == 1, proc.stderr
    assert _group_lines(proc.stderr) == []  # wrapped at 80, as asked
    assert max(len(x) for x in proc.stderr.splitlines()) <= 80


def test_a_terminal_is_drawn_as_before(tmp_path: Path) -> None:
    spec = _write(tmp_path)
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "respai", "fairness", str(spec)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=follower,
            env=_env(),
            cwd=tmp_path,
        )
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            if not chunk:
                break
            chunks.append(chunk)
        assert proc.wait(timeout=120) == 1
    finally:
        os.close(leader)
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", b"".join(chunks).decode("utf-8"))
    lines = text.replace("\r\n", "\n").splitlines()
    if not lines:
        pytest.fail("nothing was drawn on the terminal")
    assert "verdict: FAIL (exit 1)" in lines
    assert _group_lines(text) == []  # an 80-column terminal wraps the long name
    assert max(len(x) for x in lines) <= 80
