"""Degenerate inputs give a stated result: a value with a reason, never a crash or a 0."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from respai.ll144.tables import build_tables

HEADER = ["applicant_id", "sex", "race", "advanced"]
SEL = {"kind": "selection", "selected": "advanced", "sex": "sex", "race": "race"}


def _run(
    tmp_path: Path,
    rows: list[tuple[Any, ...]],
    cli_run: Callable[..., Any],
    ll: SimpleNamespace,
    **extra: Any,
) -> dict[str, Any]:
    ll.write_csv(tmp_path / "decisions.csv", HEADER, rows)
    spec = ll.write_spec(tmp_path, {**SEL, **extra})
    run = cli_run("ll144", str(spec), "--json")
    assert run.code == 0, run.err
    assert "Traceback" not in run.err
    payload: dict[str, Any] = json.loads(run.out)
    return payload


def test_no_selections_at_all(
    tmp_path: Path, cli_run: Callable[..., Any], ll: SimpleNamespace
) -> None:
    rows = [(str(i), "Male" if i % 2 else "Female", "White", 0) for i in range(40)]
    payload = _run(tmp_path, rows, cli_run, ll)
    sex = payload["tables"]["sex"]
    assert sex["undefined"]["code"] == "best_rate_zero"
    for row in sex["rows"]:
        assert row["rate"] == 0.0
        assert row["impact_ratio"] is None
        assert row["impact_ratio_undefined"]["code"] == "best_rate_zero"
    assert payload["findings"] == []


def test_one_category_only(
    tmp_path: Path, cli_run: Callable[..., Any], ll: SimpleNamespace
) -> None:
    rows = [(str(i), "Male", "Asian", i % 3 == 0) for i in range(30)]
    rows = [(a, b, c, int(d)) for a, b, c, d in rows]
    payload = _run(tmp_path, rows, cli_run, ll)
    sex = payload["tables"]["sex"]
    assert sex["undefined"]["code"] == "single_category"
    male, female = sex["rows"]
    assert male["applicants"] == 30 and male["impact_ratio"] is None
    assert "only one sex category (Male)" in male["impact_ratio_undefined"]["reason"]
    assert female["applicants"] == 0 and female["rate"] is None
    assert female["rate_undefined"]["code"] == "empty_category"
    assert female["excluded"] is False


def test_every_row_unknown(
    tmp_path: Path, cli_run: Callable[..., Any], ll: SimpleNamespace
) -> None:
    rows = [(str(i), "", "Decline to answer", i % 2) for i in range(20)]
    payload = _run(tmp_path, rows, cli_run, ll, unknown_values=["Decline to answer"])
    for name in ("sex", "race", "sex_x_race"):
        table = payload["tables"][name]
        assert table["unknown"] == 20 and table["known"] == 0
        assert table["undefined"]["code"] == "no_known_category"
        assert all(r["rate"] is None and r["share_of_known"] is None for r in table["rows"])
    assert payload["reconciliation"]["both_known"] == 0


def test_an_intersection_with_no_rows_is_listed(
    tmp_path: Path, cli_run: Callable[..., Any], ll: SimpleNamespace
) -> None:
    rows = [
        (str(i), ["Male", "Female"][i % 2], ["White", "Asian"][(i // 2) % 2], i % 3 == 0)
        for i in range(200)
    ]
    rows = [(a, b, c, int(d)) for a, b, c, d in rows]
    payload = _run(tmp_path, rows, cli_run, ll)
    inter = payload["tables"]["sex_x_race"]
    assert len(inter["rows"]) == 14
    empty = next(r for r in inter["rows"] if r["category"] == "Two or More Races Female")
    assert empty["applicants"] == 0 and empty["rate"] is None
    assert empty["rate_undefined"]["reason"] == "no applicants in this category"
    assert empty["impact_ratio"] is None and empty["excluded"] is False
    kept = [r for r in inter["rows"] if r["applicants"]]
    assert len(kept) == 4 and all(r["impact_ratio"] is not None for r in kept)


def test_exclusions_need_a_justification(
    tmp_path: Path, cli_run: Callable[..., Any], ll: SimpleNamespace
) -> None:
    rows = [(str(i), "Male" if i % 2 else "Female", "White", i % 2) for i in range(99)]
    rows.append(("99", "Female", "Asian", 1))  # Asian: 1% of the known race/ethnicity
    ll.write_csv(tmp_path / "decisions.csv", HEADER, rows)
    spec = ll.write_spec(tmp_path, SEL)
    run = cli_run("ll144", str(spec), "--json")
    assert run.code == 2 and run.out == ""
    assert "ll144.exclusion_justification: is required" in run.err
    assert "Asian (1 applicant, 1.00% of the known race/ethnicity)" in run.err
    assert "min_share: 0" in run.err
    kept = ll.write_spec(tmp_path, {**SEL, "min_share": 0}, name="keep.yaml")
    run = cli_run("ll144", str(kept), "--json")
    assert run.code == 0
    asian = json.loads(run.out)["tables"]["race"]["rows"][4]
    assert asian["category"] == "Asian" and asian["excluded"] is False


def test_a_share_of_exactly_min_share_is_kept() -> None:
    tables = build_tables({("Male", "White"): (98, 40), ("Female", "Asian"): (2, 1)})
    assert tables["race"].row("Asian").share == 0.02
    assert not tables["race"].row("Asian").excluded


def test_header_only_file(
    tmp_path: Path, cli_run: Callable[..., Any], ll: SimpleNamespace
) -> None:
    ll.write_csv(tmp_path / "decisions.csv", HEADER, [])
    spec = ll.write_spec(tmp_path, SEL)
    run = cli_run("ll144", str(spec))
    assert run.code == 2 and "no rows" in run.err


def test_an_impact_ratio_exactly_at_the_line_is_not_under_it() -> None:
    """100/300 against 125/300 is 0.8 exactly (0.7999999999999999 in floats)."""
    tables = build_tables(
        {("Male", "White"): (300, 125), ("Female", "White"): (300, 100)}, margin=0.0
    )
    female = tables["sex"].row("Female")
    assert (100 / 300) / (125 / 300) < 0.8  # the ratio of rounded rates slips under
    assert female.ratio_below(0.8) is False
    assert not tables["sex"].findings  # no finding under the line + margin 0
    just_under = build_tables(
        {("Male", "White"): (300, 125), ("Female", "White"): (300, 99)}, margin=0.0
    )
    assert just_under["sex"].row("Female").ratio_below(0.8) is True
    assert just_under["sex"].findings
