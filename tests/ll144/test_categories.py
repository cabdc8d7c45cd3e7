"""Spellings: EEO-1 and DCWP labels, the spec's own map, unknowns, and refusals."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from respai.eeo1 import RACE_CATEGORIES, Normalizer, canonical_label
from respai.ll144.audit import LL144Result

HEADER = ["applicant_id", "sex", "race", "advanced"]


@pytest.mark.parametrize(
    ("spelling", "label"),
    [
        ("Hispanic or Latino", "Hispanic or Latino"),
        ("White (Not Hispanic or Latino)", "White"),
        ("  black or african american (not hispanic or latino) ", "Black or African American"),
        (
            "Native Hawaiian or Other Pacific Islander (Not Hispanic or Latino)",
            "Native Hawaiian or Other Pacific Islander",
        ),
        ("Native Hawaiian or Pacific Islander", "Native Hawaiian or Other Pacific Islander"),
        ("ASIAN", "Asian"),
        (
            "American Indian or Alaska Native (Not Hispanic or Latino)",
            "American Indian or Alaska Native",
        ),
        ("Native American or Alaska Native", "American Indian or Alaska Native"),
        ("Two or More Races (Not Hispanic or Latino)", "Two or More Races"),
        ("Two  or   More Races", "Two or More Races"),
    ],
)
def test_eeo1_and_dcwp_spellings(spelling: str, label: str) -> None:
    assert canonical_label("race", spelling) == label
    assert label in RACE_CATEGORIES


def test_normalizer_order_and_unknowns() -> None:
    n = Normalizer("sex", {"F": "Female", "m": "Male"}, ["Decline to answer", "Unknown"])
    assert n.resolve("f") == ("Female", True)
    assert n.resolve(" M ") == ("Male", True)
    assert n.resolve("female") == ("Female", True)
    assert n.resolve("UNKNOWN") == (None, True)
    assert n.resolve("   ") == (None, True)
    assert n.resolve(None) == (None, True)
    assert n.resolve("Nonbinary") == (None, False)


def test_file_spellings_end_in_the_same_cells(
    tmp_path: Path, audit: Callable[..., LL144Result], ll: SimpleNamespace
) -> None:
    rows: list[tuple[Any, ...]] = [
        ("1", "Male", "White (Not Hispanic or Latino)", 1),
        ("2", "male", "white", 0),
        ("3", "M", " WHITE ", 1),
        ("4", "Female", "Native American or Alaska Native", 1),
        ("5", "FEMALE", "American Indian or Alaska Native (Not Hispanic or Latino)", 0),
        ("6", "Female", "Native Hawaiian or Pacific Islander", 1),
        ("7", "Decline to answer", "Unknown", 1),
        ("8", "", "", 0),
        ("9", "Female", "Two or More Races", 0),
    ]
    ll.write_csv(tmp_path / "decisions.csv", HEADER, rows)
    spec = ll.write_spec(
        tmp_path,
        {
            "kind": "selection",
            "selected": "advanced",
            "sex": "sex",
            "race": "race",
            "categories": {"sex": {"M": "Male"}},
            "unknown_values": ["Decline to answer", "Unknown"],
            "min_share": 0,
        },
    )
    res = audit(spec)
    sex, race = res.tables["sex"], res.tables["race"]
    assert (sex.row("Male").count, sex.row("Male").selected) == (3, 2)
    assert sex.row("Female").count == 4 and sex.unknown == 2
    assert race.row("White").count == 3
    assert race.row("American Indian or Alaska Native").count == 2
    assert race.row("Native Hawaiian or Other Pacific Islander").count == 1
    assert race.unknown == 2
    cell = res.tables["sex_x_race"].row("American Indian or Alaska Native Female")
    assert (cell.count, cell.selected) == (2, 1)


def test_an_unmapped_value_is_refused_with_its_line(
    tmp_path: Path, cli_run: Callable[..., Any], ll: SimpleNamespace
) -> None:
    rows = [
        ("1", "Male", "White", 1),
        ("2", "Female", "Asian", 0),
        ("3", "Female", "Latinx", 1),
        ("4", "Male", "Latinx", 0),
    ]
    ll.write_csv(tmp_path / "decisions.csv", HEADER, rows)
    spec = ll.write_spec(
        tmp_path, {"kind": "selection", "selected": "advanced", "sex": "sex", "race": "race"}
    )
    out = tmp_path / "out"
    run = cli_run("ll144", str(spec), "--json", "--out", str(out))
    assert run.code == 2 and run.out == ""
    assert run.err.startswith("respai: error: ")
    assert "column 'race' holds 'Latinx' (first on line 4)" in run.err
    assert "decisions.csv" in run.err
    assert "ll144.categories.race" in run.err and "unknown_values" in run.err
    assert "Traceback" not in run.err and len(run.err.strip().splitlines()) == 1
    assert not out.exists()


def test_a_sex_value_outside_the_eeo1_categories(
    tmp_path: Path, cli_run: Callable[..., Any], ll: SimpleNamespace
) -> None:
    ll.write_csv(
        tmp_path / "decisions.csv", HEADER, [("1", "Male", "White", 1), ("2", "Femal", "White", 0)]
    )
    spec = ll.write_spec(
        tmp_path, {"kind": "selection", "selected": "advanced", "sex": "sex", "race": "race"}
    )
    run = cli_run("ll144", str(spec))
    assert run.code == 2
    assert "'Femal' (first on line 3)" in run.err and "Did you mean 'Female'?" in run.err


def test_control_characters_are_refused(
    tmp_path: Path, cli_run: Callable[..., Any], ll: SimpleNamespace
) -> None:
    ll.write_csv(
        tmp_path / "decisions.csv",
        HEADER,
        [("1", "Male", "White", 1), ("2", "Fe\x1b[31mmale", "White", 0)],
    )
    spec = ll.write_spec(
        tmp_path, {"kind": "selection", "selected": "advanced", "sex": "sex", "race": "race"}
    )
    run = cli_run("ll144", str(spec))
    assert run.code == 2 and "control characters" in run.err
    assert "\x1b" not in run.err


def test_a_decision_that_is_not_binary(
    tmp_path: Path, cli_run: Callable[..., Any], ll: SimpleNamespace
) -> None:
    ll.write_csv(
        tmp_path / "decisions.csv",
        HEADER,
        [("1", "Male", "White", "advance"), ("2", "Female", "White", "reject")],
    )
    spec = ll.write_spec(
        tmp_path, {"kind": "selection", "selected": "advanced", "sex": "sex", "race": "race"}
    )
    run = cli_run("ll144", str(spec))
    assert run.code == 2 and "'advance' (first on line 2)" in run.err
    assert "selected_map" in run.err
    mapped = ll.write_spec(
        tmp_path,
        {
            "kind": "selection",
            "selected": "advanced",
            "sex": "sex",
            "race": "race",
            "selected_map": {"advance": 1, "reject": 0},
        },
        name="mapped.yaml",
    )
    run = cli_run("ll144", str(mapped), "--json")
    assert run.code == 0, run.err
