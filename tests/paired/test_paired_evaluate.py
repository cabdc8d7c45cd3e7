"""respai evaluate runs the paired: block into the same signed record, which verifies."""

from __future__ import annotations

import base64
import csv
import json
import random
from pathlib import Path

from respai.cli import main

SPEC = """\
system: {name: screener, version: "1.0"}
fairness:
  cases: cases.csv
  label: label
  prediction: prediction
  unit: applicant_id
  attributes:
    sex: [Female, Male]
paired:
  cases: pairs.csv
  pair: pair_id
  variant: variant
  variants: [control, black_name]
  outcome: advanced
  max_difference: 0.05
"""


def _write(folder: Path, b: int, c: int, n: int = 500) -> Path:
    rng = random.Random(3)
    with (folder / "cases.csv").open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["applicant_id", "label", "prediction", "sex"])
        for i in range(400):
            y = int(rng.random() < 0.5)
            w.writerow(
                [f"a{i}", y, y if rng.random() < 0.9 else 1 - y, rng.choice(["Female", "Male"])]
            )
    with (folder / "pairs.csv").open("w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["pair_id", "variant", "advanced"])
        for i in range(n):
            ref, var = (1, 0) if i < b else (0, 1) if i < b + c else (1, 1)
            w.writerow([i, "control", ref])
            w.writerow([i, "black_name", var])
    spec = folder / "spec.yaml"
    spec.write_text(SPEC)
    return spec


def test_evaluate_seals_the_paired_test_and_it_verifies(tmp_path: Path, capsys) -> None:
    spec = _write(tmp_path, b=80, c=5)
    out = tmp_path / "out"
    code = main(["evaluate", str(spec), "--out", str(out), "--json"])
    capsys.readouterr()
    assert code == 1  # the paired gap fails the run
    envelope = json.loads((out / "record.json").read_text())
    predicate = json.loads(base64.b64decode(envelope["payload"]))["predicate"]
    records = predicate["records"]
    paired = [r for r in records if r.get("test_id") == "paired_difference"]
    assert len(paired) == 1 and paired[0]["verdict"] == "FAIL"
    assert paired[0]["test_key"] == "paired_difference:black_name"
    details = paired[0]["details"]
    assert (details["b"], details["c"], details["n_pairs"]) == (80, 5, 500)
    start = next(r for r in records if r["record_type"] == "run_start")
    assert start["paired"]["variants"] == ["control", "black_name"]
    assert predicate["fingerprints"]["paired"]["name"] == "pairs.csv"
    assert main(["verify", str(out / "record.json")]) == 0


def test_a_bad_pairs_file_refuses_the_run_and_writes_nothing(tmp_path: Path, capsys) -> None:
    spec = _write(tmp_path, b=0, c=0)
    (tmp_path / "pairs.csv").write_text("pair_id,variant,advanced\n1,control,7\n")
    before = sorted(p.name for p in tmp_path.iterdir())
    code = main(["evaluate", str(spec), "--out", str(tmp_path / "out")])
    err = capsys.readouterr().err
    assert code == 2 and "'advanced'" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == before
