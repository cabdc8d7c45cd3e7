"""Funnel decomposition, small-cell findings, and seed 001's Fisher numbers."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from scipy.stats import fisher_exact

from respai.ll144.audit import LL144Result
from respai.ll144.tables import build_tables
from respai.smallcells import assess_gap

HEADER = ["applicant_id", "sex", "race", "parsed", "knockout", "ranked"]


def _funnel_rows() -> list[tuple[Any, ...]]:
    """Stage 1 treats both sexes alike; stage 2 (knockout) halves women's pass rate."""
    rows: list[tuple[Any, ...]] = []

    def add(sex: str, n: int, parsed: int, knockout: int | None, ranked: int | None) -> None:
        for _ in range(n):
            rows.append((f"A{len(rows)}", sex, "White", parsed, knockout, ranked))

    for sex, ko_pass in (("Male", 64), ("Female", 32)):
        add(sex, 20, 0, None, None)  # 80 of 100 parse
        add(sex, 80 - ko_pass, 1, 0, None)  # knockout: 80% of men, 40% of women pass
        add(sex, ko_pass // 2, 1, 1, 1)  # ranked: half of those who got there
        add(sex, ko_pass - ko_pass // 2, 1, 1, 0)
    return rows


def test_the_funnel_names_the_stage_that_makes_the_gap(
    tmp_path: Path,
    audit: Callable[..., LL144Result],
    ll: SimpleNamespace,
    cli_run: Callable[..., Any],
) -> None:
    rows = _funnel_rows()
    ll.write_csv(tmp_path / "decisions.csv", HEADER, rows)
    spec = ll.write_spec(
        tmp_path,
        {
            "kind": "selection",
            "selected": "ranked",
            "sex": "sex",
            "race": "race",
            "stages": ["parsed", "knockout", "ranked"],
        },
    )
    res = audit(spec)
    assert res.funnel is not None
    parsed, knockout, ranked = res.funnel.stages
    assert (parsed.reached, parsed.passed) == (200, 160)
    assert (knockout.reached, knockout.passed) == (160, 96)
    assert parsed.worst_conditional["sex"] == ("Male", pytest.approx(1.0))
    female = knockout.conditional["sex"].row("Female")
    assert (female.count, female.selected) == (80, 32)
    assert female.impact_ratio == pytest.approx(0.5)
    assert ranked.conditional["sex"].row("Female").impact_ratio == pytest.approx(1.0)
    cumulative = ranked.cumulative["sex"].row("Female")
    assert (cumulative.count, cumulative.selected) == (100, 16)
    assert cumulative.impact_ratio == pytest.approx(0.5)
    assert res.funnel.first_below["sex"] == "knockout"
    assert res.funnel.first_below_cumulative["sex"] == "knockout"
    assert res.tables["sex"].row("Female").impact_ratio == pytest.approx(0.5)
    run = cli_run("ll144", str(spec), "--json")
    payload = json.loads(run.out)["diagnosis"]["funnel"]
    assert payload["first_stage_below_line"]["sex"] == "knockout"
    assert "first drops under 0.8 at stage 'knockout'" in run.err


def test_stages_out_of_order_are_refused(
    tmp_path: Path, cli_run: Callable[..., Any], ll: SimpleNamespace
) -> None:
    rows = [("1", "Male", "White", 1, 1, 1), ("2", "Female", "White", 0, 1, 0)]
    ll.write_csv(tmp_path / "decisions.csv", HEADER, rows)
    spec = ll.write_spec(
        tmp_path,
        {
            "kind": "selection",
            "selected": "ranked",
            "sex": "sex",
            "race": "race",
            "stages": ["parsed", "knockout"],
        },
    )
    run = cli_run("ll144", str(spec))
    assert run.code == 2
    assert "stage column 'knockout' holds 1 (first on line 3)" in run.err
    rows = [("1", "Male", "White", 1, None, 1)]
    ll.write_csv(tmp_path / "decisions.csv", HEADER, rows)
    run = cli_run("ll144", str(spec))
    assert run.code == 2 and "'knockout' is empty (first on line 2)" in run.err


@pytest.mark.parametrize(("k1", "n1", "p"), [(30, 120, 0.0522), (18, 70, 0.1051)])
def test_seed_fisher_numbers(k1: int, n1: int, p: float) -> None:
    gap = assess_gap(k1, n1, 36, 100)
    assert round(gap.p_value, 4) == p
    assert gap.p_value == pytest.approx(
        fisher_exact([[k1, n1 - k1], [36, 64]], alternative="less").pvalue, rel=1e-9
    )
    assert gap.finding == "below_line_underpowered" and not gap.significant
    assert gap.power is not None and gap.power < 0.8
    assert gap.n_for_power is not None and gap.n_for_power > n1


def test_seed_worked_example_through_the_tables() -> None:
    tally = {
        ("Female", "Black or African American"): (120, 30),
        ("Female", "Hispanic or Latino"): (70, 18),
        ("Male", "Asian"): (100, 36),
        ("Male", "White"): (300, 99),
    }
    inter = build_tables(tally)["sex_x_race"]
    assert inter.best == "Asian Male"
    found = {f.category: f for f in inter.findings}
    black, hispanic = (
        found["Black or African American Female"],
        found["Hispanic or Latino Female"],
    )
    assert round(black.gap.p_value, 4) == 0.0522
    assert round(hispanic.gap.p_value, 4) == 0.1051
    assert round(black.gap.impact_ratio or 0, 3) == 0.694
    assert black.compared_with == "Asian Male"
    assert "too small to confirm or rule out" in black.gap.sentence
    # White Male at 0.917 is above 0.8 + margin: no finding
    assert "White Male" not in found


def test_the_margin_band_gets_a_finding() -> None:
    tally = {("Male", "White"): (1000, 500), ("Female", "White"): (1000, 415)}
    sex = build_tables(tally, margin=0.05)["sex"]
    (finding,) = sex.findings
    assert finding.gap.finding == "near_line"  # 0.83: above 0.8, under 0.85
    assert build_tables(tally, margin=0.0)["sex"].findings == ()


@pytest.mark.parametrize(("short", "below"), [(0, None), (1, "screen")])
def test_the_funnel_line_is_decided_exactly(short: int, below: str | None) -> None:
    # women pass (4e17 - short) of 1e18, men 5e17 of 1e18: an impact ratio of exactly
    # 0.8, or under it by 2.5e-18, which no float tells from 0.8
    from respai.ll144.diagnosis import funnel

    n, men = 10**18, 5 * 10**17
    women = 4 * 10**17 - short
    cells = [
        ("Male", "White", (1,), men),
        ("Male", "White", (0,), n - men),
        ("Female", "White", (1,), women),
        ("Female", "White", (0,), n - women),
    ]
    f = funnel(cells, ["screen"], min_share=0.02, exclusions={})
    assert f.first_below["sex"] == below
    assert f.first_below_cumulative["sex"] == below
