"""The fairness, regression and ranking blocks put every row in the same group.

Each row carries its own id (1, 2, 3, ...) as the regression target and as a weight, and
is a list of its own in the ranking block, so a group's count and sum of ids pin down
which rows it holds. For columns of integers, floats, text with spaces, mixed spellings
of one number (``1`` / ``1.0`` / `` 1 ``), empty and undeclared values, the three blocks
must give the same groups (and the same counts of rows left out as missing or
undeclared) on a CSV file (DuckDB), a pandas frame, a polars frame and Spark (slow).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from respai.engine.group_match import text_literal
from respai.engine.opening import open_file, open_frame
from respai.engine.ranking_sums import ranking_sums
from respai.engine.regression_sums import EMPTY, UNDECLARED, cell_sums
from respai.engine.sql import Dialect, query
from respai.errors import SpecError
from respai.load import load_counts
from respai.regression.spec import parse_regression
from respai.spec import parse_fairness

Grouped = dict[str, Any]


def _frame(values: Sequence[Any]) -> pd.DataFrame:
    ids = list(range(1, len(values) + 1))
    return pd.DataFrame(
        {
            "g": values,
            "id": [float(i) for i in ids],
            "w": [float(i) for i in ids],
            "l": [f"list{i}" for i in ids],
            "pos": [1] * len(ids),
            "label": [i % 2 for i in ids],
            "decision": [(i // 2) % 2 for i in ids],
        }
    )


def _fairness(source: Any, declared: Sequence[str]) -> Grouped:
    spec = parse_fairness(
        {"label": "label", "prediction": "decision", "attributes": {"g": list(declared)}}
    )
    loaded = load_counts(spec, source, weight="w", weight_decimals=0)
    grouping = loaded.counts.groupings[("g",)]
    assert loaded.weighted is not None
    sums = loaded.weighted.sums.groupings[("g",)]
    groups = {k[0]: (c.n, sums.groups[k].n) for k, c in grouping.groups.items() if c.n}
    missing = sum(v for r, v in grouping.left_out.items() if r == "g: missing")
    undeclared = sum(v for r, v in grouping.left_out.items() if r.startswith("g: undeclared"))
    return {"groups": groups, "missing": missing, "undeclared": undeclared}


def _regression(source: Any, declared: Sequence[str]) -> Grouped:
    cells = cell_sums(source, {"g": list(declared)}, "id", "id", None, 0)
    groups = {c.key[0]: (c.rows, c.sums["t"]["sx"]) for c in cells}
    return {
        "groups": {k: v for k, v in groups.items() if k not in (EMPTY, UNDECLARED)},
        "missing": groups.get(EMPTY, (0, 0))[0],
        "undeclared": groups.get(UNDECLARED, (0, 0))[0],
    }


def _ranking(source: Any, declared: Sequence[str]) -> Grouped:
    sums = ranking_sums(
        source,
        list_col="l",
        order="pos",
        by_score=False,
        attribute="g",
        groups=list(declared),
        top_k=(1,),
        decimals=0,
        weight="w",
    )
    count, weight = sums.groups["count"], sums.groups["weight"]
    return {
        "groups": {g: (count[g].n, weight[g].n) for g in count if count[g].n},
        "missing": sums.left_out["missing_group"],
        "undeclared": sums.left_out["undeclared_group"],
    }


def _all_three(source: Any, declared: Sequence[str]) -> list[Grouped]:
    return [f(source, declared) for f in (_fairness, _regression, _ranking)]


def _expected(values: Sequence[Any], groups: dict[str, list[int]]) -> dict[str, Any]:
    """The groups by row number (1-based), as the spec page says they match."""
    return {g: (len(rows), sum(rows)) for g, rows in groups.items() if rows}


#: (column values, declared groups, the rows each group must hold, missing, undeclared)
CASES: dict[str, tuple[list[Any], list[str], dict[str, list[int]], int, int]] = {
    "integers": ([1, 2, 3, 1, 2, 1], ["1", "2"], {"1": [1, 4, 6], "2": [2, 5]}, 0, 1),
    "floats": (
        [1.0, 2.5, math.nan, 1e20, -0.0, 3.0, 0.1],
        ["1", "2.5", "0", "1e20", "0.10"],
        {"1": [1], "2.5": [2], "0": [5], "1e20": [4], "0.10": [7]},
        1,
        1,
    ),
    "text with spaces": (
        ["a", " a", "a ", "A", "", "  ", None, "b", " b "],
        ["a", "b"],
        {"a": [1, 2, 3], "b": [8, 9]},
        3,
        1,
    ),
    "mixed spellings of one number": (
        ["1", "1.0", " 1 ", "01", "1e0", "+1", "2.00", "", "x"],
        ["1", "2"],
        {"1": [1, 2, 3, 5, 6], "2": [7]},
        1,
        2,
    ),
    "undeclared only": (["x", "y", None], ["a"], {}, 1, 2),
    # more matching texts than a CASE chain takes: looked up in a joined table
    "many groups": (
        [str(i) for i in range(40)] + ["1.0", " 2 ", "x", "", "it's", "a\\b"],
        [str(i) for i in range(40)] + ["it's", "a\\b"],
        {
            **{str(i): [i + 1] for i in range(40)},
            "1": [2, 41],
            "2": [3, 42],
            "it's": [45],
            "a\\b": [46],
        },
        1,
        1,
    ),
    "quotes and backslashes": (
        ["it's", "a\\b", "it''s", " it's"],
        ["it's", "a\\b"],
        {"it's": [1, 4], "a\\b": [2]},
        0,
        1,
    ),
}


def _check(
    results: list[Grouped], expected: dict[str, Any], missing: int, undeclared: int
) -> None:
    fairness, regression, ranking = results
    assert fairness == regression == ranking
    assert fairness == {"groups": expected, "missing": missing, "undeclared": undeclared}


@pytest.mark.parametrize("name", list(CASES))
def test_the_three_blocks_group_a_pandas_frame_alike(name: str) -> None:
    values, declared, rows, missing, undeclared = CASES[name]
    frame = _frame(values)
    _check(_all_three(open_frame(frame), declared), _expected(values, rows), missing, undeclared)


@pytest.mark.parametrize("name", list(CASES))
def test_the_three_blocks_group_a_polars_frame_alike(name: str) -> None:
    values, declared, rows, missing, undeclared = CASES[name]
    frame = pl.from_pandas(_frame(values))
    _check(_all_three(open_frame(frame), declared), _expected(values, rows), missing, undeclared)


@pytest.mark.parametrize("name", list(CASES))
def test_the_three_blocks_group_a_csv_file_alike(name: str, tmp_path: Path) -> None:
    """A CSV file read by DuckDB: the three blocks agree with each other.

    The file's reading decides what a cell is (DuckDB's CSV reader reads a column of
    numbers as numbers and an unquoted blank as empty), so only the agreement is asserted
    here, and the groups where the text survives the file unchanged.
    """
    values, declared, rows, _, _ = CASES[name]
    path = tmp_path / "cases.csv"
    _frame(values).to_csv(path, index=False)
    fairness, regression, ranking = _all_three(open_file(path), declared)
    assert fairness == regression == ranking
    assert sum(n for n, _ in fairness["groups"].values()) + fairness["missing"] + fairness[
        "undeclared"
    ] == len(values)
    if name in ("integers", "mixed spellings of one number", "floats"):
        assert fairness["groups"] == _expected(values, rows)


SPELLINGS = [
    "1",
    "1.0",
    " 1",
    "1 ",
    "+1",
    "1e0",
    "01",
    "2",
    "2.50",
    "2.5",
    "a",
    " a ",
    "A",
    "",
    "   ",
    "0",
    "-0",
    "0.0",
    "x'y",
    None,
]
DECLARED = ["1", "2.5", "a", "0", "x'y", "b", "007"]


@settings(max_examples=25, deadline=None)
@given(
    st.lists(st.sampled_from(SPELLINGS), min_size=1, max_size=40),
    st.lists(st.sampled_from(DECLARED), min_size=1, max_size=4, unique=True),
)
def test_random_spellings_land_alike_in_the_three_blocks(
    values: list[str | None], declared: list[str]
) -> None:
    """Generated columns of spellings: the three blocks put every row in one place."""
    fairness, regression, ranking = _all_three(open_frame(_frame(values)), declared)
    assert fairness == regression == ranking


@settings(max_examples=25, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.none(),
            st.sampled_from([0.0, -0.0, 1.0, 2.5, 1e20, 1e-7, 0.1, math.nan, 3.0]),
            st.floats(allow_nan=True, allow_infinity=True, width=64),
        ),
        min_size=1,
        max_size=30,
    ),
    st.lists(
        st.sampled_from(["0", "1", "2.5", "1e20", "1e-07", "0.1", "3", "inf"]),
        min_size=1,
        max_size=4,
        unique=True,
    ),
)
def test_random_floats_land_alike_in_the_three_blocks(
    values: list[float | None], declared: list[str]
) -> None:
    """Generated float columns (NaN, infinities, -0.0, tiny and huge values) agree."""
    fairness, regression, ranking = _all_three(open_frame(_frame(values)), declared)
    assert fairness == regression == ranking


def test_spark_groups_as_the_file_and_the_frame(spark: Any) -> None:
    """A Spark DataFrame (slow: starts Spark): the three blocks agree, as on pandas."""
    for name, (values, declared, rows, missing, undeclared) in CASES.items():
        frame = _frame(values)
        kind = "double" if name == "floats" else "bigint" if name == "integers" else "string"
        data = [
            (None if isinstance(v, float) and math.isnan(v) and name != "floats" else v, *rest)
            for v, *rest in frame.itertuples(index=False)
        ]
        schema = (
            f"g {kind}, id double, w double, l string, pos bigint, label bigint, decision bigint"
        )
        results = _all_three(open_frame(spark.createDataFrame(data, schema)), declared)
        _check(results, _expected(values, rows), missing, undeclared)


def test_the_blocks_refuse_one_number_declared_twice() -> None:
    """As the fairness block: ``[1, '1.0']`` would let a cell match two groups."""
    with pytest.raises(SpecError, match=r"same number"):
        parse_fairness({"label": "y", "prediction": "p", "attributes": {"g": [1, "1.0"]}})
    with pytest.raises(SpecError, match=r"same number"):
        parse_regression(
            {
                "target": "y",
                "prediction": "p",
                "attributes": {"g": [1, "1.0"]},
                "rules": [
                    {"id": "gap", "metric": "mean_error", "attribute": "g", "max_group_gap": 1}
                ],
            }
        )
    from respai.ranking.spec import parse_ranking

    with pytest.raises(SpecError, match=r"same number"):
        parse_ranking(
            {
                "list": "l",
                "position": "pos",
                "attributes": {"g": [1, "1.0"]},
                "rules": [{"id": "top", "metric": "top_k_share", "k": 1, "max_group_gap": 0.5}],
            }
        )


@pytest.mark.parametrize("text", ["it's", "a\\b", "\t \n", "x''y", "é 漢 😀", "\\'"])
def test_text_literals_read_back_unchanged_on_duckdb(text: str) -> None:
    """A literal of any text reads back as that text (Spark's is checked in the slow test)."""
    rows = query(
        open_frame(pd.DataFrame({"a": [1]})), lambda d: f"SELECT {text_literal(d, text)}", ["a"]
    )
    assert rows == [(text,)]


def test_text_literals_read_back_unchanged_on_spark(spark: Any) -> None:
    """Spark reads backslash escapes: the literal spells them so the text comes back."""
    d = Dialect("t", spark=True)
    for text in ["it's", "a\\b", "\t \n", "x''y", "é 漢 😀", "\\'"]:
        assert spark.sql(f"SELECT {text_literal(d, text)}").collect()[0][0] == text


def test_many_matching_texts_are_looked_up_by_a_join_few_by_a_case_chain() -> None:
    """The two ways of coding in SQL are both used (the cases above run through both)."""
    from respai.engine.group_match import group_codes

    d = Dialect("t")
    many = [str(i) for i in range(40)]
    codes = group_codes(open_frame(_frame(many)), {"g": many})["g"]
    assert "LEFT JOIN" in codes.join(d) and "COALESCE" in codes.code(d)
    few = group_codes(open_frame(_frame(["a", " a", "b"])), {"g": ["a"]})["g"]
    assert few.join(d) == "" and " IN (" in few.code(d)
