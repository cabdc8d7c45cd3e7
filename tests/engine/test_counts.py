"""The count pass on every engine equals a plain-Python oracle."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from respai.counts import Cell

SPEC: dict[str, Any] = {
    "label": "label",
    "prediction": "prediction",
    "probability": "score",
    "attributes": {"sex": ["f", "m"], "age": ["a", "b", "c"]},
    "intersections": [["sex", "age"]],
    "calibration_bins": 5,
}
COLUMNS = ["label", "prediction", "score", "sex", "age"]


def oracle(rows: list[dict[str, Any]]) -> dict[tuple[str, ...], Any]:
    """Per grouping: {group: Cell}, left_out by reason, calibration bins; by plain loops."""
    declared = SPEC["attributes"]
    out: dict[tuple[str, ...], Any] = {}
    for grouping in [("sex",), ("age",), ("sex", "age")]:
        cells: dict[tuple[str, ...], dict[str, int]] = {}
        bins: dict[tuple[str, ...], list[list[int]]] = {}
        left: dict[str, int] = {}
        for r in rows:
            reason = None
            for a in grouping:
                v = r.get(a)
                if v is None:
                    reason = f"{a}: missing"
                elif v not in declared[a]:
                    reason = f"{a}: undeclared value '{v}'"
                if reason:
                    break
            if reason:
                left[reason] = left.get(reason, 0) + 1
                continue
            key = tuple(r[a] for a in grouping)
            c = cells.setdefault(key, dict.fromkeys(["tp", "fp", "tn", "fn", "mp", "mn"], 0))
            y, p = r["label"], r["prediction"]
            if p is None:
                c["mp" if y == 1 else "mn"] += 1
            elif y == 1:
                c["tp" if p == 1 else "fn"] += 1
            else:
                c["fp" if p == 1 else "tn"] += 1
            b = bins.setdefault(key, [[0, 0, 0] for _ in range(5)])
            if r["score"] is not None:
                i = min(math.floor(r["score"] * 5), 4)
                b[i][0] += 1
                b[i][1] += y
                b[i][2] += math.floor(r["score"] * 1_000_000)
        out[grouping] = (cells, left, bins)
    return out


row_strategy = st.fixed_dictionaries(
    {
        "label": st.sampled_from([0, 1]),
        "prediction": st.sampled_from([0, 1, None]),
        "score": st.one_of(
            st.none(),
            st.sampled_from([0.0, 0.1, 0.2, 0.35, 0.5, 0.61, 0.999, 1.0]),
            st.floats(0, 1, allow_nan=False),
        ),
        "sex": st.sampled_from(["f", "m", None, "x"]),
        "age": st.sampled_from(["a", "b", "c", None, "zz"]),
    }
)


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(rows=st.lists(row_strategy, min_size=1, max_size=60))
def test_counts_equal_oracle(run_engine: Callable[..., Any], rows: list[dict[str, Any]]) -> None:
    counts = run_engine(SPEC, rows, COLUMNS)
    expected = oracle(rows)
    assert counts.total == len(rows)
    for grouping, (cells, left, bins) in expected.items():
        got = counts.groupings[grouping]
        assert dict(got.left_out) == left
        for key, cell in got.groups.items():
            want = cells.get(key, dict.fromkeys(["tp", "fp", "tn", "fn", "mp", "mn"], 0))
            assert cell == Cell(
                want["tp"], want["fp"], want["tn"], want["fn"], want["mp"], want["mn"]
            )
            want_bins = bins.get(key, [[0, 0, 0] for _ in range(5)])
            assert [list(b) for b in got.calibration[key].bins] == want_bins
        assert set(cells) <= set(got.groups)


def test_every_declared_group_has_a_row(run_engine: Callable[..., Any]) -> None:
    rows = [{"label": 1, "prediction": 1, "score": 0.9, "sex": "f", "age": "a"}]
    counts = run_engine(SPEC, rows, COLUMNS)
    crossed = counts.groupings[("sex", "age")]
    assert len(crossed.groups) == 6
    assert crossed.groups[("m", "c")] == Cell()
    assert crossed.groups[("f", "a")] == Cell(tp=1)


def test_integer_attribute_values_match_declared_text(run_engine: Callable[..., Any]) -> None:
    spec = {"label": "label", "prediction": "prediction", "attributes": {"sex": [1, 2]}}
    rows = [
        {"label": 1, "prediction": 0, "sex": 1},
        {"label": 0, "prediction": 0, "sex": 2},
        {"label": 0, "prediction": 1, "sex": 3},
    ]
    counts = run_engine(spec, rows, ["label", "prediction", "sex"])
    sex = counts.groupings[("sex",)]
    assert sex.groups[("1",)] == Cell(fn=1)
    assert sex.groups[("2",)] == Cell(tn=1)
    assert dict(sex.left_out) == {"sex: undeclared value '3'": 1}


def test_label_and_prediction_maps(run_engine: Callable[..., Any]) -> None:
    spec = {
        "label": "label",
        "prediction": "prediction",
        "attributes": {"g": ["u", "v"]},
        "label_map": {"good": 1, "bad": 0},
        "prediction_map": {"yes": 1, "no": 0},
    }
    rows = [
        {"label": "good", "prediction": "yes", "g": "u"},
        {"label": "bad", "prediction": "yes", "g": "u"},
        {"label": "good", "prediction": None, "g": "v"},
    ]
    counts = run_engine(spec, rows, ["label", "prediction", "g"])
    g = counts.groupings[("g",)]
    assert g.groups[("u",)] == Cell(tp=1, fp=1)
    assert g.groups[("v",)] == Cell(missing_pos=1)


@given(
    st.lists(
        st.tuples(st.integers(0, 50), st.integers(0, 50), st.integers(0, 10**9)),
        min_size=6,
        max_size=6,
    ),
    st.lists(st.integers(0, 9), min_size=3, max_size=3),
)
def test_calibration_columns_read_as_the_mapping_they_replace(
    flat: list[tuple[int, int, int]], without: list[int]
) -> None:
    import numpy as np

    from respai.counts import Calibration, CalibrationColumns, calibration_columns

    keys = [("a",), ("b",), ("c",)]
    bins = np.array(flat, dtype=np.int64).reshape(3, 2, 3)
    columns = CalibrationColumns(keys, bins, np.array(without, dtype=np.int64))
    plain = {
        k: Calibration((flat[2 * i], flat[2 * i + 1]), without[i]) for i, k in enumerate(keys)
    }
    assert columns == plain and plain == columns
    assert dict(columns.items()) == plain and list(columns.values()) == list(plain.values())
    assert columns[("b",)] == plain[("b",)] and ("z",) not in columns
    assert type(columns[("a",)].bins[0][2]) is int
    # the record's columns: the same from the arrays and from the mapping, in key order
    assert calibration_columns(columns, keys) == calibration_columns(plain, keys)
    backwards = keys[::-1]
    assert calibration_columns(columns, backwards) == calibration_columns(plain, backwards)


@given(st.lists(st.lists(st.integers(0, 10**12), min_size=6, max_size=6), min_size=0, max_size=12))
def test_cell_columns_read_as_the_mapping_they_replace(rows: list[list[int]]) -> None:
    import numpy as np

    from respai.counts import CellColumns

    keys = [(f"g{i}",) for i in range(len(rows))]
    array = np.array(rows, dtype=np.int64).reshape(len(rows), 6)
    columns = CellColumns(keys, array)
    plain = {k: Cell(*row) for k, row in zip(keys, rows, strict=True)}
    assert columns == plain and plain == columns and len(columns) == len(plain)
    assert list(columns.items()) == list(plain.items())
    assert list(columns.values()) == list(plain.values())
    assert all(columns[k] == plain[k] and k in columns for k in keys)
    assert ("nope",) not in columns
    assert repr(columns) == repr(plain)
    assert all(type(v) is int for c in columns.values() for v in c.to_dict().values())
    # every group at once: a cell of six arrays whose sums are each group's
    together = columns.columns()
    assert together.n.tolist() == [c.n for c in plain.values()]
    assert together.predicted.tolist() == [c.predicted for c in plain.values()]
    # nested lists read the same as the array
    assert CellColumns(keys, rows) == plain


@given(
    st.lists(st.tuples(*(st.integers(0, 2**70) for _ in range(5))), min_size=1, max_size=10),
    st.booleans(),
)
def test_rank_sum_columns_keep_integers_exact(rows: list[tuple[int, ...]], fits: bool) -> None:
    import numpy as np

    from respai.counts import RankSumColumns, RankSums

    if fits:  # the array form, as load keeps sums that fit 64 bits
        rows = [tuple(v % 2**62 for v in row) for row in rows]
    keys = [(f"g{i}",) for i in range(len(rows))]
    columns: list[object] = [list(c) for c in zip(*rows, strict=True)]
    if fits:
        columns = [np.array(c, dtype=np.int64) for c in columns]
    kept = RankSumColumns(keys, columns)
    plain = {k: RankSums(*row) for k, row in zip(keys, rows, strict=True)}
    assert kept == plain and list(kept.values()) == list(plain.values())
    assert all(kept[k] == plain[k] for k in keys)
    assert all(type(v) is int for r in kept.values() for v in (r.twice_u, r.negative_squares))


def test_rank_sum_columns_need_five_columns() -> None:
    from respai.counts import RankSumColumns

    with pytest.raises(ValueError, match="5 columns"):
        RankSumColumns([("a",)], [[1], [2]])
