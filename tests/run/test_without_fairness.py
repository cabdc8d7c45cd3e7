"""``respai evaluate`` of a spec without a ``fairness:`` block: regression or ranking alone.

A pure regression model or a search ranker has no binary label and prediction, so its
spec declares only ``regression:`` or ``ranking:``. One run seals one record that
verifies, exports (JUnit, CycloneDX, in-toto) and reports; ``counts.cases`` is the rows
of the cases file, counted; the settings only a fairness block gives are ``null`` with a
reason; ``--json`` matches its schema; the same record parts come out of a DataFrame.
A spec with ``evaluation:`` but no ``fairness:`` is refused with exit 2, nothing written.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from respai import api
from respai.blocks import block_named
from respai.cli import main
from respai.schemas import validate_output
from respai.types import Verdict

REGRESSION = """\
system: {name: price-model, version: "1"}
data: {cases: cases.csv}
regression:
  target: target
  prediction: estimate
  attributes: {grp: [a, b]}
  rules: [{id: err, metric: mean_error, attribute: grp, max_group_gap: 2.0}]
"""

RANKING = """\
system: {name: search-ranker, version: "1"}
data: {cases: cases.csv}
ranking:
  list: query
  position: pos
  top_k: [5]
  attributes: {grp: [a, b]}
  rules: [{id: top5, metric: top_k_rate, k: 5, min_group_ratio: 0.8}]
"""

SPECS = {"regression": REGRESSION, "ranking": RANKING}


def _cases(seed: int = 7, n: int = 400) -> pd.DataFrame:
    """Cases with a group, a numeric target and estimate, and ranked lists (one blank group)."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"grp": rng.choice(["a", "b"], n)})
    frame["target"] = np.round(rng.normal(50, 10, n), 2)
    frame["estimate"] = np.round(frame["target"] + rng.normal(0, 3, n), 2)
    frame["query"] = rng.integers(0, 40, n)
    frame["pos"] = frame.groupby("query").cumcount() + 1
    frame.loc[3, "grp"] = "c"  # undeclared: left out by the block, still a row of the file
    return frame


def _write(folder: Path, kind: str, frame: pd.DataFrame | None = None) -> Path:
    (frame if frame is not None else _cases()).to_csv(folder / "cases.csv", index=False)
    spec = folder / f"{kind}.yaml"
    spec.write_text(SPECS[kind])
    return spec


def _predicate(out: Path) -> dict[str, Any]:
    envelope = json.loads((out / "record.json").read_text())
    return json.loads(base64.b64decode(envelope["payload"]))["predicate"]  # type: ignore[no-any-return]


@pytest.mark.parametrize("kind", ["regression", "ranking"])
def test_a_spec_with_one_block_seals_a_record_that_verifies_exports_and_reports(
    tmp_path: Path, kind: str, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = _write(tmp_path, kind)
    out = tmp_path / "out"
    code = main(["evaluate", str(spec), "--out", str(out), "--no-ledger"])
    captured = capsys.readouterr()
    printed = captured.out + captured.err
    predicate = _predicate(out)
    tests = [r for r in predicate["records"] if r["record_type"] == "test"]
    assert tests and all(r["test_key"].startswith(f"{kind}:") for r in tests)
    verdicts = {r["verdict"] for r in tests}
    end = predicate["records"][-1]
    assert end["record_type"] == "run_end"
    assert end["verdict"] in verdicts and code == end["exit_code"]
    # counts: the rows of the cases file (the undeclared 'c' row included), the block's own
    assert predicate["counts"]["cases"] == 400
    assert set(predicate["counts"]) == {"cases", kind}
    start = predicate["records"][0]
    settings = start["settings"]
    assert settings["alpha"] == 0.05 and settings["sources"]["alpha"] == "default"
    assert settings["max_missing"] == 0.02
    for key in ("min_cell", "unit", "favorable", "orientation", "score", "model"):
        assert settings[key] is None and settings["null_reasons"][key]
    assert settings["thresholds"] == {}
    assert "400 cases from" in printed and "no fairness: block" in printed
    assert main(["verify", str(out / "record.json")]) == 0
    assert (out / "report.html").is_file()
    assert main(["report", str(out / "record.json"), "-o", str(tmp_path / "r.html")]) == 0
    for fmt in ("junit", "cyclonedx", "in-toto-test-result"):
        target = tmp_path / f"export.{fmt}"
        assert main(["export", str(out / "record.json"), "--format", fmt, "-o", str(target)]) == 0
        assert f"{kind}:" in target.read_text() or fmt == "in-toto-test-result"
    junit = (tmp_path / "export.junit").read_text()
    assert f"respai.{kind}" in junit
    capsys.readouterr()


@pytest.mark.parametrize("kind", ["regression", "ranking"])
def test_json_of_a_run_without_fairness_matches_its_schema(
    tmp_path: Path, kind: str, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = _write(tmp_path, kind)
    main(["evaluate", str(spec), "--out", str(tmp_path / "out"), "--no-ledger", "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert validate_output("evaluate", doc) == []
    assert doc["per_group"] is None and doc["counts"]["cases"] == 400
    assert doc[kind] is not None
    others = {"regression", "ranking", "paired", "ll144"} - {kind}
    assert all(doc[o] is None for o in others)


def test_the_ledger_lists_the_run_and_verifies(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = _write(tmp_path, "regression")
    ledger = tmp_path / "book"
    main(["evaluate", str(spec), "--out", str(tmp_path / "out"), "--ledger", str(ledger)])
    capsys.readouterr()
    assert main(["log", str(ledger)]) == 0
    listed = capsys.readouterr()
    assert "price-model" in listed.out + listed.err
    assert main(["verify", "--ledger", str(ledger)]) == 0


@pytest.mark.parametrize("kind", ["regression", "ranking"])
def test_a_dataframe_gives_the_same_record_parts_as_the_file(tmp_path: Path, kind: str) -> None:
    frame = _cases(11)
    spec = _write(tmp_path, kind, frame)
    from_file = api.evaluate(str(spec))
    from_frame = api.evaluate(str(spec), frame)
    assert from_file.cases == from_frame.cases == len(frame)
    assert from_file.verdict is from_frame.verdict
    assert not from_file.has_fairness and from_file.rules == () and from_file.battery == ()
    a = block_named(kind).record(from_file.blocks[kind])
    b = block_named(kind).record(from_frame.blocks[kind])
    assert a.counts == b.counts and [dict(t) for t in a.tests] == [dict(t) for t in b.tests]


def test_the_run_verdict_is_the_worst_of_the_blocks(tmp_path: Path) -> None:
    frame = _cases(5)
    frame["estimate"] = frame["target"] + np.where(frame["grp"] == "a", 8.0, 0.0)
    spec = _write(tmp_path, "regression", frame)
    result = api.evaluate(str(spec))
    assert result.verdict is Verdict.FAIL and result.exit_code == 1
    assert [r.verdict for r in result.blocks["regression"].rules] == [Verdict.FAIL]


def test_familywise_counts_the_blocks_rules(tmp_path: Path) -> None:
    spec = _write(tmp_path, "regression")
    spec.write_text(
        REGRESSION.replace(
            "rules: [",
            "rules: [{id: mae, metric: mean_absolute_error, attribute: grp, max_group_gap: 2.0}, ",
        )
    )
    policy = tmp_path / "policy.yaml"
    policy.write_text("familywise: bonferroni\n")
    out = tmp_path / "out"
    api.evaluate(str(spec), policy=str(policy), out=out)
    settings = _predicate(out)["records"][0]["settings"]
    assert settings["familywise"]["alpha_per_test"] == pytest.approx(0.025)


def test_evaluation_without_fairness_is_refused_before_anything_is_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = _write(tmp_path, "regression")
    spec.write_text(REGRESSION + "evaluation: {tests: [accuracy]}\n")
    out = tmp_path / "out"
    assert main(["evaluate", str(spec), "--out", str(out), "--no-ledger"]) == 2
    err = capsys.readouterr().err
    assert "evaluation: is declared without a fairness: block" in err
    assert not out.exists()


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["regression", "ranking"])
def test_the_same_record_parts_on_spark(tmp_path: Path, spark: Any, kind: str) -> None:
    frame = _cases(13)
    spec = _write(tmp_path, kind, frame)
    on_file = api.evaluate(str(spec))
    local = pd.read_csv(tmp_path / "cases.csv")
    schema = "grp string, target double, estimate double, query long, pos long"
    rows = [tuple(r) for r in local[list(local.columns)].itertuples(index=False)]
    on_spark = api.evaluate(str(spec), data=spark.createDataFrame(rows, schema))
    assert on_spark.cases == on_file.cases == len(frame)
    a = block_named(kind).record(on_file.blocks[kind])
    b = block_named(kind).record(on_spark.blocks[kind])
    assert a.counts == b.counts and [dict(t) for t in a.tests] == [dict(t) for t in b.tests]


def test_verify_recounts_the_rows_and_the_blocks_counts(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    frame = _cases(17)
    spec = _write(tmp_path, "regression", frame)
    out = tmp_path / "out"
    main(["evaluate", str(spec), "--out", str(out), "--no-ledger"])
    record = str(out / "record.json")
    cases = str(tmp_path / "cases.csv")
    assert main(["verify", record, "--data", cases, "--spec", str(spec)]) == 0
    said = capsys.readouterr()
    assert "equal the record's" in said.out + said.err
    frame.loc[0, "estimate"] += 1.0  # one prediction changed: the block's sums differ
    frame.to_csv(tmp_path / "changed.csv", index=False)
    changed = str(tmp_path / "changed.csv")
    assert main(["verify", record, "--data", changed, "--spec", str(spec)]) == 1
    said = capsys.readouterr()
    assert "regression.cells[" in said.out + said.err


def test_a_dict_spec_and_a_frame_through_the_api(tmp_path: Path) -> None:
    import yaml

    frame = _cases(19)
    spec = yaml.safe_load(REGRESSION)
    del spec["data"]  # the frame is the cases
    result = api.evaluate(spec, frame)
    assert result.cases == len(frame) and not result.has_fairness
    html = result._repr_html_()
    assert "no fairness: block" in html and "regression" in html
    assert "rules" in repr(result) and f"{len(frame)} cases" in repr(result)


def test_a_paired_only_spec_over_data_cases(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rows = ["pair_id,variant,advanced"]
    for i in range(300):
        ref, var = (1, 0) if i < 60 else (0, 1) if i < 64 else (1, 1)
        rows += [f"{i},control,{ref}", f"{i},black_name,{var}"]
    (tmp_path / "pairs.csv").write_text("\n".join(rows) + "\n")
    spec = tmp_path / "paired.yaml"
    spec.write_text(
        'system: {name: audit-pairs, version: "1"}\n'
        "data: {cases: pairs.csv}\n"
        "paired: {cases: pairs.csv, pair: pair_id, variant: variant, "
        "variants: [control, black_name], outcome: advanced, max_difference: 0.05}\n"
    )
    out = tmp_path / "out"
    assert main(["evaluate", str(spec), "--out", str(out), "--no-ledger"]) == 1  # b >> c
    predicate = _predicate(out)
    assert predicate["counts"]["cases"] == 600
    assert main(["verify", str(out / "record.json")]) == 0
    no_cases = tmp_path / "bare.yaml"
    no_cases.write_text(spec.read_text().replace("data: {cases: pairs.csv}\n", ""))
    assert main(["evaluate", str(no_cases), "--out", str(tmp_path / "o2"), "--no-ledger"]) == 2
    assert "Set data.cases" in capsys.readouterr().err
    assert not (tmp_path / "o2").exists()


def test_groups_from_a_joined_self_identification_file(tmp_path: Path) -> None:
    """counts.cases is the cases file's rows; the groups come from the joined self-ID file."""
    frame = _cases(23)
    frame.insert(0, "id", [f"c{i}" for i in range(len(frame))])
    whole = api.evaluate(str(_write(tmp_path, "regression", frame)))
    frame.drop(columns=["grp"]).to_csv(tmp_path / "cases.csv", index=False)
    selfid = frame[["id", "grp"]].iloc[:-5].sample(frac=1.0, random_state=3)  # 5 unmatched
    selfid.to_csv(tmp_path / "self_id.csv", index=False)
    spec = tmp_path / "joined.yaml"
    spec.write_text(
        REGRESSION.replace(
            "data: {cases: cases.csv}",
            "data: {cases: cases.csv, demographics: self_id.csv, join_on: id}",
        )
    )
    joined = api.evaluate(str(spec))
    assert joined.cases == whole.cases == len(frame)
    ours = joined.blocks["regression"].rules[0].groups
    theirs = whole.blocks["regression"].rules[0].groups
    # the last 5 cases have no self-ID (all declared groups: row 3 is the undeclared one)
    assert sum(g.n for g in ours) == sum(g.n for g in theirs) - 5
