"""Spark gives the same counts, results and record as DuckDB; progress stays silent off a TTY.

The Spark tests need pyspark and Java 17+. They are skipped when pyspark is not
installed on a developer's machine, and fail in CI (``CI`` set), where the ``test``
extra installs it. One Spark session serves the whole module.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from respai import engine
from respai.engine import opening
from respai.engine.spark import is_remote
from respai.load import load_counts
from respai.progress import file_is_large, progress
from respai.run.evaluation import run_evaluation as evaluate
from respai.run.evidence import build_predicate
from respai.run.group_rules import evaluate_fairness
from respai.spec import load_spec

N = 3000
RACES = ["white", "black", "asian"]
SPEC = """\
system:
  name: spark-parity
  version: "1"
fairness:
  cases: {cases}
  label: label
  prediction: prediction
  probability: prob
  unit: person
  attributes:
    sex: [female, male]
    race: [white, black, asian]
  intersections:
    - [sex, race]
  min_cell: 20
  calibration_bins: 10
  rules:
    - {{id: sel-sex, rate: selection, attribute: sex, max_group_gap: 0.1}}
    - {{id: fnr-race, rate: false_negative, attribute: race, max_group_gap: 0.2}}
    - {{id: err-x, rate: error, attribute: [sex, race], worst_group: {{max: 0.5}}}}
evaluation:
  score: score
"""


def _rows() -> list[dict[str, Any]]:
    """Seeded cases with empty cells, undeclared values, probabilities and a score."""
    rng = np.random.default_rng(7)
    sex = rng.choice(["female", "male", "x", ""], size=N, p=[0.47, 0.47, 0.03, 0.03])
    race = rng.choice([*RACES, "other", ""], size=N, p=[0.5, 0.25, 0.15, 0.05, 0.05])
    label = (rng.random(N) < 0.4).astype(int)
    prob = np.clip(rng.beta(2, 3, size=N) + 0.25 * label, 0, 1)
    prob = np.round(prob, int(rng.integers(2, 9)))  # exact and inexact decimals
    prediction = (prob >= 0.5).astype(int)
    score = np.round(rng.normal(size=N) + label, 3)  # ties, and not in [0, 1]
    return [
        {
            "person": f"p{i:05d}",
            "sex": sex[i] or None,
            "race": race[i] or None,
            "label": int(label[i]),
            "prediction": None if i % 97 == 0 else int(prediction[i]),
            "prob": None if i % 53 == 0 else float(prob[i]),
            "score": None if i % 41 == 0 else float(score[i]),
            "note": 'a, "quoted" one' if i % 11 == 0 else "",
        }
        for i in range(N)
    ]


COLUMNS = ["person", "sex", "race", "label", "prediction", "prob", "score", "note"]


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder = tmp_path_factory.mktemp("spark-parity")
    rows = _rows()
    csv_path = folder / "cases.csv"
    with csv_path.open("w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(COLUMNS)
        for r in rows:
            w.writerow(["" if r[c] is None else r[c] for c in COLUMNS])
    pq_path = folder / "cases.parquet"
    table = pa.table({c: [r[c] for r in rows] for c in COLUMNS})
    pq.write_table(table, pq_path)
    jsonl_path = folder / "cases.jsonl"
    with jsonl_path.open("w", encoding="utf-8") as fh:
        for r in rows:
            fh.write(json.dumps(r) + "\n")
    out = {"csv": csv_path, "parquet": pq_path, "jsonl": jsonl_path}
    for fmt, path in list(out.items()):
        spec = folder / f"spec-{fmt}.yaml"
        spec.write_text(SPEC.format(cases=path.name), encoding="utf-8")
        out[f"spec-{fmt}"] = spec
    return out


def _spark_source(spark: Any, path: Path, text: list[str]) -> engine.Source:
    return engine.open_spark_file(path, None, ",", text, spark)


def _text_columns(spec_path: Path) -> list[str]:
    f = load_spec(spec_path).fairness
    return [*f.attributes, f.label, f.prediction, *([f.unit] if f.unit else [])]


@pytest.mark.parametrize("fmt", ["csv", "parquet", "jsonl"])
def test_load_counts_are_identical_on_spark(spark: Any, files: dict[str, Path], fmt: str) -> None:
    spec = load_spec(files[f"spec-{fmt}"]).fairness
    duck = load_counts(spec, score="score")
    source = _spark_source(spark, files[fmt], _text_columns(files[f"spec-{fmt}"]))
    on_spark = load_counts(spec, source, score="score")
    assert on_spark.counts == duck.counts
    assert asdict(on_spark.counts) == asdict(duck.counts)
    assert on_spark.columns == duck.columns
    # the data really has what the test is about
    c = duck.counts
    assert c.total == N
    assert any(g.left_out for g in c.groupings.values())
    assert c.null_cells["prob"] > 0 and c.null_cells["score"] > 0
    assert c.calibration_bins and c.overall_ranks and c.overall_ranks.twice_u > 0


def test_a_spark_dataframe_through_the_api(spark: Any, files: dict[str, Path]) -> None:
    df = spark.read.parquet(str(files["parquet"]))
    spec = load_spec(files["spec-parquet"])
    on_spark = evaluate_fairness(spec, df).to_dict()
    duck = evaluate_fairness(spec).to_dict()
    assert on_spark.pop("source") == "the pyspark DataFrame"
    duck.pop("source")
    assert on_spark == duck
    assert load_counts(spec.fairness, df).counts == load_counts(spec.fairness).counts


def test_spark_csv_reads_like_duckdb(spark: Any, files: dict[str, Path]) -> None:
    text = _text_columns(files["spec-csv"])
    spark_src = _spark_source(spark, files["csv"], text)
    duck_src = engine.open_file(files["csv"], None, ",", text)
    assert spark_src.kinds == duck_src.kinds
    keys = ["sex", "race", "note", "label", "prediction"]
    a = engine.count_cube(duck_src, keys, "prob", 10, ["person", "score"])
    b = engine.count_cube(spark_src, keys, "prob", 10, ["person", "score"])
    assert sorted(map(repr, a)) == sorted(map(repr, b))
    assert engine.duplicate_unit(spark_src, "person") is None
    assert engine.all_null(spark_src, "score") is False
    # the AUC's rank sums: DuckDB streams sorted batches, Spark runs window functions
    codes = ({"female": 0, "male": 1}, {r: i for i, r in enumerate(RACES)})
    args = (
        "score",
        "label",
        {"0": 0, "1": 1},
        ["sex", "race"],
        codes,
        [2, 3],
        [(), (0,), (1,), (0, 1)],
    )
    on_duck = engine.rank_sums(duck_src, *args)
    assert engine.rank_sums(spark_src, *args) == on_duck
    assert len(on_duck[(0, 1)]) == 6 and on_duck[()][()].positives > 0


def test_duplicate_unit_found_on_spark(spark: Any, files: dict[str, Path]) -> None:
    df = spark.read.parquet(str(files["parquet"]))
    doubled = engine.open_frame(df.unionByName(df.limit(1)))
    value, n = engine.duplicate_unit(doubled, "person") or (None, 0)
    assert (value, n) == ("p00000", 2)


def test_the_record_is_identical_on_spark(
    spark: Any, files: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = files["spec-parquet"]
    fixed = {
        "key_id": "sha256:" + "0" * 64,
        "fingerprints": {
            "dataset": "sha256:" + "1" * 64,
            "model": None,
            "engine_code": "sha256:" + "2" * 64,
        },
    }
    duck = build_predicate(
        evaluate(spec), timestamp="2026-01-01T00:00:00Z", run_id="run-duckdb", **fixed
    )

    opened: list[engine.Source] = []
    real_open = opening.open_spark_file

    def spy(*args: Any, **kwargs: Any) -> engine.Source:
        opened.append(real_open(*args, **kwargs))
        return opened[-1]

    # the engine table names the opener by its module (respai.engine.registry)
    monkeypatch.setattr(opening, "open_spark_file", spy)
    ran = evaluate(spec, engine="spark")  # the session of this module is the active one
    assert opened and all(engine.values.is_spark(s._frame.to_native()) for s in opened)
    theirs = build_predicate(ran, timestamp="2026-06-01T12:00:00Z", run_id="run-spark", **fixed)
    for p in (duck, theirs):
        p.pop("run_id")
        p.pop("timestamp")
    assert theirs == duck
    assert any(r.get("test_id") == "auc" and r["value"] is not None for r in duck["records"])


def test_open_spark_file_refuses_a_missing_file(tmp_path: Path) -> None:
    from respai.errors import InputError

    with pytest.raises(InputError, match="does not exist"):
        engine.open_spark_file(tmp_path / "nope.csv")
    (tmp_path / "empty.csv").write_bytes(b"")
    with pytest.raises(InputError, match="empty"):
        engine.open_spark_file(tmp_path / "empty.csv")


def test_remote_paths_are_told_apart() -> None:
    assert is_remote("s3a://bucket/cases.parquet")
    assert is_remote("hdfs://nn:8020/data/cases")
    assert not is_remote("/data/cases.parquet")
    assert not is_remote("file:///data/cases.parquet")
    assert not is_remote("C:/data/cases.csv")


# --- progress ---------------------------------------------------------------------------


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_is_silent_when_not_a_terminal(capsys: pytest.CaptureFixture[str]) -> None:
    with progress("counting cases", total=10) as bar:
        bar.advance(3)
        bar.update(10, total=10)
    with progress("counting cases", stream=io.StringIO()) as bar:
        bar.advance(1)
    captured = capsys.readouterr()
    assert captured.err == "" and captured.out == ""


def test_progress_is_silent_when_quiet() -> None:
    tty = _Terminal()
    with progress("counting cases", quiet=True, stream=tty) as bar:
        bar.advance(5)
    assert tty.getvalue() == ""


def test_progress_draws_on_a_terminal() -> None:
    tty = _Terminal()
    with progress("counting cases", total=4, stream=tty) as bar:
        bar.advance(2)
        bar.update(4)
    assert "counting cases" in tty.getvalue()


def test_file_is_large(tmp_path: Path) -> None:
    small = tmp_path / "small.csv"
    small.write_bytes(b"x" * 100)
    assert not file_is_large(small)
    assert file_is_large(small, threshold_bytes=100)
    assert file_is_large(tmp_path, threshold_bytes=50)
    assert not file_is_large(tmp_path / "missing.csv")
    assert not file_is_large("s3a://bucket/cases.parquet")


def test_spelling_float_codes_match_declared_numbers_on_spark(spark: Any, tmp_path: Path) -> None:
    # law_school's male column as 1.0 / 0.0: text in CSV, a double in JSONL and Parquet;
    # every format on Spark counts what DuckDB counts, and nothing is left out
    import pyarrow as pa
    import pyarrow.parquet as pq

    from respai.spec import parse_fairness

    rows = [(1.0, 1.0, 1.0), (1.0, 0.0, 1.0), (0.0, 0.0, 0.0), (0.0, 1.0, 0.0), (1.0, 1.0, 0.0)]
    names = ["label", "prediction", "male"]
    paths = {"csv": tmp_path / "law.csv", "jsonl": tmp_path / "law.jsonl"}
    paths["csv"].write_text(
        "label,prediction,male\n" + "".join(",".join(map(str, r)) + "\n" for r in rows),
        encoding="utf-8",
    )
    paths["jsonl"].write_text(
        "".join(json.dumps(dict(zip(names, r, strict=True))) + "\n" for r in rows),
        encoding="utf-8",
    )
    paths["parquet"] = tmp_path / "law.parquet"
    pq.write_table(
        pa.table({n: [r[i] for r in rows] for i, n in enumerate(names)}), paths["parquet"]
    )
    block = {"label": "label", "prediction": "prediction", "attributes": {"male": [0, 1]}}
    for fmt, path in paths.items():
        spec = parse_fairness({**block, "cases": str(path)})
        duck = load_counts(spec).counts
        on_spark = load_counts(spec, _spark_source(spark, path, names)).counts
        assert on_spark == duck, fmt
        male = on_spark.groupings[("male",)]
        assert not male.left_out, fmt
        assert male.groups[("1",)].tp == 1 and male.groups[("0",)].tn == 1, fmt


def test_a_spark_frame_has_the_fingerprint_of_the_same_pandas_frame(spark: Any) -> None:
    """The frame fingerprint's recipe gives one digest for the same data on Spark."""
    import pandas as pd

    from respai.engine.frame_fingerprint import frame_fingerprint

    data = {"y": [1, 0, 1, 0], "p": [1, 1, 0, None], "sex": ["f", "m", None, "m"]}
    local = pd.DataFrame(data)
    on_spark = spark.createDataFrame(
        [tuple(row) for row in zip(*data.values(), strict=True)], "y long, p long, sex string"
    )
    columns = ["y", "p", "sex"]
    assert frame_fingerprint(on_spark, columns) == frame_fingerprint(local, columns)
    changed = spark.createDataFrame(
        [(1, 1, "f"), (0, 1, "m"), (1, 0, None), (0, 0, "m")], "y long, p long, sex string"
    )
    assert (
        frame_fingerprint(changed, columns)["sha256"]
        != frame_fingerprint(local, columns)["sha256"]
    )


def test_respai_evaluate_seals_a_spark_frame_like_the_file(
    spark: Any, files: dict[str, Path], tmp_path: Path
) -> None:
    """respai.evaluate on a Spark DataFrame signs the counts the file run counts."""
    import respai

    df = spark.read.parquet(str(files["parquet"]))
    spec = files["spec-parquet"]
    from_frame = respai.evaluate(spec, df, out=tmp_path / "frame")
    from_file = respai.evaluate(spec)
    assert from_frame.counts == from_file.counts
    assert from_frame.verdict == from_file.verdict
    assert (tmp_path / "frame" / "record.json").exists()
    from respai.cli import main

    assert main(["verify", str(tmp_path / "frame" / "record.json")]) == 0
