"""Every verdict path of the group rules, on generated files shaped like seed 003's example.

Expected verdicts are worked out in each test from Clopper-Pearson bounds computed with
statsmodels (an independent implementation), not with respai's own stats module.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest
import yaml
from statsmodels.stats.proportion import proportion_confint

from respai import Verdict, evaluate_fairness
from respai.metrics import Rate

# seed 003's declaration, with the cases path filled in per test
SEED_003 = """
fairness:
  name: loan-screen
  cases: decided.csv
  label: label
  prediction: prediction
  probability: score
  attributes:
    sex: [female, male]
    age_band: [under_30, 30_to_60, over_60]
  intersections:
    - [sex, age_band]
  min_cell: 30
  rules:
    - {id: fnr-by-sex, rate: false_negative, attribute: sex, max_group_gap: 0.05}
    - {id: fnr-crossed, rate: false_negative, attribute: [sex, age_band], max_group_gap: 0.10}
"""
AGES = ["under_30", "30_to_60", "over_60"]


def cp(k: int, n: int, alpha: float) -> tuple[float, float]:
    lo, hi = proportion_confint(k, n, alpha=alpha, method="beta")
    return float(lo), float(hi)


def write(
    tmp_path: Path,
    cells: list[tuple[str | None, str | None, int, int | None, int]],
    *,
    score: bool = True,
) -> Path:
    """cells: (sex, age_band, label, prediction, count) -> a CSV file of that many rows."""
    path = tmp_path / "decided.csv"
    with path.open("w") as fh:
        fh.write("label,prediction,score,sex,age_band\n")
        for sex, age, label, pred, count in cells:
            s = "0.9" if pred == 1 else "0.2"
            line = (
                f"{label},{'' if pred is None else pred},{s if score else ''},"
                f"{sex or ''},{age or ''}\n"
            )
            fh.write(line * count)
    return path


def spec_with(
    tmp_path: Path, rules: list[dict[str, Any]] | None = None, **changes: Any
) -> dict[str, Any]:
    doc = yaml.safe_load(SEED_003)
    doc["fairness"]["cases"] = str(tmp_path / "decided.csv")
    if rules is not None:
        doc["fairness"]["rules"] = rules
    doc["fairness"].update(changes)
    return doc


def by_sex(
    fn_female: int, fn_male: int, positives: int = 1000, missing_female: int = 0
) -> list[tuple[str | None, str | None, int, int | None, int]]:
    """Positives split evenly over ages; negatives so every cell is large."""
    cells: list[tuple[str | None, str | None, int, int | None, int]] = []
    for sex, fn, miss in (("female", fn_female, missing_female), ("male", fn_male, 0)):
        per_age = [positives // 3, positives // 3, positives - 2 * (positives // 3)]
        fns = [fn // 3, fn // 3, fn - 2 * (fn // 3)]
        for age, n_pos, n_fn in zip(AGES, per_age, fns, strict=True):
            cells.append((sex, age, 1, 0, n_fn))
            cells.append((sex, age, 1, 1, n_pos - n_fn))
            cells.append((sex, age, 0, 0, 200))
        if miss:
            cells.append((sex, "30_to_60", 1, None, miss))
    return cells


FNR_SEX = [
    {"id": "fnr-by-sex", "rate": "false_negative", "attribute": "sex", "max_group_gap": 0.05}
]


def test_seed_example_runs_and_reports_both_rules(tmp_path: Path) -> None:
    write(tmp_path, by_sex(100, 100))
    result = evaluate_fairness(spec_with(tmp_path))
    assert [r.rule.id for r in result.rules] == ["fnr-by-sex", "fnr-crossed"]
    assert result.calibration  # a probability column is declared


def test_pass_when_every_gap_bound_is_within_the_limit(tmp_path: Path) -> None:
    # 100/1000 vs 100/1000 at alpha 0.05/2: hi - lo must be <= 0.05
    lo, hi = cp(100, 1000, 0.025)
    assert hi - lo <= 0.05  # worked: about 0.0437
    write(tmp_path, by_sex(100, 100))
    r = evaluate_fairness(spec_with(tmp_path, FNR_SEX)).rules[0]
    assert r.verdict is Verdict.PASS
    assert r.gap_bounds is not None
    assert r.gap_bounds[1] == pytest.approx(hi - lo, abs=1e-12)


def test_fail_when_a_gap_is_wholly_above_the_limit(tmp_path: Path) -> None:
    lo_f, _ = cp(300, 1000, 0.025)
    _, hi_m = cp(100, 1000, 0.025)
    assert lo_f - hi_m > 0.05  # worked: about 0.145
    write(tmp_path, by_sex(300, 100))
    result = evaluate_fairness(spec_with(tmp_path, FNR_SEX))
    assert result.rules[0].verdict is Verdict.FAIL
    assert result.exit_code == 1


def test_straddling_interval_is_insufficient_evidence(tmp_path: Path) -> None:
    lo_f, hi_f = cp(130, 1000, 0.025)
    lo_m, hi_m = cp(100, 1000, 0.025)
    assert hi_f - lo_m > 0.05 and lo_f - hi_m <= 0.05  # the truth could be either side
    write(tmp_path, by_sex(130, 100))
    result = evaluate_fairness(spec_with(tmp_path, FNR_SEX))
    r = result.rules[0]
    assert (r.verdict, r.reason_code) == (Verdict.INSUFFICIENT_EVIDENCE, "interval_straddles")
    assert result.exit_code == 3


def test_missing_predictions_never_help_a_rule_pass(tmp_path: Path) -> None:
    # Without the missing cases this passes (as above). 25 missing positives for women:
    # lower bound treats them as caught, upper bound as missed -> hi - lo exceeds 0.05.
    n = 1000 + 25
    lo_f, _ = cp(100, n, 0.025)
    _, hi_f = cp(125, n, 0.025)
    lo_m, _ = cp(100, 1000, 0.025)
    assert hi_f - lo_m > 0.05
    write(tmp_path, by_sex(100, 100, missing_female=25))
    r = evaluate_fairness(spec_with(tmp_path, FNR_SEX)).rules[0]
    assert r.verdict is Verdict.INSUFFICIENT_EVIDENCE
    female = r.groups[0]
    assert (female.cases, female.missing, female.events) == (1025, 25, 100)
    assert female.interval.lo == pytest.approx(lo_f, abs=1e-12)
    assert female.interval.hi == pytest.approx(hi_f, abs=1e-12)
    assert female.rate == pytest.approx(100 / 1000)


def test_small_cell_keeps_a_rule_from_passing(tmp_path: Path) -> None:
    cells = by_sex(90, 90, positives=900)
    # shrink female x over_60 positives to 12 (below min_cell 30), fnr equal everywhere
    cells = [c for c in cells if not (c[0] == "female" and c[1] == "over_60" and c[2] == 1)]
    cells += [("female", "over_60", 1, 0, 1), ("female", "over_60", 1, 1, 11)]
    write(tmp_path, cells)
    rules = [
        {
            "id": "crossed",
            "rate": "false_negative",
            "attribute": ["sex", "age_band"],
            "max_group_gap": 0.9,
        }
    ]
    r = evaluate_fairness(spec_with(tmp_path, rules)).rules[0]
    # with a 0.9 limit every interval pair is within it, yet one cell is too small
    assert (r.verdict, r.reason_code) == (Verdict.INSUFFICIENT_EVIDENCE, "small_cell")
    assert [g.label for g in r.groups if g.small] == ["female × over_60"]


def test_small_cell_can_still_fail(tmp_path: Path) -> None:
    cells = by_sex(30, 30, positives=900)
    cells = [c for c in cells if not (c[0] == "female" and c[1] == "over_60" and c[2] == 1)]
    cells += [("female", "over_60", 1, 0, 12)]  # 12 of 12 missed
    write(tmp_path, cells)
    lo_small, _ = cp(12, 12, 0.05 / 6)
    _, hi_big = cp(10, 300, 0.05 / 6)
    assert lo_small - hi_big > 0.10
    rules = [
        {
            "id": "crossed",
            "rate": "false_negative",
            "attribute": ["age_band", "sex"],
            "max_group_gap": 0.10,
        }
    ]
    r = evaluate_fairness(spec_with(tmp_path, rules)).rules[0]
    assert r.verdict is Verdict.FAIL
    assert r.alpha_per_group == pytest.approx(0.05 / 6)


def test_too_many_left_out_is_insufficient_even_if_it_would_pass(tmp_path: Path) -> None:
    cells = by_sex(100, 100)
    total = sum(c[4] for c in cells)
    missing = total * 15 // 85 + 1  # just over 15% of the file without sex
    cells.append((None, "30_to_60", 0, 0, missing))
    write(tmp_path, cells)
    r = evaluate_fairness(spec_with(tmp_path, FNR_SEX)).rules[0]
    assert (r.verdict, r.reason_code) == (Verdict.INSUFFICIENT_EVIDENCE, "too_many_left_out")
    assert dict(r.left_out) == {"sex: missing": missing}
    assert r.left_out_share == pytest.approx(missing / (total + missing))
    # the rule's own max_left_out overrides the file-wide default
    rules = [{**FNR_SEX[0], "max_left_out": 0.2}]
    assert evaluate_fairness(spec_with(tmp_path, rules)).rules[0].verdict is Verdict.PASS


def test_undeclared_values_are_left_out_with_the_value_named(tmp_path: Path) -> None:
    cells = [*by_sex(100, 100), ("x", "over_60", 1, 1, 7), ("female", "70+", 1, 1, 3)]
    write(tmp_path, cells)
    result = evaluate_fairness(spec_with(tmp_path))
    sex_rule, crossed = result.rules
    assert dict(sex_rule.left_out) == {"sex: undeclared value 'x'": 7}
    assert dict(crossed.left_out) == {
        "age_band: undeclared value '70+'": 3,
        "sex: undeclared value 'x'": 7,
    }


@pytest.mark.parametrize(
    ("bound", "k", "expected"),
    [
        ({"min": 0.80}, 950, Verdict.PASS),  # every interval above 0.80
        ({"min": 0.80}, 700, Verdict.FAIL),  # a group wholly below
        ({"min": 0.80}, 805, Verdict.INSUFFICIENT_EVIDENCE),
        ({"max": 0.30}, 100, Verdict.PASS),
        ({"max": 0.30}, 450, Verdict.FAIL),
        ({"max": 0.30}, 300, Verdict.INSUFFICIENT_EVIDENCE),
    ],
)
def test_worst_group(tmp_path: Path, bound: dict[str, float], k: int, expected: Verdict) -> None:
    # "selection" over all cases: female k of 1000 selected, male 900 (or 100) of 1000
    other = 900 if "min" in bound else 100
    lo_o, hi_o = cp(other, 1000, 0.025)
    lo_k, hi_k = cp(k, 1000, 0.025)
    limit = next(iter(bound.values()))
    if "min" in bound:
        worked = (
            Verdict.FAIL
            if min(hi_o, hi_k) < limit
            else Verdict.PASS
            if min(lo_o, lo_k) >= limit
            else Verdict.INSUFFICIENT_EVIDENCE
        )
    else:
        worked = (
            Verdict.FAIL
            if max(lo_o, lo_k) > limit
            else Verdict.PASS
            if max(hi_o, hi_k) <= limit
            else Verdict.INSUFFICIENT_EVIDENCE
        )
    assert worked is expected
    cells = []
    for sex, sel in (("female", k), ("male", other)):
        for i, age in enumerate(AGES):
            share = sel // 3 if i < 2 else sel - 2 * (sel // 3)
            size = 333 if i < 2 else 334
            cells += [(sex, age, 1, 1, share), (sex, age, 0, 0, size - share)]
    write(tmp_path, cells)
    rules = [{"id": "floor", "rate": "selection", "attribute": "sex", "worst_group": bound}]
    assert evaluate_fairness(spec_with(tmp_path, rules)).rules[0].verdict is expected


def test_declared_group_without_cases_is_a_small_cell(tmp_path: Path) -> None:
    cells = [c for c in by_sex(100, 100) if c[1] != "over_60"]
    write(tmp_path, cells)
    rules = [{"id": "age", "rate": "error", "attribute": "age_band", "max_group_gap": 0.5}]
    r = evaluate_fairness(spec_with(tmp_path, rules)).rules[0]
    assert r.verdict is Verdict.INSUFFICIENT_EVIDENCE
    empty = r.groups[2]
    assert (empty.label, empty.cases, empty.rate, empty.small) == ("over_60", 0, None, True)
    assert (empty.interval.lo, empty.interval.hi) == (0.0, 1.0)


def test_no_rule_is_never_a_pass(tmp_path: Path) -> None:
    write(tmp_path, by_sex(100, 100))
    result = evaluate_fairness(spec_with(tmp_path, []))
    assert result.verdict is Verdict.INSUFFICIENT_EVIDENCE
    assert result.exit_code == 3


def test_worst_rule_decides_the_exit_code(tmp_path: Path) -> None:
    write(tmp_path, by_sex(300, 100))
    rules = [
        *FNR_SEX,
        {"id": "lenient", "rate": "false_negative", "attribute": "sex", "max_group_gap": 0.9},
        {
            "id": "crossed",
            "rate": "false_negative",
            "attribute": ["sex", "age_band"],
            "max_group_gap": 0.5,
        },
    ]
    result = evaluate_fairness(spec_with(tmp_path, rules))
    assert [r.verdict for r in result.rules] == [Verdict.FAIL, Verdict.PASS, Verdict.PASS]
    assert result.exit_code == 1


def test_independence_assumption_is_stated_without_unit(tmp_path: Path) -> None:
    write(tmp_path, by_sex(100, 100))
    result = evaluate_fairness(spec_with(tmp_path))
    assert any("independent" in a for a in result.assumptions)


def test_calibration_is_reported_per_group_and_never_decides(tmp_path: Path) -> None:
    write(tmp_path, by_sex(100, 100))
    result = evaluate_fairness(spec_with(tmp_path, FNR_SEX))
    # probabilities are 0.9 for predicted 1, 0.2 for predicted 0; worked by hand per group
    female = result.calibration["sex"][0]
    # female: 900 positives at 0.9, 100 positives at 0.2, 600 negatives at 0.2
    # bin 2 (0.2): 700 cases, 100 positives, mean p 0.2 -> |0.2 - 1/7|; bin 9: |0.9 - 1|
    n = 1600
    want = (700 / n) * abs(0.2 - 100 / 700) + (900 / n) * abs(0.9 - 1.0)
    assert female.ece == pytest.approx(want, abs=1e-9)
    assert result.rules[0].verdict is Verdict.PASS  # calibration did not change it


def test_policy_overrides_thresholds_and_is_named(tmp_path: Path) -> None:
    write(tmp_path, by_sex(130, 100))
    policy = tmp_path / "release.yaml"
    policy.write_text("alpha: 0.10\nrules:\n  fnr-by-sex: {max_group_gap: 0.2}\n")
    result = evaluate_fairness(spec_with(tmp_path, FNR_SEX), policy=policy)
    r = result.rules[0]
    assert r.verdict is Verdict.PASS
    assert r.rule.max_group_gap == 0.2
    assert r.rule.threshold_source.startswith("policy release.yaml sha256:")
    assert r.alpha == 0.10
    assert result.to_dict()["settings"]["sources"]["alpha"].startswith("policy release.yaml")


RULE_RATES = [
    "error",
    "false_positive",
    "false_negative",
    "selection",
    "precision",
    "negative_predictive",
    "false_discovery",
    "false_omission",
]


def test_every_rule_rate_has_a_worked_population_below() -> None:
    # a rate added to the spec's vocabulary (respai.metrics.Rate) needs its worked numbers
    assert [r.value for r in Rate] == RULE_RATES
    assert all(r.metric.missing is not None for r in Rate)  # the bounds need the missing


@pytest.mark.parametrize("rate", RULE_RATES)
def test_each_rate_reads_its_own_population(tmp_path: Path, rate: str) -> None:
    # one group with every outcome: tp=5, fn=3, fp=2, tn=10, missing label1=1, label0=4
    cells = []
    for sex in ("female", "male"):
        cells += [
            (sex, "under_30", 1, 1, 5),
            (sex, "under_30", 1, 0, 3),
            (sex, "under_30", 0, 1, 2),
            (sex, "under_30", 0, 0, 10),
            (sex, "under_30", 1, None, 1),
            (sex, "under_30", 0, None, 4),
        ]
    write(tmp_path, cells)
    rules = [{"id": "r", "rate": rate, "attribute": "sex", "max_group_gap": 0.5}]
    g = evaluate_fairness(spec_with(tmp_path, rules, min_cell=0)).rules[0].groups[0]
    want = {
        "error": (25, 5, 5),
        "false_positive": (16, 2, 4),
        "false_negative": (9, 3, 1),
        "selection": (25, 7, 5),
        # over the cases predicted 1 (7) or 0 (13): each of the 5 unscored could join
        "precision": (12, 5, 5),
        "negative_predictive": (18, 10, 5),
        "false_discovery": (12, 2, 5),
        "false_omission": (18, 3, 5),
    }[rate]
    assert (g.cases, g.events, g.missing) == want


def test_gap_pairs_are_of_distinct_groups(tmp_path: Path) -> None:
    # brute force over the rule's groups, from the reported intervals
    write(tmp_path, by_sex(130, 100))
    rules = [
        {
            "id": "c",
            "rate": "false_negative",
            "attribute": ["sex", "age_band"],
            "max_group_gap": 0.3,
        }
    ]
    r = evaluate_fairness(spec_with(tmp_path, rules)).rules[0]
    pairs = list(itertools.permutations(r.groups, 2))
    assert r.gap_bounds == (
        max(a.interval.lo - b.interval.hi for a, b in pairs),
        max(a.interval.hi - b.interval.lo for a, b in pairs),
    )


# -- exact decisions at the threshold (methods 0.3) -------------------------------------------


def test_an_interval_end_exactly_at_the_limit_meets_it(tmp_path: Path) -> None:
    # one case labelled 1 per sex, predicted 1: FNR 0/1, so the Clopper-Pearson upper end at
    # alpha 0.05 / 2 groups is exactly 1 - 0.0125 = 0.9875 (and the lower end exactly 0)
    hi = cp(0, 1, 0.025)[1]
    assert hi == pytest.approx(0.9875, abs=1e-15)
    write(tmp_path, [(s, "30_to_60", 1, 1, 1) for s in ("female", "male")])
    for rule, want in (
        ({"worst_group": {"max": 0.9875}}, Verdict.PASS),
        ({"worst_group": {"max": 0.9874}}, Verdict.INSUFFICIENT_EVIDENCE),
        ({"max_group_gap": 0.9875}, Verdict.PASS),  # hi - lo = 0.9875 - 0 exactly
        ({"max_group_gap": 0.9874}, Verdict.INSUFFICIENT_EVIDENCE),
    ):
        rules = [{"id": "r", "rate": "false_negative", "attribute": "sex", **rule}]
        r = evaluate_fairness(spec_with(tmp_path, rules, min_cell=0)).rules[0]
        assert r.verdict is want, (rule, r.reason)


def test_a_lower_end_exactly_at_a_minimum_meets_it(tmp_path: Path) -> None:
    # selection 1/1 per sex: the lower end at alpha 0.025 is exactly 0.0125 (t^1 = alpha/2)
    write(tmp_path, [(s, "30_to_60", 0, 1, 1) for s in ("female", "male")])
    rules = [{"id": "r", "rate": "selection", "attribute": "sex", "worst_group": {"min": 0.0125}}]
    r = evaluate_fairness(spec_with(tmp_path, rules, min_cell=0)).rules[0]
    assert r.verdict is Verdict.PASS, r.reason


def test_a_left_out_share_exactly_at_max_left_out_is_allowed(tmp_path: Path) -> None:
    # 30 of 300 cases (exactly 10%) have no sex: not more than max_left_out 0.1
    cells = by_sex(10, 10, positives=30)
    kept = sum(c[-1] for c in cells)
    cells.append((None, "30_to_60", 1, 1, kept // 9))
    total = kept + kept // 9
    assert (kept // 9) * 10 == total
    write(tmp_path, cells)
    r = evaluate_fairness(spec_with(tmp_path, FNR_SEX, max_left_out=0.1)).rules[0]
    assert r.reason_code != "too_many_left_out"
    cells.append((None, "30_to_60", 1, 1, 1))
    write(tmp_path, cells)
    r = evaluate_fairness(spec_with(tmp_path, FNR_SEX, max_left_out=0.1)).rules[0]
    assert r.reason_code == "too_many_left_out"
