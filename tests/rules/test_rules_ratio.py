"""Ratio rules, reference groups, equalized odds and the predictive rates in group rules.

Expected verdicts are worked out from Clopper-Pearson bounds computed with statsmodels
(an independent implementation of the interval) and a plain re-statement of the decision
table, never with respai's own stats module.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from statsmodels.stats.proportion import proportion_confint

from respai import Verdict, exact
from respai.counts import Cell, Counts, Grouping
from respai.errors import SpecError
from respai.metrics import Rate
from respai.results import rule_dict
from respai.rules import evaluate_rule, observed
from respai.spec.fairness import parse_fairness
from respai.spec.parsed import FairnessSpec, Rule

GROUPS = ("a", "b", "c")


def cp(k: int, n: int, alpha: float) -> tuple[float, float]:
    """The Clopper-Pearson interval from statsmodels; ``[0, 1]`` for an empty group."""
    if n == 0:
        return 0.0, 1.0
    lo, hi = proportion_confint(k, n, alpha=alpha, method="beta")
    lo = 0.0 if k == 0 else float(lo)  # statsmodels returns nan at the ends
    hi = 1.0 if k == n else float(hi)
    return lo, hi


def counts_of(cells: dict[str, Cell]) -> Counts:
    """One attribute ``g`` whose groups are the keys of ``cells``."""
    keyed = {(name,): cell for name, cell in cells.items()}
    total = sum((c.n for c in cells.values()), 0)
    overall = Cell()
    for c in cells.values():
        overall = overall + c
    grouping = Grouping(attributes=("g",), groups=keyed, calibration=None, left_out={})
    return Counts(
        total=total,
        overall=overall,
        overall_calibration=None,
        groupings={("g",): grouping},
        calibration_bins=10,
        declared={"g": tuple(cells)},
    )


def spec_of(names: tuple[str, ...], *, alpha: float = 0.05, min_cell: int = 0) -> FairnessSpec:
    return FairnessSpec(
        label="y", prediction="p", attributes={"g": names}, alpha=alpha, min_cell=min_cell
    )


def fpr_cell(fp: int, negatives: int, missing: int = 0) -> Cell:
    """A group's labelled-0 cases: ``fp`` of ``negatives`` predicted 1, and some unscored."""
    return Cell(fp=fp, tn=negatives - fp, missing_neg=missing)


# -- the ratio rule against a re-statement on statsmodels intervals ---------------------

GROUP_CELLS = st.tuples(st.integers(0, 60), st.integers(0, 60), st.integers(0, 4)).map(
    lambda t: fpr_cell(min(t[0], t[1]), t[1], t[2])
)


def reference_ratio_verdict(
    cells: list[Cell], limit: float, ref: int | None, alpha: float, min_cell: int
) -> tuple[Verdict, str]:
    g = len(cells)
    ivs = []
    adverse = []  # the ends a FAIL reads: every missing decision counted against the rule
    for c in cells:
        k, n, m = c.fp, c.fp + c.tn, c.missing_neg
        lo, _ = cp(k, n + m, alpha / g)
        _, hi = cp(k + m, n + m, alpha / g)
        ivs.append((lo, hi))
        adverse.append((cp(k + m, n + m, alpha / g)[0], cp(k, n + m, alpha / g)[1]))
    pairs = [(i, j) for i in range(g) for j in range(g) if i != j and (ref is None or j == ref)]
    broken = any(adverse[j][0] > 0 and adverse[i][1] / adverse[j][0] < limit for i, j in pairs)
    over = any(c.missing_neg > 0.02 * (c.fp + c.tn + c.missing_neg) for c in cells)
    small = any(c.fp + c.tn < max(min_cell, 1) for c in cells)
    denominators = [ivs[ref]] if ref is not None else ivs
    undefined = all(lo == 0 for lo, _ in denominators)
    held = all(ivs[i][0] / ivs[j][1] >= limit for i, j in pairs)
    near = [ivs[i][1] / ivs[j][0] for i, j in pairs if ivs[j][0] > 0]
    near += [ivs[i][0] / ivs[j][1] for i, j in pairs]
    near += [adverse[i][1] / adverse[j][0] for i, j in pairs if adverse[j][0] > 0]
    assume(all(abs(q - limit) > 1e-7 for q in near))  # no float tie in the re-statement
    if broken:
        return Verdict.FAIL, "threshold_exceeded"
    if over:
        return Verdict.INSUFFICIENT_EVIDENCE, "too_many_missing"
    if small:
        return Verdict.INSUFFICIENT_EVIDENCE, "small_cell"
    if undefined:
        return Verdict.INSUFFICIENT_EVIDENCE, "ratio_undefined"
    if held:
        return Verdict.PASS, "within_threshold"
    return Verdict.INSUFFICIENT_EVIDENCE, "interval_straddles"


@settings(max_examples=150, deadline=None)
@given(
    cells=st.lists(GROUP_CELLS, min_size=2, max_size=3),
    limit=st.sampled_from([0.1, 0.25, 0.5, 0.8, 0.9, 1.0]),
    use_ref=st.booleans(),
    min_cell=st.sampled_from([0, 5]),
)
def test_ratio_rule_matches_a_restatement(
    cells: list[Cell], limit: float, use_ref: bool, min_cell: int
) -> None:
    names = GROUPS[: len(cells)]
    ref = 1 if use_ref else None
    want = reference_ratio_verdict(cells, limit, ref, 0.05, min_cell)
    rule = Rule(
        id="r",
        rate=Rate.FALSE_POSITIVE,
        attributes=("g",),
        min_group_ratio=limit,
        reference=None if ref is None else (names[ref],),
    )
    got = evaluate_rule(
        rule, spec_of(names, min_cell=min_cell), counts_of(dict(zip(names, cells, strict=True)))
    )
    assert (got.verdict, got.reason_code) == want
    assert got.ratio_bounds is not None and got.gap_bounds is None


def reference_gap_verdict(
    cells: list[Cell], limit: float, ref: int, alpha: float
) -> tuple[Verdict, str]:
    g = len(cells)
    ivs = [cp(c.fp, c.fp + c.tn, alpha / g) for c in cells]
    others = [i for i in range(g) if i != ref]
    lows = [max(ivs[i][0] - ivs[ref][1], ivs[ref][0] - ivs[i][1]) for i in others]
    highs = [max(ivs[i][1] - ivs[ref][0], ivs[ref][1] - ivs[i][0]) for i in others]
    assume(all(abs(x - limit) > 1e-7 for x in lows + highs))
    if max(lows) > limit:
        return Verdict.FAIL, "threshold_exceeded"
    if any(c.fp + c.tn == 0 for c in cells):
        return Verdict.INSUFFICIENT_EVIDENCE, "small_cell"
    if max(highs) <= limit:
        return Verdict.PASS, "within_threshold"
    return Verdict.INSUFFICIENT_EVIDENCE, "interval_straddles"


@settings(max_examples=150, deadline=None)
@given(
    cells=st.lists(
        st.tuples(st.integers(0, 200), st.integers(0, 200)).map(
            lambda t: fpr_cell(min(t), max(t))
        ),
        min_size=3,
        max_size=3,
    ),
    limit=st.sampled_from([0.05, 0.1, 0.2, 0.4]),
    ref=st.integers(0, 2),
)
def test_gap_against_a_reference_matches_a_restatement(
    cells: list[Cell], limit: float, ref: int
) -> None:
    want = reference_gap_verdict(cells, limit, ref, 0.05)
    rule = Rule(
        id="r",
        rate=Rate.FALSE_POSITIVE,
        attributes=("g",),
        max_group_gap=limit,
        reference=(GROUPS[ref],),
    )
    got = evaluate_rule(rule, spec_of(GROUPS), counts_of(dict(zip(GROUPS, cells, strict=True))))
    assert (got.verdict, got.reason_code) == want


def test_reference_changes_which_pairs_count() -> None:
    # a and c far apart, b in the middle: every pair fails, the gaps to b hold
    cells = {"a": fpr_cell(2000, 20000), "b": fpr_cell(3000, 20000), "c": fpr_cell(4000, 20000)}
    spec = spec_of(GROUPS)
    every = Rule(id="r", rate=Rate.FALSE_POSITIVE, attributes=("g",), max_group_gap=0.075)
    to_b = Rule(
        id="r", rate=Rate.FALSE_POSITIVE, attributes=("g",), max_group_gap=0.075, reference=("b",)
    )
    a, b = cp(2000, 20000, 0.05 / 3), cp(3000, 20000, 0.05 / 3)
    c = cp(4000, 20000, 0.05 / 3)
    assert c[0] - a[1] > 0.075  # worked: about 0.088, proven above the limit
    assert max(b[1] - a[0], c[1] - b[0], b[1] - c[0]) <= 0.075  # every gap to b: about 0.062
    assert evaluate_rule(every, spec, counts_of(cells)).verdict is Verdict.FAIL
    result = evaluate_rule(to_b, spec, counts_of(cells))
    assert result.verdict is Verdict.PASS
    assert "against b" in result.reason
    assert observed(result) == (pytest.approx(0.05), None)


# -- exactly at the threshold -----------------------------------------------------------


def one_of_one() -> Cell:
    """One case labelled 0 and predicted 1: its interval at alpha_g is [alpha_g / 2, 1]."""
    return Cell(fp=1)


def test_ratio_exactly_at_its_threshold_meets_it() -> None:
    # alpha 0.06 over 3 groups: each interval is [0.01, 1] exactly (P(X >= 1 | 1, t) = t)
    cells = {n: one_of_one() for n in GROUPS}
    spec = spec_of(GROUPS, alpha=0.06)
    assert cp(1, 1, 0.02) == (pytest.approx(0.01), 1.0)
    at = Rule(
        id="r", rate=Rate.FALSE_POSITIVE, attributes=("g",), min_group_ratio=0.01, reference=("b",)
    )
    result = evaluate_rule(at, spec, counts_of(cells))
    assert (result.verdict, result.reason_code) == (Verdict.PASS, "within_threshold")
    assert result.ratio_bounds == (pytest.approx(0.01), pytest.approx(100.0))
    above = Rule(
        id="r",
        rate=Rate.FALSE_POSITIVE,
        attributes=("g",),
        min_group_ratio=0.0100000001,
        reference=("b",),
    )
    assert evaluate_rule(above, spec, counts_of(cells)).reason_code == "interval_straddles"


def test_gap_exactly_at_its_threshold_meets_it() -> None:
    cells = {n: one_of_one() for n in GROUPS}
    spec = spec_of(GROUPS, alpha=0.06)
    for reference in (None, ("a",)):
        at = Rule(
            id="r",
            rate=Rate.FALSE_POSITIVE,
            attributes=("g",),
            max_group_gap=0.99,
            reference=reference,
        )
        assert evaluate_rule(at, spec, counts_of(cells)).verdict is Verdict.PASS
        below = Rule(
            id="r",
            rate=Rate.FALSE_POSITIVE,
            attributes=("g",),
            max_group_gap=0.9899999999,
            reference=reference,
        )
        assert evaluate_rule(below, spec, counts_of(cells)).verdict is not Verdict.PASS


# -- undefined ratios -------------------------------------------------------------------


def test_ratio_to_a_reference_that_may_be_zero_is_undefined() -> None:
    cells = {"a": fpr_cell(300, 1000), "b": fpr_cell(0, 1000), "c": fpr_cell(310, 1000)}
    rule = Rule(
        id="r", rate=Rate.FALSE_POSITIVE, attributes=("g",), min_group_ratio=0.8, reference=("b",)
    )
    result = evaluate_rule(rule, spec_of(GROUPS), counts_of(cells))
    assert (result.verdict, result.reason_code) == (
        Verdict.INSUFFICIENT_EVIDENCE,
        "ratio_undefined",
    )
    assert "reference group b" in result.reason
    assert result.ratio_bounds is not None and result.ratio_bounds[1] is None
    assert observed(result) == (
        None,
        "the reference group has a rate of 0, so the ratio is undefined",
    )
    # to the highest rate instead, the ratio is defined and far below 0.8
    no_ref = Rule(id="r", rate=Rate.FALSE_POSITIVE, attributes=("g",), min_group_ratio=0.8)
    assert evaluate_rule(no_ref, spec_of(GROUPS), counts_of(cells)).verdict is Verdict.FAIL


def test_ratio_when_every_rate_may_be_zero_is_undefined() -> None:
    cells = {"a": fpr_cell(0, 50), "b": fpr_cell(0, 60)}
    rule = Rule(id="r", rate=Rate.FALSE_POSITIVE, attributes=("g",), min_group_ratio=0.5)
    result = evaluate_rule(rule, spec_of(("a", "b")), counts_of(cells))
    assert result.reason_code == "ratio_undefined"
    assert "every group's rate may be 0" in result.reason


# -- equalized odds ---------------------------------------------------------------------


def test_equalized_odds_is_the_worse_of_both_gaps() -> None:
    # false positive rates equal; false negative rates far apart
    cells = {
        "a": Cell(fp=100, tn=900, fn=100, tp=900),
        "b": Cell(fp=100, tn=900, fn=300, tp=700),
    }
    spec = spec_of(("a", "b"))
    rule = Rule(
        id="eo",
        rate=Rate.FALSE_POSITIVE,
        attributes=("g",),
        max_group_gap=0.05,
        equalized_odds=True,
    )
    result = evaluate_rule(rule, spec, counts_of(cells))
    assert [p.rule.rate for p in result.parts] == [Rate.FALSE_POSITIVE, Rate.FALSE_NEGATIVE]
    assert [p.verdict for p in result.parts] == [Verdict.PASS, Verdict.FAIL]
    assert result.verdict is Verdict.FAIL
    assert result.groups == result.parts[1].groups  # the failing part's groups
    assert "false_positive: PASS" in result.reason and "false_negative: FAIL" in result.reason
    assert observed(result) == (pytest.approx(0.2), None)
    doc = rule_dict(result)
    assert doc["rate"] == "equalized_odds"
    assert [p["rate"] for p in doc["parts"]] == ["false_positive", "false_negative"]
    assert "parts" not in doc["parts"][0]
    # each part PASSes as the single-rate rule does (at alpha: both must pass) and proves a
    # FAIL at alpha / 2 (either failing fails the rule: Bonferroni over the two)
    for part, rate in zip(result.parts, (Rate.FALSE_POSITIVE, Rate.FALSE_NEGATIVE), strict=True):
        alone = evaluate_rule(
            Rule(id="eo", rate=rate, attributes=("g",), max_group_gap=0.05), spec, counts_of(cells)
        )
        assert part.verdict == alone.verdict
        assert part.gap_bounds is not None and alone.gap_bounds is not None
        assert part.gap_bounds[1] == alone.gap_bounds[1]
        assert part.gap_bounds[0] < alone.gap_bounds[0]  # the FAIL side's wider intervals
        assert (part.alpha, part.fail_alpha) == (0.05, 0.025)
        assert part.fail_alpha_per_group == pytest.approx(0.0125)
    assert "alpha / 2" in doc["interval_method"] and "alpha / 2" in doc["guarantee"]
    assert doc["fail_alpha"] == 0.025


def test_equalized_odds_fail_needs_its_part_to_fail_at_half_alpha() -> None:
    # a false negative gap a single-rate rule proves at alpha but not at alpha / 2
    spec = spec_of(("a", "b"))
    share = Fraction(1, 40)  # alpha / G
    n = 400
    # find b's count whose lower bound clears a's upper bound by the limit at alpha/G
    # but not at alpha/(2G)
    a_fn = 80
    hi_a = float(exact.ClopperPearson(a_fn, n, share, "hi").value)
    hi_a2 = float(exact.ClopperPearson(a_fn, n, share / 2, "hi").value)
    b_fn = next(
        k
        for k in range(a_fn, n)
        if float(exact.ClopperPearson(k, n, share, "lo").value) - hi_a > 0.05
        and float(exact.ClopperPearson(k, n, share / 2, "lo").value) - hi_a2 <= 0.05
    )
    cells = {
        "a": Cell(fp=10, tn=390, fn=a_fn, tp=n - a_fn),
        "b": Cell(fp=10, tn=390, fn=b_fn, tp=n - b_fn),
    }
    alone = evaluate_rule(
        Rule(id="fnr", rate=Rate.FALSE_NEGATIVE, attributes=("g",), max_group_gap=0.05),
        spec,
        counts_of(cells),
    )
    assert alone.verdict is Verdict.FAIL
    odds = evaluate_rule(
        Rule(
            id="eo",
            rate=Rate.FALSE_POSITIVE,
            attributes=("g",),
            max_group_gap=0.05,
            equalized_odds=True,
        ),
        spec,
        counts_of(cells),
    )
    assert odds.parts[1].verdict is Verdict.INSUFFICIENT_EVIDENCE
    assert odds.verdict is Verdict.INSUFFICIENT_EVIDENCE


# -- the predictive rates in a rule -----------------------------------------------------


@pytest.mark.parametrize(
    ("rate", "events", "population"),
    [
        (Rate.PRECISION, lambda c: c.tp, lambda c: c.tp + c.fp),
        (Rate.FALSE_DISCOVERY, lambda c: c.fp, lambda c: c.tp + c.fp),
        (Rate.NEGATIVE_PREDICTIVE, lambda c: c.tn, lambda c: c.tn + c.fn),
        (Rate.FALSE_OMISSION, lambda c: c.fn, lambda c: c.tn + c.fn),
    ],
)
def test_predictive_rates_widen_both_ways_for_missing_predictions(
    rate: Rate, events: Any, population: Any
) -> None:
    cells = {
        "a": Cell(tp=80, fp=20, tn=150, fn=30, missing_pos=3, missing_neg=4),
        "b": Cell(tp=60, fp=40, tn=120, fn=50),
    }
    rule = Rule(id="r", rate=rate, attributes=("g",), worst_min=0.1)
    result = evaluate_rule(rule, spec_of(("a", "b")), counts_of(cells))
    for g in result.groups:
        cell = cells[g.key[0]]
        k, n, m = events(cell), population(cell), cell.missing
        assert (g.events, g.with_prediction, g.missing) == (k, n, m)
        lo, _ = cp(k, n + m, 0.025)  # every unscored case predicted in, a non-event
        _, hi = cp(k + m, n + m, 0.025)  # ... and an event
        assert (g.interval.lo, g.interval.hi) == (pytest.approx(lo), pytest.approx(hi))
        assert g.rate == pytest.approx(k / n)


# -- the spec -------------------------------------------------------------------------


def fairness_block(**rule: Any) -> dict[str, Any]:
    return {
        "label": "y",
        "prediction": "p",
        "attributes": {"sex": ["female", "male"], "age": ["young", "old"]},
        "intersections": [["sex", "age"]],
        "rules": [{"id": "r", "rate": "selection", "attribute": "sex", **rule}],
    }


def test_spec_reads_ratio_reference_and_equalized_odds() -> None:
    rule = parse_fairness(fairness_block(min_group_ratio=0.8, reference="male")).rules[0]
    assert (rule.kind, rule.min_group_ratio, rule.reference) == ("min_group_ratio", 0.8, ("male",))
    crossed = parse_fairness(
        fairness_block(attribute=["sex", "age"], max_group_gap=0.1, reference=["male", "old"])
    ).rules[0]
    assert crossed.reference == ("male", "old")
    mapped = parse_fairness(
        fairness_block(
            attribute=["sex", "age"], max_group_gap=0.1, reference={"age": "old", "sex": "male"}
        )
    ).rules[0]
    assert mapped.reference == ("male", "old")
    odds = parse_fairness(fairness_block(rate="equalized_odds", max_group_gap=0.1)).rules[0]
    assert odds.equalized_odds and odds.rates == (Rate.FALSE_POSITIVE, Rate.FALSE_NEGATIVE)
    assert odds.rate_name == "equalized_odds"
    assert parse_fairness(fairness_block(rate="precision", max_group_gap=0.1)).rules[0].rate is (
        Rate.PRECISION
    )


@pytest.mark.parametrize(
    ("rule", "message"),
    [
        ({"min_grup_ratio": 0.8}, "Did you mean 'min_group_ratio'"),
        ({"max_group_gap": 0.1, "min_group_ratio": 0.8}, "not max_group_gap and min_group_ratio"),
        ({}, "needs exactly one of max_group_gap, min_group_ratio and worst_group."),
        ({"min_group_ratio": 0}, "must be above 0 and at most 1"),
        ({"min_group_ratio": 1.5}, "must be above 0 and at most 1"),
        ({"min_group_ratio": 0.8, "reference": "mael"}, "Did you mean 'male'"),
        ({"min_group_ratio": 0.8, "reference": ["male"]}, "is one of its values"),
        ({"worst_group": {"min": 0.5}, "reference": "male"}, "not with a reference group"),
        ({"rate": "equalized_odds", "min_group_ratio": 0.8}, "needs max_group_gap"),
        ({"rate": "equalised_odds", "max_group_gap": 0.1}, "Did you mean 'equalized_odds'"),
        ({"rate": "precison", "max_group_gap": 0.1}, "Did you mean 'precision'"),
        (
            {"attribute": ["sex", "age"], "max_group_gap": 0.1, "reference": ["male"]},
            "one value of each",
        ),
        (
            {"attribute": ["sex", "age"], "max_group_gap": 0.1, "reference": {"sex": "male"}},
            "must give one value for each of sex, age",
        ),
        (
            {"attribute": ["sex", "age"], "max_group_gap": 0.1, "reference": ["male", "eld"]},
            "not a declared value of age",
        ),
    ],
)
def test_spec_refuses_bad_rules(rule: dict[str, Any], message: str) -> None:
    with pytest.raises(SpecError) as err:
        parse_fairness(fairness_block(**rule))
    assert message in str(err.value)


# -- end to end: the record, --json, the policy, monitoring ---------------------------

SPEC = """\
system: {name: ratio-test, version: "1"}
data:
  cases: cases.csv
  id: id
  source: test
  explanation: generated for the test
fairness:
  label: y
  prediction: p
  attributes: {sex: [Female, Male]}
  rules:
    - {id: sel-ratio, rate: selection, attribute: sex, min_group_ratio: 0.5, reference: Male}
    - {id: odds, rate: equalized_odds, attribute: sex, max_group_gap: 0.5}
    - {id: ppv, rate: precision, attribute: sex, max_group_gap: 0.5, reference: Female}
"""


def _run(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "respai", *args],
        capture_output=True,
        text=True,
        cwd=folder,
        check=False,
        timeout=300,
        env={**os.environ, "RESPAI_HOME": str(folder / "keys")},
    )


def test_evaluate_signs_and_shows_the_new_rules(tmp_path: Path) -> None:
    from respai.record.schema import validate_predicate
    from respai.schemas import validate_output

    rng = np.random.default_rng(5)
    n = 400
    y = rng.integers(0, 2, n)
    pd.DataFrame(
        {
            "id": [f"c{i}" for i in range(n)],
            "y": y,
            "p": np.where(rng.random(n) < 0.85, y, 1 - y),
            "sex": rng.choice(["Female", "Male"], n),
        }
    ).to_csv(tmp_path / "cases.csv", index=False)
    (tmp_path / "spec.yaml").write_text(SPEC, encoding="utf-8")
    proc = _run(tmp_path, "evaluate", "spec.yaml", "--out", "ev", "--no-ledger", "--json")
    assert proc.returncode in (0, 1, 3, 4), proc.stderr  # 4: no model for perturbation
    doc = json.loads(proc.stdout)
    assert validate_output("evaluate", doc) == []
    record = json.loads((tmp_path / "ev" / "record.json").read_text())
    import base64

    statement = json.loads(base64.b64decode(record["payload"]))
    predicate = statement["predicate"]
    assert validate_predicate(predicate) == []
    tests = [t for t in predicate["records"] if t.get("test_id") == "group_rule"]
    rules = {t["test_key"]: t for t in tests}
    ratio = rules["rule:sel-ratio"]["details"]
    assert ratio["threshold"]["min_group_ratio"] == 0.5
    assert ratio["threshold"]["reference"] == "Male"
    assert set(ratio["ratio_bounds"]) == {"lo", "hi"}
    assert rules["rule:sel-ratio"]["value_meaning"].startswith("smallest ratio")
    odds = rules["rule:odds"]["details"]
    assert odds["rate"] == "equalized_odds"
    assert [p["rate"] for p in odds["parts"]] == ["false_positive", "false_negative"]
    assert rules["rule:ppv"]["details"]["rate"] == "precision"
    shown = _run(tmp_path, "fairness", "spec.yaml")
    text = " ".join((shown.stdout + shown.stderr).split())  # the summary, unwrapped
    assert "min_group_ratio 0.5 against Male" in text
    assert "equalized_odds rate by sex" in text
    verified = _run(tmp_path, "verify", "ev/record.json")
    assert verified.returncode == 0, verified.stdout + verified.stderr


def test_policy_overrides_a_ratio_and_monitoring_refuses_it(tmp_path: Path) -> None:
    from respai.spec.policy import apply_policy, parse_policy

    fairness = parse_fairness(fairness_block(min_group_ratio=0.8))
    stricter = apply_policy(fairness, parse_policy({"rules": {"r": {"min_group_ratio": 0.9}}}))
    assert stricter.rules[0].min_group_ratio == 0.9
    with pytest.raises(SpecError, match="declares a min_group_ratio rule"):
        apply_policy(fairness, parse_policy({"rules": {"r": {"max_group_gap": 0.1}}}))
    (tmp_path / "monitor.yaml").write_text(
        "system: {name: m}\nfairness:\n  label: y\n  prediction: p\n"
        "  attributes: {sex: [Female, Male]}\n  rules:\n"
        "    - {id: r, rate: selection, attribute: sex, min_group_ratio: 0.8}\n",
        encoding="utf-8",
    )
    pd.DataFrame({"y": [0, 1], "p": [1, 1], "sex": ["Female", "Male"]}).to_csv(
        tmp_path / "w.csv", index=False
    )
    proc = _run(tmp_path, "monitor", "monitor.yaml", "w.csv", "--no-ledger")
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "monitoring does not decide yet" in proc.stderr + proc.stdout
