"""Power that means what it says: at the level Holm used, unadjusted, and the design size.

Every number is recomputed here by exact enumeration over all outcomes with SciPy's
hypergeometric and binomial distributions, independently of ``respai.smallcells``.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import binom, fisher_exact, hypergeom

from respai.ll144.multiplicity import comparison_family
from respai.ll144.tables import build_tables
from respai.smallcells import assess_gap, design_sample_size, exact_power

SEED = {
    ("Female", "Black or African American"): (120, 30),
    ("Female", "Hispanic or Latino"): (70, 18),
    ("Male", "Asian"): (100, 36),
    ("Male", "White"): (300, 99),
}


def enumerated_power(p1: float, n1: int, p2: float, n2: int, level: float) -> float:
    """P(one-sided Fisher p <= level), summed over every (x1, x2)."""
    x1, x2 = np.meshgrid(np.arange(n1 + 1), np.arange(n2 + 1), indexing="ij")
    p = hypergeom.cdf(x1, n1 + n2, x1 + x2, n1)
    weight = binom.pmf(x1, n1, p1) * binom.pmf(x2, n2, p2)
    return float(weight[p <= level * (1 + 1e-10)].sum())


@pytest.mark.parametrize(("m", "want"), [(1, 0.490), (26, 0.104), (164, 0.033)])
def test_the_issue_numbers_by_enumeration(m: int, want: float) -> None:
    """30/120 against 36/100: 0.490 unadjusted, 0.104 at 0.05/26, 0.033 at 0.05/164."""
    brute = enumerated_power(30 / 120, 120, 36 / 100, 100, 0.05 / m)
    assert round(brute, 3) == want
    assert exact_power(30 / 120, 120, 36 / 100, 100, 0.05 / m) == pytest.approx(brute, abs=1e-12)


def test_seed_finding_reports_all_three_figures() -> None:
    """Seed 001: 0.0522 and 0.490 stay (unadjusted); Holm's level is 0.05 / 26 here."""
    inter = build_tables(SEED)["sex_x_race"]
    found = {f.category: f for f in inter.findings}
    g = found["Black or African American Female"].gap
    assert round(g.p_value, 4) == 0.0522 and round(g.power or 0, 3) == 0.490
    assert round(found["Hispanic or Latino Female"].gap.p_value, 4) == 0.1051
    # Of the 26 p-values only Female against Male (48/190 vs 135/400) is smaller, so
    # Holm tests this one second, at 0.05 / 25 (its twin in the race table ties with it).
    sex = fisher_exact([[48, 142], [135, 265]], alternative="less").pvalue
    assert sex < g.p_value
    assert g.decision_level == pytest.approx(0.05 / 25, rel=1e-12)
    assert g.power_at_decision_level == pytest.approx(
        enumerated_power(0.25, 120, 0.36, 100, 0.05 / 25), abs=1e-12
    )
    assert g.design_level == pytest.approx(0.05 / 26, rel=1e-12)
    assert g.design_n == design_sample_size(0.36, alpha=0.05 / 26) == 1202
    assert "(unadjusted power)" in g.sentence and "10% at level 0.002" in g.sentence
    assert "about 1,202 applicants per category" in g.sentence


@pytest.mark.slow
def test_design_size_is_where_power_first_reaches_80_percent() -> None:
    """The design figure checked by enumeration at the answer and one below it."""
    n = design_sample_size(0.36, alpha=0.05 / 26)
    assert n is not None
    assert enumerated_power(0.288, n, 0.36, n, 0.05 / 26) >= 0.80
    assert enumerated_power(0.288, n - 1, 0.36, n - 1, 0.05 / 26) < 0.80
    assert design_sample_size(0.0) is None and design_sample_size(0.5, line=1.0) is None


def test_holm_levels_follow_the_ranks() -> None:
    """Each comparison's level is alpha over (m - number of strictly smaller p-values)."""
    tally = {
        ("Male", "White"): (200, 90),
        ("Female", "White"): (180, 60),
        ("Male", "Asian"): (60, 20),
        ("Female", "Asian"): (60, 20),  # ties with Male Asian
    }
    kept = {
        "sex": [("Male", 260, 110), ("Female", 240, 80)],
        "sex_x_race": [(f"{r} {s}", n, k) for (s, r), (n, k) in tally.items()],
    }
    fam = comparison_family(kept)
    raw = [c.p_value for c in fam.comparisons]
    m = len(raw)
    for c in fam.comparisons:
        smaller = sum(p < c.p_value for p in raw)
        assert fam.level(c.table, c.category, c.against, 0.05) == pytest.approx(
            0.05 / (m - smaller), rel=1e-12
        )
        # Holm's adjusted value is never below the raw p-value times this divisor
        assert c.p_adjusted >= min(1.0, c.p_value * (m - smaller)) - 1e-12
    assert fam.design_level(0.05) == 0.05 / m


def test_the_power_at_holm_level_never_exceeds_the_unadjusted_power() -> None:
    g = assess_gap(30, 120, 36, 100, p_adjusted=0.5, adjustment="Holm", decision_level=0.01)
    assert g.power is not None and g.power_at_decision_level is not None
    assert g.power_at_decision_level <= g.power
    plain = assess_gap(30, 120, 36, 100)
    assert plain.power_at_decision_level is None and plain.design_n is None
    with pytest.raises(ValueError, match="decision_level"):
        assess_gap(30, 120, 36, 100, decision_level=0.0)
