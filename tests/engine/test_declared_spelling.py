"""The same data gives the same counts in every format: declared numbers match any spelling.

Each test runs on every engine of ``tests/conftest.py`` (DuckDB over CSV, JSONL and
Parquet; pandas, polars and pyarrow frames) and compares with counts written out by
hand. In CSV a column of ``1.0`` / ``0.0`` is text; in the other formats it is a float.
Spark is checked in ``tests/engine/test_spark.py`` (``-k spelling``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from respai.counts import Cell

Run = Callable[..., Any]

SPEC: dict[str, Any] = {
    "label": "label",
    "prediction": "prediction",
    "attributes": {"male": [0, 1]},
}
COLUMNS = ["label", "prediction", "male"]


def test_float_codes_match_declared_whole_numbers(run_engine: Run) -> None:
    # law_school's male column: 1.0 / 0.0, as are its label and prediction
    rows = [
        {"label": 1.0, "prediction": 1.0, "male": 1.0},
        {"label": 1.0, "prediction": 0.0, "male": 1.0},
        {"label": 0.0, "prediction": 0.0, "male": 0.0},
        {"label": 0.0, "prediction": 1.0, "male": 0.0},
        {"label": 1.0, "prediction": 1.0, "male": 0.0},
        {"label": 1.0, "prediction": None, "male": None},
    ]
    counts = run_engine(SPEC, rows, COLUMNS)
    male = counts.groupings[("male",)]
    assert male.groups[("1",)] == Cell(tp=1, fn=1)
    assert male.groups[("0",)] == Cell(tn=1, fp=1, tp=1)
    assert dict(male.left_out) == {"male: missing": 1}


def test_text_spellings_of_one_number_match_it(run_engine: Run) -> None:
    spellings = ["1.00", "+1", "1e0", "1.", " 0.0 ", "-0", "0", "01", "2", "one"]
    rows = [
        {"label": "1.0", "prediction": "1e0", "male": s}
        if i % 2
        else {"label": "0.00", "prediction": "-0", "male": s}
        for i, s in enumerate(spellings)
    ]
    counts = run_engine(SPEC, rows, COLUMNS)
    male = counts.groupings[("male",)]
    # 1.00 (i=0) and 1. (i=3) are negatives; +1 (i=1), 1e0 (i=2) positives
    assert male.groups[("1",)] == Cell(tp=2, tn=2)
    # ' 0.0 ' (i=4), '0' (i=6) negatives; '-0' (i=5) positive
    assert male.groups[("0",)] == Cell(tp=1, tn=2)
    assert dict(male.left_out) == {
        "male: undeclared value '01'": 1,
        "male: undeclared value '2'": 1,
        "male: undeclared value 'one'": 1,
    }


def test_map_keys_match_any_spelling_of_their_number(run_engine: Run) -> None:
    spec = {**SPEC, "label_map": {1: 1, 2: 0}, "prediction_map": {"1": 1, "2.0": 0}}
    rows = [
        {"label": 1.0, "prediction": 2.0, "male": 1},
        {"label": 2.0, "prediction": 1.0, "male": 1},
        {"label": 2.0, "prediction": 2.0, "male": 0},
    ]
    counts = run_engine(spec, rows, COLUMNS)
    male = counts.groupings[("male",)]
    assert male.groups[("1",)] == Cell(fn=1, fp=1)
    assert male.groups[("0",)] == Cell(tn=1)


def test_a_case_only_difference_gets_did_you_mean(run_engine: Run) -> None:
    spec = {**SPEC, "attributes": {"sex": ["female", "male"]}}
    rows = [
        {"label": 1, "prediction": 1, "sex": "Female"},
        {"label": 0, "prediction": 1, "sex": "Female"},
        {"label": 0, "prediction": 0, "sex": "male"},
    ]
    counts = run_engine(spec, rows, ["label", "prediction", "sex"])
    sex = counts.groupings[("sex",)]
    assert sex.groups[("male",)] == Cell(tn=1)
    assert dict(sex.left_out) == {"sex: undeclared value 'Female' (did you mean 'female'?)": 2}
