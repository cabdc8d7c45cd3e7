"""Scoring tools: the median of the whole sample, the rule's worked example, cutoffs."""

from __future__ import annotations

import random
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest

from respai.ll144.audit import LL144Result
from respai.ll144.diagnosis import GRID, median_score, top_share_threshold

HEADER = ["applicant_id", "sex", "race", "score"]


def test_median_includes_unknowns(
    tmp_path: Path, audit: Callable[..., LL144Result], ll: SimpleNamespace
) -> None:
    rng = random.Random(5)
    rows = []
    for i in range(1001 + 1):  # an even count: the median is the mean of the middle two
        sex = rng.choice(["Male", "Female", ""])
        race = rng.choice(["White", "Asian", "Hispanic or Latino", ""])
        base = 70.0 if sex == "" else 50.0  # unknowns score high: they move the median
        rows.append((f"A{i}", sex, race, round(rng.gauss(base, 8), 1)))
    ll.write_csv(tmp_path / "decisions.csv", HEADER, rows)
    spec = ll.write_spec(
        tmp_path,
        {
            "kind": "scoring",
            "score": "score",
            "sex": "sex",
            "race": "race",
            "cutoffs": [0.1, 0.25],
        },
    )
    res = audit(spec)
    df = pd.DataFrame(rows, columns=HEADER)
    assert res.median == pytest.approx(float(df["score"].median()), abs=1e-12)
    known_median = float(df[df["sex"] != ""]["score"].median())
    assert res.median != pytest.approx(known_median)  # the choice matters here
    above = df["score"] > df["score"].median()
    for sex in ("Male", "Female"):
        row = res.tables["sex"].row(sex)
        part = df[df["sex"] == sex]
        assert (row.count, row.selected) == (len(part), int(above[part.index].sum()))
    assert res.tables["sex"].unknown == int((df["sex"] == "").sum())
    payload = res.to_dict()
    assert payload["median_score"] == res.median
    assert payload["tables"]["sex"]["rows"][0]["scored_above_median"] == (
        res.tables["sex"].row("Male").selected
    )
    assert any("unknown categories included" in i for i in payload["interpretation"])


def _worked_example_rows() -> list[tuple[str, str, str, float]]:
    """The DCWP rule's worked scoring example (6 RCNY § 5-301(d)), rebuilt from its counts.

    Race counts and scoring rates as printed in the rule; the rows the excerpt cut off are
    people whose race/ethnicity is unknown. Half the sample scores 10 and half 0, so the
    median is 5 and "above the median" is "scored 10".
    """
    race = {  # category: (applicants, above the median)
        "Hispanic or Latino": (28, 18),
        "White (Not Hispanic or Latino)": (40, 15),
        "Black or African American (Not Hispanic or Latino)": (32, 16),
        "Native Hawaiian or Pacific Islander (Not Hispanic or Latino)": (8, 5),
        "Asian (Not Hispanic or Latino)": (24, 10),
        "": (36, 20),
    }
    people = []
    for label, (n, k) in race.items():
        people += [(label, 10.0)] * k + [(label, 0.0)] * (n - k)
    high = [p for p in people if p[1] == 10.0]
    low = [p for p in people if p[1] == 0.0]
    sexes = ["Male"] * 50 + ["Female"] * 34 + ["Male"] * 42 + ["Female"] * 42
    return [
        (f"P{i}", sex, label, score)
        for i, (sex, (label, score)) in enumerate(zip(sexes, high + low, strict=True))
    ]


def test_the_rules_worked_scoring_example(
    tmp_path: Path, audit: Callable[..., LL144Result], ll: SimpleNamespace
) -> None:
    rows = _worked_example_rows()
    ll.write_csv(tmp_path / "decisions.csv", HEADER, rows)
    spec = ll.write_spec(
        tmp_path,
        {
            "kind": "scoring",
            "score": "score",
            "sex": "sex",
            "race": "race",
            "exclusion_justification": "Cells under 2%.",
        },
    )
    res = audit(spec)
    assert res.median == 5.0
    sex = res.tables["sex"]
    assert (sex.row("Male").count, sex.row("Female").count) == (92, 76)
    expected = {
        ("sex", "Male"): (0.543, 1.00),
        ("sex", "Female"): (0.447, 0.82),
        ("race", "Hispanic or Latino"): (0.642, 1.00),
        ("race", "White"): (0.375, 0.58),
        ("race", "Black or African American"): (0.500, 0.78),
        ("race", "Native Hawaiian or Other Pacific Islander"): (0.625, 0.97),
        ("race", "Asian"): (0.417, 0.65),
    }
    for (table, category), (rate, ratio) in expected.items():
        row = res.tables[table].row(category)
        assert row.rate is not None and row.impact_ratio is not None
        # the rule prints 18/28 as 64.2% (cut) but 10/24 as 41.7% (rounded): within 0.001
        assert row.rate == pytest.approx(rate, abs=1e-3)
        assert round(row.impact_ratio, 2) == pytest.approx(ratio)
    assert res.tables["race"].unknown == 36


def test_cutoff_sensitivity_shows_a_gap_the_median_hides(
    tmp_path: Path, audit: Callable[..., LL144Result], ll: SimpleNamespace
) -> None:
    # Both sexes score above 50 equally often, but the top of the scale is male.
    rows = []
    i = 0
    for sex, scores in (
        ("Male", [40] * 50 + [60] * 30 + [95] * 20),
        ("Female", [40] * 50 + [60] * 48 + [95] * 2),
    ):
        for s in scores:
            rows.append((f"A{i}", sex, "White", float(s)))
            i += 1
    ll.write_csv(tmp_path / "decisions.csv", HEADER, rows)
    spec = ll.write_spec(
        tmp_path,
        {"kind": "scoring", "score": "score", "sex": "sex", "race": "race", "cutoffs": [0.10]},
    )
    res = audit(spec)
    assert res.sensitivity is not None
    median = res.sensitivity.median
    assert median.threshold == 50.0 and median.rule == "above"
    assert median.worst["sex"] is not None and median.worst["sex"][1] == pytest.approx(1.0)
    top10 = res.sensitivity.cutoffs[0]
    assert top10.label == "top 10%" and top10.threshold == 95.0 and top10.admitted == 22
    assert top10.worst["sex"] == ("Female", pytest.approx(0.1))
    assert [p.top_share for p in res.sensitivity.curve] == [float(g) for g in GRID]
    assert len(res.sensitivity.curve) == 19
    curve = {round(p.top_share, 2): p for p in res.sensitivity.curve}
    assert curve[0.1].worst["sex"] == top10.worst["sex"]
    assert curve[0.5].worst["sex"] is not None
    assert curve[0.5].worst["sex"][1] == pytest.approx(1.0)
    payload = res.to_dict()["diagnosis"]["cutoff_sensitivity"]
    assert payload["cutoffs"][0]["worst"]["sex"]["category"] == "Female"
    assert len(payload["curve"]) == 19


def test_median_and_thresholds_by_hand() -> None:
    hist = {("Male", "White"): {1.0: 3, 2.0: 1}, (None, None): {10.0: 2}}
    assert median_score(hist) == 1.5  # 1 1 1 2 10 10
    assert median_score({}) is None
    assert top_share_threshold(hist, Fraction(1, 3)) == (10.0, 2)
    assert top_share_threshold(hist, Fraction(1, 2)) == (2.0, 3)
    assert top_share_threshold(hist, Fraction(1, 10)) == (10.0, 2)  # ties admit both
