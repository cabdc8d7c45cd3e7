"""respai evaluate runs the ranking: block into the same signed record, on every engine."""

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
from respai.cli import main
from respai.errors import SpecError
from respai.ranking.audit import recompute
from respai.ranking.spec import declared_ranking
from respai.spec import load_spec, parse_spec

SPEC = """\
system: {name: search, version: "2.1"}
data:
  cases: cases.csv
  weight: w
fairness:
  label: y
  prediction: p
  attributes:
    grp: [a, b]
ranking:
  list: query
  position: pos
  top_k: [5, 10]
  decimals: 4
  min_cell: 10
  rules:
    - {id: top5, metric: top_k_rate, k: 5, min_group_ratio: 0.8}
    - {id: exposure, metric: exposure_ratio, worst_group: {min: 0.8}}
"""


def _frame(n_lists: int = 60, bias: float = 0.0) -> pd.DataFrame:
    frame = lists_frame(
        np.random.default_rng(4), n_lists, shares=(0.6, 0.4), bias=bias, weights=True
    )
    rng = np.random.default_rng(5)
    frame["y"] = rng.integers(0, 2, len(frame))
    frame["p"] = rng.integers(0, 2, len(frame))
    return frame


def _write(folder: Path, frame: pd.DataFrame, spec: str = SPEC) -> Path:
    frame.to_csv(folder / "cases.csv", index=False)
    (folder / "spec.yaml").write_text(spec)
    return folder / "spec.yaml"


def _predicate(out: Path) -> dict[str, Any]:
    envelope = json.loads((out / "record.json").read_text())
    return json.loads(base64.b64decode(envelope["payload"]))["predicate"]  # type: ignore[no-any-return]


def test_evaluate_seals_the_ranking_rules_and_it_verifies(tmp_path: Path, capsys) -> None:
    """One run, one signed record: the rules' test records, counts and run_start parts."""
    spec = _write(tmp_path, _frame())
    out = tmp_path / "out"
    main(["evaluate", str(spec), "--out", str(out), "--no-ledger"])
    capsys.readouterr()
    predicate = _predicate(out)
    records = predicate["records"]
    rules = [r for r in records if r.get("test_id") == "ranking_rule"]
    assert [r["test_key"] for r in rules] == ["ranking:top5", "ranking:exposure"]
    start = next(r for r in records if r["record_type"] == "run_start")
    weights = start["ranking"]["weights"]
    assert (
        weights["column"] == "w"
        and weights["decimals"] == 4
        and weights["n"] == 1 * len(pd.read_csv(tmp_path / "cases.csv"))
    )
    counts = predicate["counts"]["ranking"]
    assert counts["decimals"] == 4 and set(counts["attributes"]["grp"]["groups"]) == {
        "count",
        "weight",
    }
    # a verifier recomputes every number from the record's counts
    block = declared_ranking(load_spec(spec))
    assert block is not None
    again = recompute(counts, block, rules[0]["details"]["alpha"])
    for rec, rr in zip(rules, again, strict=True):
        assert rec["verdict"] == rr.verdict.value
        assert rec["details"]["groups"] == [g.to_dict() for g in rr.groups]
    assert main(["verify", str(out / "record.json")]) == 0


def test_bad_position_refuses_the_run_and_writes_nothing(tmp_path: Path, capsys) -> None:
    """A repeated position: exit 2, one paragraph naming the list, nothing written."""
    frame = _frame(5)
    frame.loc[1, "pos"] = 1
    spec = _write(tmp_path, frame)
    code = main(["evaluate", str(spec), "--out", str(tmp_path / "out"), "--no-ledger"])
    err = " ".join(capsys.readouterr().err.split())
    assert code == 2 and "more than one item at position '1'" in err and "q0" in err
    assert not (tmp_path / "out").exists()


def _parts(result: Any) -> tuple[Any, ...]:
    from respai.ranking.seal import ranking_counts, ranking_tests

    res = result.blocks["ranking"]
    tests = [{k: v for k, v in t.items() if k != "reason"} for t in ranking_tests(res)]
    return ranking_counts(res), tests, res.weights


def test_file_and_frame_give_identical_parts(tmp_path: Path) -> None:
    """The CSV in DuckDB and the pandas frame give the same counts and test records."""
    frame = _frame()
    spec = _write(tmp_path, frame)
    on_file = api.evaluate(str(spec))
    on_frame = api.evaluate(str(spec), frame)
    assert _parts(on_file) == _parts(on_frame)


def _on_spark(spark: Any, frame: pd.DataFrame) -> Any:
    rows = [
        (str(q), str(g), int(p), float(s), float(w), int(y), int(pr))
        for q, g, p, s, w, y, pr in frame[
            ["query", "grp", "pos", "score", "w", "y", "p"]
        ].itertuples(index=False)
    ]
    schema = "query string, grp string, pos long, score double, w double, y long, p long"
    return spark.createDataFrame(rows, schema)


def test_spark_gives_identical_parts(tmp_path: Path, spark: Any) -> None:
    """Spark SQL gives the same exact counts, hence the same numbers, as DuckDB."""
    frame = _frame(30)
    spec = _write(tmp_path, frame)
    on_file = api.evaluate(str(spec))
    on_spark = api.evaluate(str(spec), _on_spark(spark, frame))
    assert _parts(on_file) == _parts(on_spark)
    score_spec = SPEC.replace("position: pos", "score: score")
    spec = _write(tmp_path, frame, score_spec)
    assert _parts(api.evaluate(str(spec))) == _parts(
        api.evaluate(str(spec), _on_spark(spark, frame))
    )


def _spec(ranking: dict[str, Any], fairness: bool = True) -> Any:
    doc: dict[str, Any] = {"data": {"cases": "c.csv"}, "ranking": ranking}
    if fairness:
        doc["fairness"] = {"label": "y", "prediction": "p", "attributes": {"sex": ["f", "m"]}}
    return parse_spec(doc)


RULE = {"id": "r", "metric": "top_k_rate", "k": 10, "max_group_gap": 0.1}


@pytest.mark.parametrize(
    ("ranking", "words"),
    [
        ({"list": "q", "positon": "p", "rules": [RULE]}, "Did you mean 'position'"),
        ({"list": "q", "position": "p", "score": "s", "rules": [RULE]}, "exactly one of"),
        ({"list": "q", "position": "p", "rules": [RULE | {"metric": "top_rate"}]}, "top_k_rate"),
        ({"list": "q", "position": "p", "rules": [RULE | {"k": 3}]}, "not declared in"),
        ({"list": "q", "position": "p", "rules": [RULE | {"attribute": "sx"}]}, "'sex'"),
        ({"list": "q", "position": "p", "exposure": "linear", "rules": [RULE]}, "log2"),
    ],
)
def test_spec_errors_are_clear(ranking: dict[str, Any], words: str) -> None:
    """Mistakes in the block name the key, with a did-you-mean where one fits."""
    with pytest.raises(SpecError) as info:
        _spec(ranking)
    assert words in str(info.value.diagnostics())


def test_attributes_come_from_the_fairness_block_or_the_ranking_block() -> None:
    """Without attributes of its own, the block reads fairness:'s; without either, refused."""
    found = declared_ranking(_spec({"list": "q", "position": "p", "rules": [RULE]}))
    assert found is not None and found.attributes == {"sex": ("f", "m")}
    assert found.attributes_source == "fairness"
    with pytest.raises(SpecError, match=r"ranking\.attributes"):
        _spec({"list": "q", "position": "p", "rules": [RULE]}, fairness=False)
    own = _spec(
        {"list": "q", "position": "p", "attributes": {"g": ["x", "y"]}, "rules": [RULE]},
        fairness=False,
    )
    assert declared_ranking(own) is not None


def test_exports_file_the_rules_under_their_suite(tmp_path: Path, capsys) -> None:
    """JUnit: suite respai.ranking, one case per rule; CycloneDX: each group's metric."""
    spec = _write(tmp_path, _frame())
    out = tmp_path / "out"
    main(["evaluate", str(spec), "--out", str(out), "--no-ledger"])
    capsys.readouterr()
    main(["export", str(out / "record.json"), "--format", "junit"])
    junit = capsys.readouterr().out
    assert '<testsuite name="respai.ranking" tests="2"' in junit
    assert "Ranking rule top5 (top_5_rate, grp)" in junit
    main(["export", str(out / "record.json"), "--format", "cyclonedx"])
    bom = capsys.readouterr().out
    assert "ranking top 5 rate" in bom and "ranking exposure ratio" in bom
