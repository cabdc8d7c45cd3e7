"""The count cube read as arrays gives the same counts as the cell-by-cell gate.

:func:`respai.load.load_counts` reads each distinct raw value once and sums the cells
with numpy (``_coded``, ``_coded_counts``); the reference is the cell-by-cell path it
replaced (``_Gate.row`` and :func:`respai.counts.build_counts`), forced by making the
array reading decline. Generated tables mix declared, undeclared, missing and number
spellings of group values, empty predictions and probabilities, both ``favorable``
codings, intersections and a score column; every count, left-out reason, calibration
bin, empty-cell tally and rank sum must be equal. Refusals keep their messages.
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from respai import load
from respai.errors import InputError
from respai.spec import parse_fairness

SEX = ["f", "m", " f", "F", "x", None, ""]
BAND = [1, 2, 3, "1.0", 7, None]


def _both(monkeypatch: pytest.MonkeyPatch, spec: Any, table: Any, score: str | None) -> Any:
    fast = load.load_counts(spec, table, score=score)
    with monkeypatch.context() as m:
        m.setattr(load, "_coded", lambda *a: None)
        slow = load.load_counts(spec, table, score=score)
    return fast, slow


def _same_both_ways(spec: Any, table: Any, score: str | None) -> None:
    """The array reading and the cell-by-cell reading give equal counts, cells and ranks."""
    with pytest.MonkeyPatch.context() as mp:
        fast, slow = _both(mp, spec, table, score)
    assert fast.counts == slow.counts
    assert fast.counts.null_cells == slow.counts.null_cells
    assert fast.counts.ranks == slow.counts.ranks


@st.composite
def tables(draw: Any) -> tuple[dict[str, Any], dict[str, list[Any]]]:
    n = draw(st.integers(1, 40))
    col = {
        "sex": draw(st.lists(st.sampled_from(SEX), min_size=n, max_size=n)),
        "band": draw(st.lists(st.sampled_from(BAND), min_size=n, max_size=n)),
        "y": draw(st.lists(st.sampled_from([0, 1]), min_size=n, max_size=n)),
        "p": draw(st.lists(st.sampled_from([0, 1, None]), min_size=n, max_size=n)),
        "prob": draw(
            st.lists(
                st.one_of(st.none(), st.floats(0, 1), st.sampled_from([0.0, 0.5, 1.0])),
                min_size=n,
                max_size=n,
            )
        ),
        "s": draw(st.lists(st.sampled_from([0.1, 0.2, 0.7, None]), min_size=n, max_size=n)),
    }
    col["band"] = [None if v is None else str(v) for v in col["band"]]
    block: dict[str, Any] = {
        "label": "y",
        "prediction": "p",
        "attributes": {"sex": ["f", "m"], "band": ["1", "2", "3"]},
        "intersections": [["sex", "band"]],
        "favorable": draw(st.sampled_from([0, 1])),
        "calibration_bins": draw(st.sampled_from([1, 3, 10])),
    }
    if draw(st.booleans()):
        block["probability"] = "prob"
    return block, col


@settings(max_examples=60, deadline=None)
@given(case=tables(), scored=st.booleans())
def test_arrays_match_cell_by_cell(case: Any, scored: bool) -> None:
    import pandas as pd

    block, col = case
    _same_both_ways(parse_fairness(block), pd.DataFrame(col), "s" if scored else None)


def test_many_groups_match_and_left_out_reasons_are_sorted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(7)
    n = 5000
    values = [f"s{i}" for i in range(300)]
    raw = rng.integers(0, 320, n)  # 20 undeclared values
    table = pd.DataFrame(
        {
            "g": [None if v == 319 else f"s{v}" for v in raw.tolist()],
            "y": rng.integers(0, 2, n),
            "p": rng.integers(0, 2, n),
            "prob": rng.random(n),
        }
    )
    spec = parse_fairness(
        {"label": "y", "prediction": "p", "probability": "prob", "attributes": {"g": values}}
    )
    fast, slow = _both(monkeypatch, spec, table, "prob")
    assert fast.counts == slow.counts
    left = fast.counts.groupings[("g",)].left_out
    assert list(left) == sorted(left)
    assert left["g: missing"] == int((raw == 319).sum())


@pytest.mark.parametrize(
    ("column", "bad", "message"),
    [
        ("y", 2, "the label column 'y' holds '2'"),
        ("p", "yes", "the prediction column 'p' holds 'yes'"),
        ("g", "a\x1b[31m", "contains control characters"),
        ("prob", 1.5, "probabilities must lie in"),
    ],
)
def test_refusals_are_unchanged(column: str, bad: Any, message: str) -> None:
    import pandas as pd

    col: dict[str, list[Any]] = {
        "g": ["a", "b", "a"],
        "y": [1, 0, 1],
        "p": [1, 1, 0],
        "prob": [0.2, 0.3, 0.9],
    }
    col[column] = [col[column][0], bad, col[column][2]]
    spec = parse_fairness(
        {"label": "y", "prediction": "p", "probability": "prob", "attributes": {"g": ["a", "b"]}}
    )
    with pytest.raises(InputError, match=message.replace("[", r"\[")):
        load.load_counts(spec, pd.DataFrame(col))


@settings(max_examples=40, deadline=None)
@given(case=tables(), scored=st.booleans())
def test_a_file_whose_cells_come_as_arrow_matches_cell_by_cell(
    tmp_path_factory: pytest.TempPathFactory, case: Any, scored: bool
) -> None:
    """A large file's cells stay an Arrow table (``engine.Cube``); the arrays read it."""
    import pandas as pd

    from respai.engine import files

    block, col = case
    path = tmp_path_factory.mktemp("arrow") / "cases.parquet"
    pd.DataFrame(col).to_parquet(path)
    spec = parse_fairness({**block, "cases": str(path)})
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(files, "ARROW_FROM_BYTES", 0)
        _same_both_ways(spec, None, "s" if scored else None)


@pytest.mark.parametrize(
    ("column", "bad", "message"),
    [
        ("y", "2", "the label column 'y' holds '2'"),
        ("p", "yes", "the prediction column 'p' holds 'yes'"),
        ("g", "a\x1b[31m", "contains control characters"),
        ("prob", "1.5", "probabilities must lie in"),
        ("prob", "-3", "probabilities must lie in"),
    ],
)
def test_a_file_read_as_arrow_refuses_as_the_row_reading_does(
    tmp_path: Any, column: str, bad: str, message: str
) -> None:
    """A bad value in a file whose cells come as Arrow gets the same message, naming the
    same line, as when they come as rows."""
    from respai.engine import files

    base = [["a", "1", "1", "0.2"], ["b", "0", "1", "0.3"], ["a", "1", "0", "0.9"]]
    rows = [list(r) for r in base * 5]
    at = ["g", "y", "p", "prob"].index(column)
    rows[7][at] = bad
    path = tmp_path / "cases.csv"
    path.write_text("g,y,p,prob\n" + "".join(",".join(r) + "\n" for r in rows), encoding="utf-8")
    spec = parse_fairness(
        {
            "cases": str(path),
            "label": "y",
            "prediction": "p",
            "probability": "prob",
            "attributes": {"g": ["a", "b"]},
        }
    )
    said = []
    for threshold in (0, 1 << 62):  # Arrow cells, then rows
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(files, "ARROW_FROM_BYTES", threshold)
            with pytest.raises(InputError) as caught:
                load.load_counts(spec)
        said.append(caught.value.diagnostics())
    assert said[0] == said[1]
    assert message in said[0] and "line 9" in said[0], said[0]
