"""An error's "first at line N" names the first line to fix, not the line of the extreme.

A probability column written in percent (0-100) was reported at the line of its largest
value (line 527) while line 2 already held 97.6.
"""

from __future__ import annotations

import csv
import random
from pathlib import Path

import pandas as pd
import pytest

from respai import evaluate_fairness
from respai.errors import InputError

SPEC = {
    "label": "y",
    "prediction": "p",
    "probability": "score",
    "attributes": {"sex": ["f", "m"]},
    "rules": [{"id": "r", "rate": "selection", "attribute": "sex", "max_group_gap": 0.5}],
}


def _rows(n: int = 600) -> list[tuple[int, int, float, str]]:
    rng = random.Random(5)
    rows = [(i % 2, (i // 2) % 2, round(rng.uniform(50, 99), 1), "fm"[i % 2]) for i in range(n)]
    rows[0] = (0, 0, 97.6, "f")  # file line 2: the first value outside [0, 1], in a
    # cell of about 150 cases whose smallest and largest values lie on other lines
    rows[525] = (0, 1, 99.9, "m")  # file line 527: the largest
    return rows


def test_a_percent_column_names_its_first_line(tmp_path: Path) -> None:
    path = tmp_path / "cases.csv"
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["y", "p", "score", "sex"])
        w.writerows(_rows())
    with pytest.raises(InputError) as info:
        evaluate_fairness({**SPEC, "cases": str(path)})
    message = info.value.message
    assert "holds 97.6 (first at line 2);" in message, message
    assert "line 527" not in message


def test_a_dataframe_names_its_first_row() -> None:
    frame = pd.DataFrame(_rows(), columns=["y", "p", "score", "sex"])
    with pytest.raises(InputError) as info:
        evaluate_fairness(SPEC, frame)
    assert "holds 97.6 (first at row 1);" in info.value.message


def test_a_single_bad_value_is_named_once(tmp_path: Path) -> None:
    path = tmp_path / "cases.csv"
    rows = [(i % 2, (i // 2) % 2, 0.5, "fm"[i % 2]) for i in range(50)]
    rows[9] = (1, 0, -0.25, "m")  # line 11
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["y", "p", "score", "sex"])
        w.writerows(rows)
    with pytest.raises(InputError) as info:
        evaluate_fairness({**SPEC, "cases": str(path)})
    assert "holds -0.25 (first at line 11);" in info.value.message
