"""``respai verify RECORD --data FILE [--spec SPEC]``: the record describes that file.

The expected digest is computed here with :mod:`hashlib` over the file's bytes, and the
expected counts with pandas from the file's rows, not with respai's fingerprint or count
code.
"""

from __future__ import annotations

import base64
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
    assert "its counts were not recomputed (add --spec to recount)" in proc.stderr


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


def test_a_folder_holding_a_pipe_fails_the_data_check_unread(signed: Path) -> None:
    # a folder's fingerprint covers every file in it: one that cannot be read as a file
    # (here a pipe named like a part file) is named, never waited on, and the record
    # does not describe that folder (exit 1 under verify)
    folder = signed / "parts"
    folder.mkdir()
    (folder / "part-0.csv").write_bytes((signed / "cases.csv").read_bytes())
    os.mkfifo(folder / "part-1.pyc")
    proc = _run(signed, "verify", "ev/record.json", "--data", "parts")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert "holds part-1.pyc, which is not a regular file" in proc.stderr
    assert "FAIL  data:" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_a_record_that_does_not_verify_is_not_compared(signed: Path) -> None:
    envelope = json.loads((signed / "ev" / "record.json").read_text())
    envelope["signatures"][0]["sig"] = envelope["signatures"][0]["sig"][::-1]
    (signed / "bad.json").write_text(json.dumps(envelope))
    proc = _run(signed, "verify", "bad.json", "--data", "cases.csv")
    assert proc.returncode == 1
    assert "not compared: the record does not verify" in proc.stderr


def pandas_cube(path: Path) -> dict[str, int]:
    """The record's count names, counted with pandas from the file's rows."""
    df = pd.read_csv(path)
    out = {"cases": len(df)}

    def cell(part: pd.DataFrame) -> dict[str, int]:
        y, p = part["y"], part["p"]
        return {
            "tp": int(((y == 1) & (p == 1)).sum()),
            "fp": int(((y == 0) & (p == 1)).sum()),
            "tn": int(((y == 0) & (p == 0)).sum()),
            "fn": int(((y == 1) & (p == 0)).sum()),
            "missing_prediction_label_1": int(((y == 1) & p.isna()).sum()),
            "missing_prediction_label_0": int(((y == 0) & p.isna()).sum()),
        }

    out.update({f"overall.{k}": v for k, v in cell(df).items()})
    for sex in ("Female", "Male"):
        out.update({f"groupings.sex[{sex}].{k}": v for k, v in cell(df[df.sex == sex]).items()})
    return out


def test_the_record_counts_equal_a_pandas_count(signed: Path) -> None:
    from respai.recount import count_cube

    assert count_cube(predicate_of(signed)["counts"]) == pandas_cube(signed / "cases.csv")


def predicate_of(folder: Path) -> dict[str, object]:
    envelope = json.loads((folder / "ev" / "record.json").read_text())
    return json.loads(base64.b64decode(envelope["payload"]))["predicate"]  # type: ignore[no-any-return]


def test_recount_names_a_count_only_one_side_has(signed: Path) -> None:
    from respai.recount import recount

    predicate = predicate_of(signed)
    counts = predicate["counts"]
    assert isinstance(counts, dict)
    counts["groupings"]["sex"]["groups"][0]["tp"] += 1  # a doctored count
    counts["groupings"]["sex"]["left_out"] = {"not_declared": 2}  # one the data lacks
    done = recount(predicate, signed / "spec.yaml", signed / "cases.csv")
    first = counts["groupings"]["sex"]["groups"][0]
    label = first["key"][0]
    assert done.same_spec and not done.ok
    assert done.differences == (
        "groupings.sex.left_out.not_declared: record 2, data -",
        f"groupings.sex[{label}].tp: record {first['tp']}, data {first['tp'] - 1}",
    )


def test_with_the_spec_every_count_is_recounted(signed: Path) -> None:
    proc = _run(
        signed, "verify", "ev/record.json", "--data", "cases.csv", "--spec", "spec.yaml", "--json"
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    doc = json.loads(proc.stdout)
    assert validate_output("verify", doc) == []
    spec_digest = hashlib.sha256((signed / "spec.yaml").read_bytes()).hexdigest()
    assert doc["counts"] == {
        "spec_sha256": spec_digest,
        "record_spec_sha256": spec_digest,
        "compared": len(pandas_cube(signed / "cases.csv")),
        "differences": [],
        "ok": True,
    }
    assert "ok    counts: all" in proc.stderr
    assert "with the same counts" in proc.stderr


def test_a_recount_of_other_cases_lists_every_count_that_differs(signed: Path) -> None:
    df = pd.read_csv(signed / "cases.csv")
    df.loc[0, "p"] = 1 - df.loc[0, "p"]  # one prediction flipped
    df.to_csv(signed / "flipped.csv", index=False)
    old, new = pandas_cube(signed / "cases.csv"), pandas_cube(signed / "flipped.csv")
    want = [f"{k}: record {old[k]}, data {new[k]}" for k in sorted(old) if old[k] != new[k]]
    assert len(want) == 4  # the group's two cells and the overall two
    proc = _run(
        signed,
        "verify",
        "ev/record.json",
        "--data",
        "flipped.csv",
        "--spec",
        "spec.yaml",
        "--json",
    )
    assert proc.returncode == 1
    doc = json.loads(proc.stdout)
    assert validate_output("verify", doc) == []
    assert doc["failed"] == ["data", "counts"]
    assert doc["counts"]["differences"] == want
    for line in want:
        assert line in proc.stderr


def test_a_recount_under_another_spec_is_refused(signed: Path) -> None:
    other = signed / "other.yaml"
    other.write_text(SPEC.replace("max_group_gap: 0.5", "max_group_gap: 0.4"), encoding="utf-8")
    proc = _run(signed, "verify", "ev/record.json", "--data", "cases.csv", "--spec", "other.yaml")
    assert proc.returncode == 1
    mine = hashlib.sha256(other.read_bytes()).hexdigest()
    theirs = hashlib.sha256((signed / "spec.yaml").read_bytes()).hexdigest()
    line = next(x for x in proc.stderr.splitlines() if x.startswith("FAIL  counts:"))
    assert mine in line and theirs in line and "not recounted" in line


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("ev/record.json", "--data", "nope.csv"), "--data nope.csv does not exist"),
        (("--ledger", "book", "--data", "cases.csv"), "does not go with --ledger"),
        (("ev/record.json", "--spec", "spec.yaml"), "give --data too"),
        (("ev/record.json", "--data", "cases.csv", "--spec", "nope.yaml"), "not a file"),
    ],
)
def test_bad_data_arguments_exit_2(signed: Path, args: tuple[str, ...], needle: str) -> None:
    proc = _run(signed, "verify", *args)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert needle in proc.stderr
    assert "Traceback" not in proc.stderr
