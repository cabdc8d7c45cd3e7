"""The Python API on in-memory frames: the same answer as the file path."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

import respai
from respai import InputError, Verdict, evaluate_fairness
from respai.spec import FairnessSpec, Rate, Rule

SAMPLES = Path(__file__).resolve().parents[2] / "src" / "respai" / "samples"


@pytest.fixture(scope="module")
def file_result() -> respai.FairnessResult:
    return evaluate_fairness(SAMPLES / "loan_screen.yaml")


@pytest.mark.parametrize("kind", ["pandas", "polars", "pyarrow"])
def test_frame_gives_the_same_result_as_the_file(
    kind: str, file_result: respai.FairnessResult
) -> None:
    df = pd.read_csv(SAMPLES / "loan_screen.csv", dtype={"sex": "string"})
    native = {
        "pandas": df,
        "polars": pl.from_pandas(df),
        "pyarrow": pa.Table.from_pandas(df, preserve_index=False),
    }[kind]
    spec = respai.load_spec(SAMPLES / "loan_screen.yaml")
    result = evaluate_fairness(spec, native)
    assert result.counts.groupings == file_result.counts.groupings
    assert [r.verdict for r in result.rules] == [r.verdict for r in file_result.rules]
    a, b = result.to_dict(), file_result.to_dict()
    for payload in (a, b):
        payload.pop("source")
    assert a == b


def test_spec_object_without_yaml() -> None:
    spec = FairnessSpec(
        label="y",
        prediction="p",
        attributes={"g": ("a", "b")},
        rules=(Rule(id="sel", rate=Rate.SELECTION, attributes=("g",), max_group_gap=0.9),),
        min_cell=5,
    )
    df = pl.DataFrame({"y": [1, 0] * 20, "p": [1, 0] * 20, "g": ["a"] * 20 + ["b"] * 20})
    result = evaluate_fairness(spec, df)
    assert result.verdict is Verdict.PASS
    assert result.exit_code == 0


def test_not_a_frame_is_an_input_error() -> None:
    with pytest.raises(InputError, match="cannot read a list"):
        evaluate_fairness({"label": "y", "prediction": "p", "attributes": {"g": ["a"]}}, [1, 2, 3])


def test_missing_column_in_frame_is_named() -> None:
    df = pd.DataFrame({"y": [1], "predictions": [1], "g": ["a"]})
    with pytest.raises(InputError, match="no column 'prediction'") as info:
        evaluate_fairness(
            {"label": "y", "prediction": "prediction", "attributes": {"g": ["a"]}}, df
        )
    assert "Did you mean 'predictions'?" in info.value.diagnostics()


def test_bad_label_in_frame_names_the_row() -> None:
    df = pd.DataFrame({"y": [1, 0, 2], "p": [1, 0, 1], "g": ["a", "a", "a"]})
    with pytest.raises(InputError, match="holds '2' \\(first at row 3\\)"):
        evaluate_fairness({"label": "y", "prediction": "p", "attributes": {"g": ["a"]}}, df)
