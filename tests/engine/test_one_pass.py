"""One scan for the group rules and the LL144 tables gives the two passes' exact counts."""

from __future__ import annotations

import csv
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from respai import engine

SEX = st.sampled_from(["Female", "Male", "", "x"])
RACE = st.sampled_from(["Asian", "White", "", "Black or African American"])
ROW = st.tuples(
    SEX,
    RACE,
    st.sampled_from(["0", "1", ""]),
    st.sampled_from(["0", "1", ""]),
    st.one_of(st.just(""), st.floats(0, 1, allow_nan=False).map(lambda x: f"{x:.4f}")),
)


def _write(folder: Path, rows: list[tuple[Any, ...]]) -> tuple[Path, Path]:
    cases, self_id = folder / "cases.csv", folder / "self_id.csv"
    with cases.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["id", "label", "prediction", "p"])
        w.writerows([f"i{n}", r[2], r[3], r[4]] for n, r in enumerate(rows))
    with self_id.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["id", "sex", "race"])
        w.writerows([f"i{n}", r[0], r[1]] for n, r in enumerate(rows) if n % 3)
        w.writerow(["extra", "Female", "Asian"])
    return cases, self_id


def _norm(cube: list[engine.CubeRow]) -> list[tuple[Any, ...]]:
    return sorted(
        (
            tuple(str(k) for k in c.keys),
            str(c.prob_bin),
            c.n,
            c.prob_n,
            c.prob_sum,
            c.prob_min,
            c.prob_max,
            c.non_null,
        )
        for c in cube
    )


def _groups(rows: list[tuple[tuple[Any, ...], int]]) -> list[tuple[Any, ...]]:
    return sorted((tuple(str(k) for k in key), n) for key, n in rows)


TEXT = ["sex", "race", "label", "prediction", "id"]


@settings(max_examples=25, deadline=None)
@given(
    rows=st.lists(ROW, min_size=1, max_size=60),
    joined=st.booleans(),
    with_p=st.booleans(),
    value=st.booleans(),
)
def test_one_scan_equals_the_two_passes(
    rows: list[tuple[Any, ...]], joined: bool, with_p: bool, value: bool
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        cases_path, self_id_path = _write(Path(tmp), rows)
        cases = engine.open_file(cases_path, None, ",", TEXT)
        source: engine.Source = cases
        if joined:
            right = engine.open_file(self_id_path, None, ",", TEXT)
            source = engine.open_join(
                cases,
                right,
                "id",
                ["label", "prediction", "p"],
                ["sex", "race"],
                text_columns=TEXT,
            )
        else:  # one file holding everything
            with cases_path.open("w", newline="", encoding="utf-8") as fh:
                w = csv.writer(fh)
                w.writerow(["id", "sex", "race", "label", "prediction", "p"])
                w.writerows([f"i{n}", *r] for n, r in enumerate(rows))
            cases = engine.open_file(cases_path, None, ",", TEXT)
            source = cases
        keys = ["sex", "label", "prediction"]
        probability = "p" if with_p else None
        extra = ["race"]
        flags = list(engine.JOINED_FLAGS) if joined else []
        group_keys = [*flags, "sex", "race", "prediction"]
        v = "p" if value else None
        cube_source = engine.decided_rows(source) if joined else source  # type: ignore[arg-type]
        expect_cube = engine.count_cube(cube_source, keys, probability, 10, extra)
        expect_groups = engine.group_counts(source, group_keys, value=v)
        cube, groups = engine.count_cube_and_groups(
            source, keys, probability, 10, extra, group_keys, value=v, cube_left_only=joined
        )
        assert _norm(cube) == _norm(expect_cube)
        assert _groups(groups) == _groups(expect_groups)
