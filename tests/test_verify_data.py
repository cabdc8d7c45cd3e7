"""``respai verify RECORD --data FILE``: the record must describe exactly that file.

The expected digest is computed here with :mod:`hashlib` over the file's bytes, not with
respai's fingerprint code.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from respai.schemas import validate_output

SPEC = """\
system: {name: verify-data, version: "1"}
data:
  cases: cases.csv
  id: id
  source: test
  explanation: generated for the test
fairness:
  label: y
  prediction: p
  attributes: {sex: [Female, Male]}
  rules:
    - {id: sel, rate: selection, attribute: sex, max_group_gap: 0.5}
"""


def _run(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "respai", *args],
        capture_output=True,
        text=True,
        cwd=folder,
        check=False,
        timeout=300,
        env={**os.environ, "RESPAI_HOME": str(folder / "keys")},
    )


@pytest.fixture(scope="module")
def signed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("verify-data")
    rng = np.random.default_rng(3)
    n = 120
    y = rng.integers(0, 2, n)
    pd.DataFrame(
        {
            "id": [f"c{i}" for i in range(n)],
            "y": y,
            "p": np.where(rng.random(n) < 0.8, y, 1 - y),
            "sex": rng.choice(["Female", "Male"], n),
        }
    ).to_csv(folder / "cases.csv", index=False)
    (folder / "spec.yaml").write_text(SPEC, encoding="utf-8")
    proc = _run(folder, "evaluate", "spec.yaml", "--out", "ev", "--no-ledger")
    assert proc.returncode in (0, 1, 3, 4), proc.stderr
    assert (folder / "ev" / "record.json").is_file()
    return folder


def test_the_file_the_run_read_matches(signed: Path) -> None:
    digest = hashlib.sha256((signed / "cases.csv").read_bytes()).hexdigest()
    proc = _run(signed, "verify", "ev/record.json", "--data", "cases.csv", "--json")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    doc = json.loads(proc.stdout)
    assert validate_output("verify", doc) == []
    assert doc["ok"] is True and doc["failed"] == []
    assert doc["data"] == {
        "file": "cases.csv",
        "sha256": digest,
        "record_sha256": digest,
        "matches": True,
    }
    assert f"ok    data: cases.csv has sha256 {digest}" in proc.stderr
    assert "its counts were not recomputed" in proc.stderr


def test_a_changed_file_names_both_digests_and_exits_1(signed: Path) -> None:
    want = hashlib.sha256((signed / "cases.csv").read_bytes()).hexdigest()
    changed = signed / "changed.csv"
    body = (signed / "cases.csv").read_text().splitlines(keepends=True)
    changed.write_text("".join(body[:-1]))  # one case fewer
    got = hashlib.sha256(changed.read_bytes()).hexdigest()
    proc = _run(signed, "verify", "ev/record.json", "--data", "changed.csv", "--json")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    doc = json.loads(proc.stdout)
    assert validate_output("verify", doc) == []
    assert doc["ok"] is False and doc["failed"] == ["data"]
    assert doc["data"]["matches"] is False
    assert (doc["data"]["sha256"], doc["data"]["record_sha256"]) == (got, want)
    line = next(x for x in proc.stderr.splitlines() if x.startswith("FAIL  data:"))
    assert got in line and want in line
    assert "NOT verified (failed: data)" in proc.stderr
    # every check of the record itself still passed
    assert all(c["ok"] for c in doc["checks"])


def test_a_record_that_does_not_verify_is_not_compared(signed: Path) -> None:
    envelope = json.loads((signed / "ev" / "record.json").read_text())
    envelope["signatures"][0]["sig"] = envelope["signatures"][0]["sig"][::-1]
    (signed / "bad.json").write_text(json.dumps(envelope))
    proc = _run(signed, "verify", "bad.json", "--data", "cases.csv")
    assert proc.returncode == 1
    assert "not compared: the record does not verify" in proc.stderr


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("ev/record.json", "--data", "nope.csv"), "--data nope.csv does not exist"),
        (("--ledger", "book", "--data", "cases.csv"), "does not go with --ledger"),
    ],
)
def test_bad_data_arguments_exit_2(signed: Path, args: tuple[str, ...], needle: str) -> None:
    proc = _run(signed, "verify", *args)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert needle in proc.stderr
    assert "Traceback" not in proc.stderr
