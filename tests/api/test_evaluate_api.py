"""``respai.evaluate`` from Python: a DataFrame sealed in the record the CLI writes.

The record of a frame is compared with the record ``respai evaluate`` writes for the same
cases as a CSV file: every test's value, interval and verdict agree, only the dataset
fingerprint differs (a frame's names the canonical Arrow stream), and ``respai verify``
accepts both.
"""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

import respai
from respai.engine.frame_fingerprint import frame_fingerprint
from respai.errors import InputError

SPEC = """\
system: {name: api-test}
fairness:
  cases: cases.csv
  label: y
  prediction: p
  probability: s
  attributes: {sex: [f, m], race: [a, b]}
  intersections: [[sex, race]]
  rules:
    - {id: fnr-by-sex, rate: false_negative, attribute: sex, max_group_gap: 0.5}
"""


def cases(n: int = 300, seed: int = 7) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    return pd.DataFrame(
        {
            "y": y,
            "p": np.where(rng.random(n) < 0.8, y, 1 - y),
            "s": rng.integers(0, 1000, n) / 1000,
            "sex": rng.choice(["f", "m"], n),
            "race": rng.choice(["a", "b"], n),
        }
    )


def predicate(record: Path) -> dict[str, Any]:
    envelope = json.loads(record.read_text(encoding="utf-8"))
    statement = json.loads(base64.b64decode(envelope["payload"]))
    return dict(statement["predicate"])


def verify(record: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "respai", "verify", str(record), "--json"],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


def measured(pred: dict[str, Any]) -> dict[str, Any]:
    keep = ("value", "interval", "verdict", "threshold", "undefined_reason")
    return {
        r["test_key"]: {k: r.get(k) for k in keep}
        for r in pred["records"]
        if r["record_type"] == "test"
    }


@pytest.fixture
def spec_file(tmp_path: Path) -> Path:
    (tmp_path / "spec.yaml").write_text(SPEC, encoding="utf-8")
    cases().to_csv(tmp_path / "cases.csv", index=False)
    return tmp_path / "spec.yaml"


def test_a_sealed_frame_is_the_record_the_cli_writes_for_its_file(
    spec_file: Path, tmp_path: Path
) -> None:
    df = cases()
    result = respai.evaluate(spec_file, df, out=tmp_path / "api-out")
    assert result.sealed is not None and result.record_path == result.sealed.record_path
    cli = subprocess.run(
        [sys.executable, "-m", "respai", "evaluate", str(spec_file), "--no-ledger",
         "--out", str(tmp_path / "cli-out")],
        capture_output=True, text=True, check=False, timeout=120,
    )  # fmt: skip
    assert cli.returncode == result.exit_code, cli.stderr
    ours, theirs = predicate(result.record_path), predicate(tmp_path / "cli-out" / "record.json")
    assert measured(ours) == measured(theirs)
    assert ours["verdict"] == theirs["verdict"] == result.verdict.value
    dataset = ours["fingerprints"]["dataset"]
    assert dataset["name"] == "dataframe"
    assert dataset["media_type"] == "application/vnd.apache.arrow.stream"
    assert dataset == frame_fingerprint(df, ["y", "p", "s", "sex", "race"])
    assert theirs["fingerprints"]["dataset"]["name"] == "cases.csv"
    for record in (result.record_path, tmp_path / "cli-out" / "record.json"):
        checked = verify(record)
        assert checked.returncode == 0, checked.stdout + checked.stderr
    assert {p.name for p in (tmp_path / "api-out").iterdir()} >= {
        "record.json", "summary.txt", "public_key.pem", "report.html"
    }  # fmt: skip


@pytest.mark.parametrize("kind", ["polars", "pyarrow"])
def test_every_library_seals_the_same_dataset_fingerprint(
    kind: str, spec_file: Path, tmp_path: Path
) -> None:
    df = cases()
    native = pl.from_pandas(df) if kind == "polars" else pa.Table.from_pandas(df)
    one = respai.evaluate(spec_file, df, out=tmp_path / "a")
    other = respai.evaluate(spec_file, native, out=tmp_path / "b")
    assert other.record_path is not None and one.record_path is not None
    a, b = predicate(one.record_path), predicate(other.record_path)
    assert a["fingerprints"]["dataset"] == b["fingerprints"]["dataset"]
    assert measured(a) == measured(b)
    changed = df.copy()
    changed.loc[3, "s"] = 0.123456
    third = respai.evaluate(spec_file, changed, out=tmp_path / "c")
    assert third.record_path is not None
    c = predicate(third.record_path)["fingerprints"]["dataset"]
    assert c["sha256"] != a["fingerprints"]["dataset"]["sha256"]


def test_without_out_nothing_is_signed_or_written(spec_file: Path, tmp_path: Path) -> None:
    before = set(tmp_path.rglob("*"))
    result = respai.evaluate(spec_file, cases())
    assert result.sealed is None and result.record_path is None
    assert set(tmp_path.rglob("*")) == before
    assert result.exit_code == result.verdict.exit_code


def test_a_key_without_an_output_folder_is_refused(spec_file: Path, tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no output folder"):
        respai.evaluate(spec_file, cases(), key=tmp_path / "k.key")


def test_a_ledger_receives_the_sealed_run(spec_file: Path, tmp_path: Path) -> None:
    result = respai.evaluate(spec_file, cases(), out=tmp_path / "o", ledger=tmp_path / "book")
    assert result.sealed is not None and result.sealed.ledger == (tmp_path / "book").resolve()
    checked = subprocess.run(
        [sys.executable, "-m", "respai", "verify", "--ledger", str(tmp_path / "book")],
        capture_output=True, text=True, check=False, timeout=120,
    )  # fmt: skip
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_the_file_path_still_works_and_fingerprints_the_file(spec_file: Path) -> None:
    result = respai.evaluate(spec_file, out="out")
    assert result.record_path is not None
    assert predicate(result.record_path)["fingerprints"]["dataset"]["name"] == "cases.csv"


def test_respai_evaluate_is_the_function_and_no_submodule_shares_its_name() -> None:
    code = (
        "import importlib.util, respai\n"
        "from respai.results import Evaluation\n"
        "import respai.run.evaluation\n"
        "print(callable(respai.evaluate), importlib.util.find_spec('respai.evaluate') is None)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
    )
    assert proc.stdout.split() == ["True", "True"]
    from respai.api import evaluate

    assert respai.evaluate is evaluate


def test_a_dict_spec_is_sealed_too(tmp_path: Path) -> None:
    spec = {
        "system": {"name": "dict-spec"},
        "fairness": {
            "label": "y",
            "prediction": "p",
            "attributes": {"sex": ["f", "m"]},
            "rules": [{"id": "sel", "rate": "selection", "attribute": "sex", "max_group_gap": 1}],
        },
    }
    result = respai.evaluate(spec, pl.from_pandas(cases()), out=tmp_path / "o")
    assert result.record_path is not None
    checked = verify(result.record_path)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    assert [r.verdict for r in result.rules] == [respai.Verdict.PASS]


def test_model_access_on_a_frame_measures_what_the_file_measures(tmp_path: Path) -> None:
    # perturbation stability reads the frame's batches, not the spec's file
    pytest.importorskip("skl2onnx")
    from skl2onnx import to_onnx
    from sklearn.linear_model import LogisticRegression

    rng = np.random.default_rng(3)
    n = 300
    x1, x2 = rng.normal(0, 1, n), rng.normal(0, 1, n)
    y = (x1 + 0.5 * x2 > 0).astype(int)
    features = np.column_stack([x1, x2]).astype(np.float32)
    model = LogisticRegression().fit(features, y)
    (tmp_path / "model.onnx").write_bytes(to_onnx(model, features[:1]).SerializeToString())
    df = pd.DataFrame(
        {"label": y, "prediction": model.predict(features), "x1": x1, "x2": x2,
         "sex": rng.choice(["female", "male"], n)}
    )  # fmt: skip
    df.to_csv(tmp_path / "cases.csv", index=False)
    spec = tmp_path / "spec.yaml"
    spec.write_text(
        "fairness:\n  cases: cases.csv\n  label: label\n  prediction: prediction\n"
        "  attributes:\n    sex: [female, male]\n"
        "evaluation:\n  model: model.onnx\n  features: [x1, x2]\n  seed: 7\n",
        encoding="utf-8",
    )
    on_file = respai.evaluate(spec)
    on_frame = respai.evaluate(spec, pl.from_pandas(df))

    def stability(result: Any) -> Any:
        return next(t for t in result.battery if t.test_id == "perturbation_stability")

    assert stability(on_frame).value is not None
    assert stability(on_frame).value == stability(on_file).value
    assert stability(on_frame).details == stability(on_file).details
