"""respai evaluate runs regression: into the one signed record; bad values exit 2."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from respai.cli import main

SPEC = """\
system: {name: pricer, version: "1.0"}
data:
  cases: cases.csv
  weight: w
fairness:
  label: label
  prediction: decision
  attributes:
    sex: [f, m]
regression:
  target: y
  prediction: p
  attributes:
    sex: [f, m]
    age: [young, old]
  decimals: 3
  bounds: {target: [0, 100], prediction: [0, 100]}
  rules:
    - {id: mae_gap, metric: mean_absolute_error, attribute: sex, max_group_gap: 3}
    - {id: bias, metric: mean_error, attribute: [sex, age], worst_group: {max: 5}}
    - {id: level, metric: mean_prediction, attribute: age, worst_group: {min: 10}}
"""


def frame(n: int = 1200, seed: int = 0) -> pd.DataFrame:
    """Cases with a binary decision for fairness:, a numeric target and prediction, weights."""
    rng = np.random.default_rng(seed)
    y = np.round(rng.uniform(20, 80, n), 3)
    p = np.round(np.clip(y + rng.normal(0, 2, n), 0, 100), 3)
    out = pd.DataFrame(
        {
            "sex": rng.choice(["f", "m"], n),
            "age": rng.choice(["young", "old", ""], n, p=[0.5, 0.48, 0.02]),
            "y": y,
            "p": p,
            "label": (y > 50).astype(int),
            "decision": (p > 50).astype(int),
            "w": np.round(rng.uniform(0.5, 2.0, n), 3),
        }
    )
    out.loc[out.index[:5], "p"] = np.nan
    return out


def write(folder: Path, data: pd.DataFrame | None = None, spec: str = SPEC) -> Path:
    """The cases file and the spec in ``folder``."""
    (data if data is not None else frame()).to_csv(folder / "cases.csv", index=False)
    path = folder / "spec.yaml"
    path.write_text(spec)
    return path


def predicate(out: Path) -> dict[str, Any]:
    """The signed record's predicate."""
    envelope = json.loads((out / "record.json").read_text())
    found: dict[str, Any] = json.loads(base64.b64decode(envelope["payload"]))["predicate"]
    return found


def test_evaluate_seals_the_regression_rules_and_it_verifies(tmp_path: Path, capsys) -> None:
    """One run: the rules' test records, run_start and counts parts; the record verifies."""
    spec = write(tmp_path)
    out = tmp_path / "out"
    main(["evaluate", str(spec), "--out", str(out), "--no-ledger", "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert doc["regression"]["kind"] == "respai.regression"
    from respai.schemas import validate_output

    assert validate_output("evaluate", doc) == []
    pred = predicate(out)
    tests = [r for r in pred["records"] if r.get("test_id") == "regression_rule"]
    assert [t["test_key"] for t in tests] == [
        "regression:mae_gap",
        "regression:bias",
        "regression:level",
    ]
    start = next(r for r in pred["records"] if r["record_type"] == "run_start")
    part = start["regression"]
    assert part["decimals"] == 3 and part["interval_method"].startswith("weighted t")
    w = part["weights"]
    data = frame()
    assert w["column"] == "w" and w["n"] == int(data["p"].notna().sum())
    units = np.floor(data.loc[data["p"].notna(), "w"] * 1000 + 0.5).astype(np.int64)
    assert w["sum"] == int(units.sum()) and w["sum_squares"] == int((units**2).sum())
    assert pred["counts"]["regression"]["decimals"] == 3
    bias = tests[1]["details"]
    assert len(bias["groups"]) == 4 and bias["left_out"]["empty_group"] > 0
    assert "weighted" in " ".join(pred["caveats"])
    assert main(["verify", str(out / "record.json")]) == 0


def test_the_record_numbers_recompute_from_its_counts(tmp_path: Path, capsys) -> None:
    """A verifier's recomputation from counts.regression gives every rule's numbers."""
    from respai.regression.audit import cells_from_counts, evaluate_counts
    from respai.regression.seal import regression_tests
    from respai.spec import load_spec

    spec = write(tmp_path)
    out = tmp_path / "out"
    main(["evaluate", str(spec), "--out", str(out), "--no-ledger"])
    capsys.readouterr()
    pred = predicate(out)
    start = next(r for r in pred["records"] if r["record_type"] == "run_start")["regression"]
    block = load_spec(spec).blocks["regression"]
    again = evaluate_counts(
        block,
        cells_from_counts(pred["counts"]["regression"]),
        alpha=start["alpha"],
        max_missing=start["max_missing"],
        weight=start["weights"]["column"],
    )
    recorded = [r for r in pred["records"] if r.get("test_id") == "regression_rule"]
    for mine, theirs in zip(regression_tests(again), recorded, strict=True):
        assert json.loads(json.dumps(mine["details"])) == theirs["details"]
        assert (mine["value"], mine["verdict"]) == (theirs["value"], theirs["verdict"])


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda d: d.assign(p=d["p"].where(d.index != 7, 120.5)), ["'p'", "120.5", "line 9"]),
        (lambda d: d.assign(w=d["w"].where(d.index != 3, -1.0)), ["'w'", "-1", "line 5"]),
        (lambda d: d.rename(columns={"y": "yy"}), ["no column 'y'", "regression.target"]),
        (lambda d: d.assign(y=d["y"].where(d.index != 2, 1e13)), ["beyond", "decimals"]),
    ],
)
def test_bad_values_exit_2_and_name_them(
    tmp_path: Path, capsys, change: Any, words: list[str]
) -> None:
    """A value outside the bounds, a negative weight, a missing column: one clear error."""
    spec = write(tmp_path, change(frame()))
    code = main(["evaluate", str(spec), "--out", str(tmp_path / "out"), "--no-ledger"])
    err = capsys.readouterr().err
    assert code == 2
    for w in words:
        assert w in err, err
    assert not (tmp_path / "out" / "record.json").exists()


def test_exports_file_the_rules_under_their_suite(tmp_path: Path, capsys) -> None:
    """JUnit: suite respai.regression, one case per rule; CycloneDX: each group's metric."""
    spec = write(tmp_path)
    out = tmp_path / "out"
    main(["evaluate", str(spec), "--out", str(out), "--no-ledger"])
    capsys.readouterr()
    main(["export", str(out / "record.json"), "--format", "junit"])
    junit = capsys.readouterr().out
    assert '<testsuite name="respai.regression" tests="3"' in junit
    assert "Regression rule mae_gap (mean_absolute_error)" in junit
    main(["export", str(out / "record.json"), "--format", "cyclonedx"])
    bom = capsys.readouterr().out
    assert "regression mean absolute error" in bom and "regression rule bias" in bom
