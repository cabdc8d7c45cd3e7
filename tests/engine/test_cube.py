"""The count cube as columns (:class:`respai.engine.Cube`) reads as the cells always did.

DuckDB's result is kept as an Arrow table; the cells built from it, and the columns the
array reading of :mod:`respai.load` takes, must equal what DuckDB's own row fetch gives,
on generated files with empty cells, NaN and infinite probabilities, booleans, integers,
floats and text keys.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import duckdb
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from respai import engine
from respai.engine import count_pass, files
from respai.engine.count_pass import _cube_rows
from respai.engine.source import codes_of_values
from respai.errors import InputError

_probabilities = st.one_of(
    st.floats(0, 1),
    st.sampled_from([math.nan, math.inf, -0.5, 1.5, 1e300]),
)


def _column(draw: st.DrawFn, values: st.SearchStrategy[Any], rows: int) -> list[Any]:
    kind = draw(st.sampled_from(["one type", "nullable"]))
    out = draw(st.lists(values, min_size=rows, max_size=rows))
    if kind == "nullable":
        holes = draw(st.lists(st.booleans(), min_size=rows, max_size=rows))
        out = [None if h else v for v, h in zip(out, holes, strict=True)]
    return out


@st.composite
def _tables(draw: st.DrawFn) -> dict[str, list[Any]]:
    rows = draw(st.integers(1, 40))
    key_kind = draw(st.sampled_from(["text", "int", "bool", "float"]))
    pick = {
        "text": st.sampled_from(["a", "b", "", " c"]),
        "int": st.integers(-3, 3),
        "bool": st.booleans(),
        "float": st.sampled_from([0.5, -1.25, 2.0]),
    }[key_kind]
    return {
        "g": _column(draw, pick, rows),
        "label": _column(draw, st.integers(0, 1), rows),
        "prediction": _column(draw, st.integers(0, 1), rows),
        "p": _column(draw, _probabilities if draw(st.booleans()) else st.floats(0, 1), rows),
        "extra": _column(draw, st.sampled_from(["x", "y"]), rows),
    }


def _as_rows(table: dict[str, list[Any]]) -> list[tuple[Any, ...]]:
    return list(zip(*table.values(), strict=True))


@pytest.fixture(autouse=True)
def _arrow_for_every_file(monkeypatch: pytest.MonkeyPatch) -> None:
    """Small files fetch their cells as rows; these tests read the Arrow cube."""
    monkeypatch.setattr(files, "ARROW_FROM_BYTES", 0)


@given(_tables(), st.booleans(), st.integers(1, 12))
@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_the_arrow_cube_reads_as_the_row_fetch(
    tmp_path: Path, table: dict[str, list[Any]], with_probability: bool, bins: int
) -> None:
    import pyarrow as pa  # type: ignore[import-untyped]
    import pyarrow.parquet as pq  # type: ignore[import-untyped]

    path = tmp_path / "cases.parquet"
    pq.write_table(pa.table(table), path)
    source = engine.open_file(path)
    keys = ["g", "label", "prediction"]
    probability = "p" if with_probability else None
    try:
        cube = engine.count_cube(source, keys, probability, bins, ["extra"])
    except InputError:  # a probability the count pass cannot sum (inf, 1e300): refused
        assert with_probability
        return
    assert isinstance(cube, engine.Cube)
    built = list(cube)
    assert len(built) == len(cube)
    # the same pass fetched as DuckDB's rows and read by the row reading
    files.ARROW_FROM_BYTES = 1 << 62  # restored by the fixture
    by_rows = list(count_pass.count_cube(source, keys, probability, bins, ["extra"]))
    files.ARROW_FROM_BYTES = 0
    assert sorted(built, key=repr) == sorted(by_rows, key=repr)
    assert sorted(map(repr, built)) == sorted(map(repr, by_rows))  # types too (1 vs 1.0)
    for got in built:
        assert all(type(v) in (str, int, float, bool, type(None)) for v in got.keys)
    columns = cube.key_columns()
    assert [list(c) for c in zip(*(r.keys for r in built), strict=True)] == columns
    for i, column in enumerate(columns):  # Arrow's encoding = the values' own, in order
        got, want = cube.key_codes(i), codes_of_values(column)
        assert got is not None and want is not None
        assert got[0].tolist() == want[0].tolist() and got[1] == want[1]
    for name in ("n", "prob_n", "prob_sum", "prob_min", "prob_max", "prob_bin", "non_null:0"):
        values, valid = cube.numbers(name)
        for i, r in enumerate(built):
            want = r.non_null[0] if name == "non_null:0" else getattr(r, name)
            assert bool(valid[i]) == (want is not None), (name, i, want)
            if want is not None:
                assert values[i] == want, (name, i, want)


def test_the_row_reading_of_a_fetch_is_the_cells_reading() -> None:
    con = duckdb.connect()
    rows = con.execute(
        "SELECT * FROM (VALUES ('a', 1, 1, 0.0, 3, 2, 5::HUGEINT, 0.1, 0.2, 3), "
        "(NULL, 0, NULL, 'NaN'::DOUBLE, 1, 0, NULL, NULL, NULL, 0))"
    ).fetchall()
    cells = _cube_rows(rows, 3, True, 1)
    assert cells[0].keys == ("a", 1, 1) and cells[0].prob_bin == 0 and cells[0].prob_sum == 5
    assert cells[1].prob_bin is None and cells[1].prob_sum == 0 and cells[1].prob_min is None
    assert cells[1].non_null == (0,)


def test_a_cube_of_rows_gives_the_same_columns() -> None:
    from respai.engine import CubeRow

    rows = [
        CubeRow(("a", 1, 0), 2, 5, 4, 123, 0.25, 0.5, (5,)),
        CubeRow((None, 0, None), None, 1, 0, 0, None, None, (0,)),
    ]
    cube = engine.Cube.of_rows(rows)
    assert list(cube) == rows and cube[1] is rows[1] and len(cube) == 2
    assert cube.key_columns() == [["a", None], [1, 0], [0, None]]
    values, valid = cube.numbers("prob_bin")
    assert values.tolist() == [2, 0] and valid.tolist() == [True, False]
    values, valid = cube.numbers("prob_min")
    assert values.dtype == np.float64 and valid.tolist() == [True, False]
    assert cube.numbers("non_null:0")[0].tolist() == [5, 0]


@pytest.mark.parametrize("kind", ["DATE", "DECIMAL(4,1)", "TIMESTAMP"])
def test_other_key_types_are_fetched_as_rows(tmp_path: Path, kind: str) -> None:
    """Keys whose Arrow values might read back otherwise than DuckDB's rows: rows."""
    path = tmp_path / "cases.parquet"
    value = {"DATE": "DATE '2024-01-02'", "DECIMAL(4,1)": "1.5::DECIMAL(4,1)"}.get(
        kind, "TIMESTAMP '2024-01-02 03:04:05'"
    )
    con = duckdb.connect()  # its own connection: the default one is shared by every test
    try:
        con.execute(
            f"COPY (SELECT {value} AS g, 1 AS label, 0 AS prediction) TO '{path}' (FORMAT parquet)"
        ).fetchall()
        want = con.execute(f"SELECT {value}").fetchall()[0]
    finally:
        con.close()
    source = engine.open_file(path)
    cube = engine.count_cube(source, ["g", "label", "prediction"], None, 1)
    assert [c.keys for c in cube] == [(want[0], 1, 0)]


def test_releasing_arrow_memory_does_not_load_pyarrow() -> None:
    """A small file never loads pyarrow for its cells; letting memory go must not either."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from respai.engine.count_pass import release_memory\n"
        "release_memory()\n"
        "print('pyarrow' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
    # pyarrow half imported by the start-up preload thread: nothing of it is read
    half = (
        "import sys, types\n"
        "from respai.engine.count_pass import release_memory\n"
        "sys.modules['pyarrow'] = types.ModuleType('pyarrow')\n"
        "release_memory()\n"
        "print('ok')\n"
    )
    out = subprocess.run([sys.executable, "-c", half], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "ok", out.stderr
