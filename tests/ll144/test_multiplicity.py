"""Honest significance in LL144: Holm over every comparison of the audit's tables.

The findings test each category against the best *observed* category of its table. These
tests check the adjustment against independent references (statsmodels' Holm, SciPy's
Fisher test), and that, in simulated audits with no true gap, the share of audits with any
"significant" finding stays at alpha with the adjustment and is far above it without.
"""

from __future__ import annotations

import base64
import json
import math
from collections.abc import Callable
from itertools import permutations
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from scipy.stats import fisher_exact
from tests.references import holm_adjusted

from respai.eeo1 import RACE_CATEGORIES, SEX_CATEGORIES
from respai.ll144.multiplicity import comparison_family, fisher_lower_all, holm
from respai.ll144.tables import LINE, TABLES, Tally, build_tables, kept_categories
from respai.render.escape import html_text, markdown_text
from respai.smallcells import assess_gap, fisher_lower

ALPHA = 0.05
CELLS = [(s, r) for s in SEX_CATEGORIES for r in RACE_CATEGORIES]  # the 14 cells


# --- Holm against statsmodels -------------------------------------------------------------


@pytest.mark.parametrize("m", [1, 2, 26, 226])
def test_holm_matches_statsmodels(m: int) -> None:
    rng = np.random.default_rng(20261202 + m)
    for _ in range(10):
        p = rng.uniform(0, 1, m) ** rng.uniform(0.5, 6)  # many small p-values
        if m > 2:  # ties, exact zeros and ones
            p[rng.integers(0, m, 2)] = p[0]
            p[rng.integers(0, m)] = 0.0
            p[rng.integers(0, m)] = 1.0
        want = holm_adjusted(p, ALPHA)
        got = holm(list(p))
        assert got == pytest.approx(list(want), rel=1e-12, abs=0)


def test_holm_refuses_a_value_that_is_not_a_p_value() -> None:
    for bad in (-0.1, 1.5, math.nan):
        with pytest.raises(ValueError, match="p-value"):
            holm([0.1, bad])


# --- the vectorised Fisher test is fisher_lower ------------------------------------------


def test_fisher_lower_all_is_fisher_lower_and_scipy() -> None:
    rng = np.random.default_rng(7)
    n1 = rng.integers(0, 150, 400)
    n2 = rng.integers(0, 150, 400)
    k1 = [int(rng.integers(0, n + 1)) for n in n1]
    k2 = [int(rng.integers(0, n + 1)) for n in n2]
    got = fisher_lower_all(k1, list(n1), k2, list(n2))
    for i, p in enumerate(got):
        assert p == fisher_lower(k1[i], int(n1[i]), k2[i], int(n2[i]))  # the same value
        table = [[k1[i], n1[i] - k1[i]], [k2[i], n2[i] - k2[i]]]
        assert p == pytest.approx(fisher_exact(table, alternative="less").pvalue, rel=1e-9)
    with pytest.raises(ValueError, match="selections"):
        fisher_lower_all([5], [4], [0], [1])


# --- the family --------------------------------------------------------------------------


def _null_tally(rng: np.random.Generator, n: int = 70, rate: float = 0.3) -> Tally:
    return {cell: (n, int(rng.binomial(n, rate))) for cell in CELLS}


def test_the_family_is_every_ordered_pair_of_kept_categories_of_every_table() -> None:
    tables = build_tables(_null_tally(np.random.default_rng(1)), findings=False)
    family = comparison_family({name: kept_categories(t) for name, t in tables.items()})
    # 2 sexes, 7 races, 14 cells: 2·1 + 7·6 + 14·13 ordered pairs
    assert family.size == 2 + 42 + 182
    assert family.tables == TABLES
    for name, table in tables.items():
        labels = [r.category for r in table.rows]
        pairs = {(c.category, c.against) for c in family.comparisons if c.table == name}
        assert pairs == set(permutations(labels, 2))
    # excluded and empty categories are not compared; a lone category gives no pair
    fam = comparison_family({"sex": [("Male", 10, 5)], "race": []})
    assert fam.size == 0 and fam.tables == ()
    with pytest.raises(KeyError):
        fam.adjusted("sex", "Female", "Male")


def test_the_family_depends_on_the_applicant_counts_only() -> None:
    rng = np.random.default_rng(3)
    sizes = {cell: int(rng.integers(1, 200)) for cell in CELLS}
    sizes[("Female", "Asian")] = 3  # under min_share in the intersectional table
    seen = set()
    for _ in range(5):
        tally = {c: (n, int(rng.binomial(n, rng.uniform(0, 1)))) for c, n in sizes.items()}
        tables = build_tables(tally, findings=False)
        fam = comparison_family({name: kept_categories(t) for name, t in tables.items()})
        seen.add(tuple((c.table, c.category, c.against) for c in fam.comparisons))
    assert len(seen) == 1
    (pairs,) = seen
    assert not [p for p in pairs if "Asian Female" in p[1:]]


# --- the seed's worked numbers still hold, and the adjustment is Holm over the family ---

SEED = {
    ("Female", "Black or African American"): (120, 30),
    ("Female", "Hispanic or Latino"): (70, 18),
    ("Male", "Asian"): (100, 36),
    ("Male", "White"): (300, 99),
}


def _independent_adjusted(tables: Any) -> dict[tuple[str, str, str], float]:
    """Holm over every ordered pair of kept categories, with SciPy and statsmodels."""
    keys, raw = [], []
    for name in TABLES:
        kept = [r for r in tables[name].rows if r.count > 0 and not r.excluded]
        if len(kept) < 2:
            continue
        for a, b in permutations(kept, 2):
            table = [[a.selected, a.count - a.selected], [b.selected, b.count - b.selected]]
            keys.append((name, a.category, b.category))
            raw.append(fisher_exact(table, alternative="less").pvalue)
    adjusted = holm_adjusted(raw, ALPHA)
    return dict(zip(keys, adjusted, strict=True))


def test_seed_worked_numbers_hold_beside_the_adjusted_p_value() -> None:
    tables = build_tables(SEED)
    found = {f.category: f for f in tables["sex_x_race"].findings}
    black = found["Black or African American Female"]
    hispanic = found["Hispanic or Latino Female"]
    assert round(black.gap.p_value, 4) == 0.0522
    assert round(hispanic.gap.p_value, 4) == 0.1051
    assert black.gap.power is not None and round(black.gap.power, 3) == 0.490
    # 2 sexes, 4 races and 4 cells with applicants: 2 + 12 + 12 comparisons
    assert black.comparisons == 26 and black.adjustment == "holm"
    reference = _independent_adjusted(tables)
    assert len(reference) == 26
    for name in TABLES:
        for f in tables[name].findings:
            want = reference[(name, f.category, f.compared_with)]
            assert f.gap.p_adjusted == pytest.approx(want, rel=1e-9)
            assert f.gap.p_adjusted >= f.gap.p_value
            assert f.gap.significant is (f.gap.p_adjusted <= ALPHA)
    assert "Holm-adjusted over the audit's 26 comparisons to p = " in black.gap.sentence
    assert "p = 0.0522" in black.gap.sentence


def test_a_real_gap_stays_significant_after_the_adjustment() -> None:
    tally = dict.fromkeys(CELLS, (200, 80))
    tally[("Female", "Black or African American")] = (200, 30)
    inter = build_tables(tally)["sex_x_race"]
    (f,) = [f for f in inter.findings if f.category == "Black or African American Female"]
    assert f.comparisons == 226
    assert f.gap.p_value < 1e-6 and f.gap.p_adjusted is not None
    assert f.gap.p_value < f.gap.p_adjusted <= ALPHA
    assert f.gap.finding == "below_line_significant"


def test_the_adjusted_p_value_alone_decides_significance() -> None:
    raw = assess_gap(40, 400, 36, 100)
    assert raw.significant and raw.p_adjusted is None
    held = assess_gap(40, 400, 36, 100, p_adjusted=0.2, adjustment="Holm-adjusted over 9")
    assert not held.significant and held.finding == "below_line_underpowered"
    assert held.p_value == raw.p_value and held.power == raw.power
    assert "Holm-adjusted over 9 to p = 0.2000" in held.sentence
    assert "before the adjustment" in held.sentence
    for bad in ({"p_adjusted": raw.p_value / 2, "adjustment": "x"}, {"p_adjusted": 0.5}):
        with pytest.raises(ValueError, match="p_adjusted"):
            assess_gap(40, 400, 36, 100, **bad)  # type: ignore[arg-type]


# --- the null simulation: no true gap ----------------------------------------------------


def _significant_tables(tally: Tally) -> tuple[bool, bool]:
    """Whether any reported comparison is 'significant': (adjusted rule, unadjusted rule).

    A finding is reported for every kept category under the line against its table's top
    category; it is significant when its p-value (adjusted, or raw) is at most alpha.
    """
    tables = build_tables(tally, findings=False)
    family = comparison_family({name: kept_categories(t) for name, t in tables.items()})
    raw = {(c.table, c.category, c.against): c.p_value for c in family.comparisons}
    adjusted, unadjusted = False, False
    for name, table in tables.items():
        if table.best is None:
            continue
        for row in table.rows:
            if row.impact_ratio is None or row.impact_ratio >= LINE:
                continue
            adjusted |= family.adjusted(name, row.category, table.best) <= ALPHA
            unadjusted |= raw[(name, row.category, table.best)] <= ALPHA
    return adjusted, unadjusted


def _bound(audits: int) -> float:
    return ALPHA + 2.5 * math.sqrt(ALPHA * (1 - ALPHA) / audits)


@pytest.mark.parametrize(
    ("audits", "sizes"),
    [
        (400, None),  # 14 cells of 70, all at 0.3, with the sex and race margins
        (200, "unequal"),  # cells of 15 to 300, all at 0.3
    ],
)
def test_null_audits_call_a_gap_significant_at_most_alpha_of_the_time(
    audits: int, sizes: str | None
) -> None:
    rng = np.random.default_rng(144)
    adjusted = unadjusted = 0
    for _ in range(audits):
        if sizes is None:
            tally = _null_tally(rng)
        else:
            tally = {
                c: (n, int(rng.binomial(n, 0.3))) for c in CELLS for n in [rng.integers(15, 301)]
            }
        a, u = _significant_tables(tally)
        adjusted += a
        unadjusted += u
    bound = _bound(audits)
    assert adjusted / audits <= bound, (adjusted, audits)
    # one test per category against the best observed one, read at alpha, is far off
    assert unadjusted / audits > bound, (unadjusted, audits)
    assert unadjusted / audits > 0.5


def test_the_simulation_rule_is_the_rule_of_the_findings() -> None:
    """The simulation above reads the same decision the published findings make."""
    rng = np.random.default_rng(5)
    checked = 0
    for _ in range(50):  # the unadjusted rule fires in most null audits
        if checked == 2:
            break
        tally = _null_tally(rng, n=40)
        adjusted, unadjusted = _significant_tables(tally)
        if not unadjusted:
            continue
        tables = build_tables(tally)
        findings = [f for name in TABLES for f in tables[name].findings]
        significant = [f for f in findings if f.gap.finding == "below_line_significant"]
        assert bool(significant) is adjusted
        # the unadjusted rule would have called some of them significant
        below = [f for f in findings if (f.gap.impact_ratio or 1.0) < LINE]
        assert any(f.gap.p_value <= ALPHA for f in below)
        checked += 1
    assert checked == 2


# --- every output shows the adjusted p-value beside the raw one ---------------------------

HEADER = ["applicant_id", "sex", "race", "advanced"]


def _rows() -> list[tuple[Any, ...]]:
    plan = [
        ("Male", "White", 200, 100),
        ("Female", "White", 200, 60),
        ("Male", "Asian", 120, 55),
        ("Female", "Asian", 120, 45),
    ]
    rows: list[tuple[Any, ...]] = []
    for sex, race, n, k in plan:
        rows += [(f"A{len(rows) + i}", sex, race, int(i < k)) for i in range(n)]
    return rows


def _predicate(record: Path) -> dict[str, Any]:
    envelope = json.loads(record.read_text(encoding="utf-8"))
    statement = json.loads(base64.b64decode(envelope["payload"]))
    return statement["predicate"]


def test_every_output_reports_the_adjusted_p_value(
    tmp_path: Path,
    ll: SimpleNamespace,
    cli_run: Callable[..., Any],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("RESPAI_HOME", str(tmp_path / "keys"))
    ll.write_csv(tmp_path / "decisions.csv", HEADER, _rows())
    spec = ll.write_spec(
        tmp_path,
        {"kind": "selection", "selected": "advanced", "sex": "sex", "race": "race"},
    )
    run = cli_run("ll144", str(spec), "--out", str(tmp_path / "out"))
    assert run.code == 0, run.err
    out = tmp_path / "out"
    doc = json.loads((out / "ll144.json").read_text(encoding="utf-8"))
    multiple = doc["settings"]["multiple_comparisons"]
    # sex 2, race 2 (White, Asian), intersections 4 cells: 2 + 2 + 12
    assert multiple["method"] == "holm" and multiple["comparisons"] == 16
    assert multiple["tables"] == list(TABLES)
    (women,) = [f for f in doc["findings"] if f["table"] == "sex"]
    assert women["category"] == "Female" and women["comparisons"] == 16
    raw, adjusted = women["p_value_fisher_one_sided"], women["p_value_adjusted"]
    assert raw < adjusted <= 1 and women["significant"] is (adjusted <= ALPHA)
    shown = f"p = {raw:.4f}" if raw >= 0.00005 else "p < 0.0001"
    both = f"one-sided Fisher exact {shown}, Holm-adjusted over the audit's 16 comparisons "
    both += f"to p = {adjusted:.4f}"
    for name, escape in (("summary.md", markdown_text), ("summary.html", html_text)):
        assert escape(both) in (out / name).read_text(encoding="utf-8"), name
    assert both in " ".join(run.err.split())  # the terminal (which wraps lines)
    pred = _predicate(out / "record.json")
    tests = {t["test_key"]: t for t in pred["records"] if t["record_type"] == "test"}
    details = tests["ll144:sex:Female"]["details"]
    assert details["p_value_fisher_one_sided"] == raw
    assert details["p_value_adjusted"] == adjusted
    assert details["adjustment"] == "holm" and details["comparisons"] == 16
    assert tests["ll144:sex:Male"]["details"]["p_value_adjusted"] is None
    start = pred["records"][0]
    assert start["settings"]["multiple_comparisons"]["comparisons"] == 16
