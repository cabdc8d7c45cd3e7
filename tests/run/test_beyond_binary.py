"""Issue 29 as a whole: decisions, a numeric target and ranked lists, weighted, in one record.

One spec declares ``data.weight``, a ``fairness:`` rule, a ``regression:`` rule and a
``ranking:`` rule over one cases file. One ``respai evaluate`` run seals one record that
verifies; every weighted number in it equals numpy on the raw rows; and the counts and
test records are the same on a CSV file (DuckDB), a pandas frame and Spark.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from tests.ranking.helpers import lists_frame

from respai import api
from respai.blocks import block_named
from respai.cli import main

SPEC = """\
system: {name: beyond-binary, version: "1"}
data: {cases: cases.csv, weight: w}
fairness:
  label: label
  prediction: decision
  attributes: {grp: [a, b]}
  rules: [{id: sel, rate: selection, attribute: grp, max_group_gap: 0.3}]
regression:
  target: target
  prediction: estimate
  rules: [{id: err, metric: mean_error, attribute: grp, max_group_gap: 2.0}]
ranking:
  list: query
  position: pos
  top_k: [5]
  min_cell: 10
  rules: [{id: top5, metric: top_k_rate, k: 5, min_group_ratio: 0.8}]
"""


def _cases(seed: int = 29) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    frame = lists_frame(rng, 80, shares=(0.6, 0.4), weights=True)
    n = len(frame)
    frame["label"] = rng.integers(0, 2, n)
    frame["decision"] = rng.integers(0, 2, n)
    frame["target"] = np.round(rng.normal(50, 10, n), 2)
    frame["estimate"] = np.round(frame["target"] + rng.normal(0.3 * (frame["grp"] == "a"), 3), 2)
    return frame


def _write(folder: Path, frame: pd.DataFrame) -> Path:
    frame.to_csv(folder / "cases.csv", index=False)
    (folder / "spec.yaml").write_text(SPEC)
    return folder / "spec.yaml"


def _predicate(out: Path) -> dict[str, Any]:
    envelope = json.loads((out / "record.json").read_text())
    return json.loads(base64.b64decode(envelope["payload"]))["predicate"]  # type: ignore[no-any-return]


def _by_key(predicate: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {r["test_key"]: r for r in predicate["records"] if "test_key" in r}


def _weighted_mean(values: Any, weights: Any) -> float:
    return float(np.sum(weights * values) / np.sum(weights))


def test_one_run_one_record_every_number_from_the_rows(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    frame = _cases()
    spec = _write(tmp_path, frame)
    out = tmp_path / "out"
    assert main(["evaluate", str(spec), "--out", str(out), "--no-ledger"]) in (0, 1)
    capsys.readouterr()
    predicate = _predicate(out)
    tests = _by_key(predicate)
    assert {"rule:sel", "regression:err", "ranking:top5"} <= set(tests)
    start = next(r for r in predicate["records"] if r["record_type"] == "run_start")
    assert start["weights"]["column"] == "w"
    assert start["regression"]["weights"]["column"] == "w"
    assert start["ranking"]["weights"]["column"] == "w"
    for g, part in frame.groupby("grp"):
        w = part["w"].to_numpy()
        rule_group = next(x for x in tests["rule:sel"]["details"]["groups"] if x["group"] == g)
        assert rule_group["weighted"]["rate"] == pytest.approx(
            _weighted_mean(part["decision"].to_numpy(), w), rel=1e-12
        )
        assert rule_group["cases"] == len(part)  # the unweighted count beside it
        reg_group = next(
            x for x in tests["regression:err"]["details"]["groups"] if x["group"] == g
        )
        error = (part["estimate"] - part["target"]).to_numpy()
        assert reg_group["mean_error"] == pytest.approx(_weighted_mean(error, w), rel=1e-9)
        assert reg_group["unweighted"]["mean_error"] == pytest.approx(error.mean(), rel=1e-9)
        top = next(x for x in tests["ranking:top5"]["details"]["groups"] if x["group"] == g)
        in_top = (part["pos"] <= 5).to_numpy().astype(float)
        assert top["value"] == pytest.approx(_weighted_mean(in_top, w), rel=1e-12)
        assert top["items"] == len(part) and top["lists"] == part["query"].nunique()
    assert main(["verify", str(out / "record.json")]) == 0
    capsys.readouterr()


def _parts(result: Any) -> dict[str, Any]:
    """The record parts (counts, test records, run_start) of the blocks and the weights."""
    out: dict[str, Any] = {"weighted": result.fairness.weighted.counts_dict()}
    for name in ("fairness", "regression", "ranking"):
        parts = block_named(name).record(result.blocks[name])
        out[name] = (parts.counts, [dict(t) for t in parts.tests], parts.run_start)
    return out


def test_the_same_numbers_on_a_file_and_a_frame(tmp_path: Path) -> None:
    frame = _cases(31)
    spec = _write(tmp_path, frame)
    on_file = api.evaluate(str(spec))
    on_frame = api.evaluate(str(spec), data=pd.read_csv(tmp_path / "cases.csv"))
    assert _parts(on_file) == _parts(on_frame)


def test_the_same_numbers_on_spark(tmp_path: Path, spark: Any) -> None:
    frame = _cases(37)
    spec = _write(tmp_path, frame)
    on_file = api.evaluate(str(spec))
    local = pd.read_csv(tmp_path / "cases.csv")
    schema = (
        "query string, grp string, pos long, score double, w double, label long, "
        "decision long, target double, estimate double"
    )
    rows = [tuple(r) for r in local[list(local.columns)].itertuples(index=False)]
    on_spark = api.evaluate(str(spec), data=spark.createDataFrame(rows, schema))
    assert _parts(on_file) == _parts(on_spark)


def test_groups_from_a_joined_self_identification_file(tmp_path: Path) -> None:
    """With data.demographics, regression and ranking read the groups from the joined file."""
    frame = _cases(41)
    frame.insert(0, "id", [f"c{i}" for i in range(len(frame))])
    one = tmp_path / "one"
    one.mkdir()
    whole = api.evaluate(str(_write(one, frame)))
    two = tmp_path / "two"
    two.mkdir()
    frame.drop(columns=["grp"]).to_csv(two / "cases.csv", index=False)
    frame[["id", "grp"]].sample(frac=1.0, random_state=3).to_csv(two / "self_id.csv", index=False)
    joined_spec = SPEC.replace(
        "data: {cases: cases.csv, weight: w}",
        "data: {cases: cases.csv, weight: w, demographics: self_id.csv, join_on: id}",
    )
    (two / "spec.yaml").write_text(joined_spec)
    joined = api.evaluate(str(two / "spec.yaml"))
    for name in ("regression", "ranking"):
        a = block_named(name).record(whole.blocks[name])
        b = block_named(name).record(joined.blocks[name])
        assert a.counts == b.counts
        assert [t["details"] for t in a.tests] == [t["details"] for t in b.tests]


@pytest.mark.parametrize(
    ("column", "value", "words"),
    [
        ("estimate", float("inf"), ["regression prediction column 'estimate'", "inf", "line"]),
        ("target", float("-inf"), ["regression target column 'target'", "-inf", "line"]),
        ("w", -1.0, ["weight column 'w'", "-1", "line"]),
        ("pos", 0, ["position column 'pos'", "'0'", "q"]),
    ],
)
def test_bad_values_are_refused_with_nothing_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], column: str, value: Any, words: list[str]
) -> None:
    frame = _cases(47)
    frame[column] = frame[column].astype(float)
    frame.loc[12, column] = value
    spec = _write(tmp_path, frame)
    out = tmp_path / "out"
    assert main(["evaluate", str(spec), "--out", str(out), "--no-ledger"]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert all(w in err for w in words), err
    assert "Traceback" not in err and not out.exists()
