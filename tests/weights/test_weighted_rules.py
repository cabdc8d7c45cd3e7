"""Weighted group rules (``data.weight``): every number against numpy and statsmodels."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from statsmodels.stats.proportion import proportion_confint
from tests.weights.helpers import GROUPS, RATES, frame, reference, spec

from respai.errors import InputError, SpecError
from respai.results import rule_dict
from respai.run.group_rules import evaluate_fairness
from respai.weights import korn_graubard, recompute

ALPHA = 0.05


def _check_against_reference(df: pd.DataFrame) -> None:
    result = evaluate_fairness(spec(), df)
    assert result.weighted is not None
    for r in result.rules:
        assert r.weighted
        share = r.alpha_per_group
        for g in r.groups:
            want = reference(df, r.rule.rate.value, g.key[0], share)
            got = rule_dict(r)["groups"][GROUPS.index(g.key[0])]["weighted"]
            if want["rate"] is None:
                assert got["rate"] is None and got["rate_undefined_reason"]
            else:
                assert got["rate"] == pytest.approx(want["rate"], rel=1e-9, abs=1e-12)
            if want["n_eff"] is None:
                assert got["n_eff"] is None
                assert (got["interval"]["lo"], got["interval"]["hi"]) == (0.0, 1.0)
                continue
            assert got["n_eff"] == pytest.approx(want["n_eff"], rel=1e-9)
            assert got["interval"]["lo"] == pytest.approx(want["interval"][0], abs=1e-7)
            assert got["interval"]["hi"] == pytest.approx(want["interval"][1], abs=1e-7)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_weighted_rates_and_intervals_match_numpy_and_statsmodels(seed: int) -> None:
    """Hajek rate, Kish n_eff and the KG interval of every group and rate, by reference."""
    _check_against_reference(frame(seed, missing=0.03))


rows = st.lists(
    st.tuples(
        st.sampled_from(GROUPS),
        st.integers(0, 1),
        st.sampled_from([0.0, 1.0, math.nan]),
        st.sampled_from([0.0, 0.001, 0.5, 1.0, 1.0, 2.25, 1000.0]),  # zeros, ties, a heavy one
    ),
    min_size=1,
    max_size=40,
)


@settings(max_examples=40, deadline=None)
@given(rows)
def test_random_weights_match_the_reference(data: list[tuple[str, int, float, float]]) -> None:
    """Random rows: zero weights, ties, one heavy weight, tiny and one-case groups."""
    df = pd.DataFrame(data, columns=["g", "y", "p", "w"])
    _check_against_reference(df)


def test_unit_weights_give_the_unweighted_numbers_and_verdicts() -> None:
    """All weights 1: n_eff = n, KG = Clopper-Pearson, the same verdicts as unweighted."""
    df = frame(7).assign(w=1.0)
    weighted = evaluate_fairness(spec(), df)
    plain = evaluate_fairness(spec(weight=None), df)
    for a, b in zip(weighted.rules, plain.rules, strict=True):
        assert (a.verdict, a.reason_code) == (b.verdict, b.reason_code)
        for ga, gb in zip(a.groups, b.groups, strict=True):
            assert ga.rate == pytest.approx(gb.rate, rel=1e-12)
            assert ga.interval.lo == pytest.approx(gb.interval.lo, abs=1e-9)
            assert ga.interval.hi == pytest.approx(gb.interval.hi, abs=1e-9)
    assert "korn-graubard" in weighted.rules[0].interval_method
    assert "korn-graubard" not in plain.rules[0].interval_method


@settings(max_examples=60, deadline=None)
@given(
    st.fractions(min_value=0, max_value=1, max_denominator=1000),
    st.floats(min_value=1.0, max_value=5000.0),
    st.sampled_from([0.05, 0.025, 0.01 / 3]),
)
def test_korn_graubard_is_statsmodels_beta_at_n_eff(p: Any, n_eff: float, alpha: float) -> None:
    """The interval is statsmodels' Clopper-Pearson (beta) at a non-integer count."""
    iv = korn_graubard(p, n_eff, alpha)
    lo, hi = proportion_confint(float(p) * n_eff, n_eff, alpha, method="beta")
    assert iv.lo == pytest.approx(0.0 if p == 0 else lo, abs=1e-9)
    assert iv.hi == pytest.approx(1.0 if p == 1 else hi, abs=1e-9)


def test_a_verifier_recomputes_the_rates_from_the_record_counts() -> None:
    """``counts.weighted`` alone gives every group's weighted rate and n_eff."""
    df = frame(11, missing=0.05)
    result = evaluate_fairness(spec(), df)
    assert result.weighted is not None
    counts = result.weighted.counts_dict()
    cells = {
        "false_negative": {
            "events": ["fn"],
            "decided": ["tp", "fn"],
            "missing": ["missing_prediction_label_1"],
        }
    }
    rule = next(r for r in result.rules if r.rule.id == "false_negative")
    again = recompute(counts, "g", cells["false_negative"])
    for g, mine in zip(rule_dict(rule)["groups"], again, strict=True):
        assert mine["rate"] == g["weighted"]["rate"]
        assert mine["n_eff"] == g["weighted"]["n_eff"]
        assert mine["decided_n_eff"] == g["weighted"]["decided_n_eff"]
        want = reference(df, "false_negative", g["key"][0], rule.alpha_per_group)
        assert mine["rate"] == pytest.approx(want["rate"], rel=1e-9)
    fp = result.weighted.fingerprint()
    w = df["w"].to_numpy()
    assert fp["n"] == len(df)
    assert fp["sum"] == sum(math.floor(x * 10**6 + 0.5) for x in w)
    assert fp["sum_squares"] == sum(math.floor(x * 10**6 + 0.5) ** 2 for x in w)
    assert fp["n_eff"] == pytest.approx(w.sum() ** 2 / (w**2).sum(), rel=1e-9)


def test_csv_and_frame_give_identical_parts(tmp_path: Path) -> None:
    """A CSV counted in DuckDB and the same pandas frame: the same sums, rates, verdicts."""
    df = frame(5, missing=0.02)
    path = tmp_path / "cases.csv"
    df.to_csv(path, index=False)
    on_file = evaluate_fairness({**spec(), "fairness": {**spec()["fairness"], "cases": str(path)}})
    on_frame = evaluate_fairness(spec(), df)
    assert on_file.weighted is not None and on_frame.weighted is not None
    assert on_file.weighted.counts_dict() == on_frame.weighted.counts_dict()
    assert on_file.weighted.fingerprint() == on_frame.weighted.fingerprint()
    assert [rule_dict(r) for r in on_file.rules] == [rule_dict(r) for r in on_frame.rules]


def test_weights_change_the_decision_when_they_should() -> None:
    """Weights that undo an oversampled group's selection gap are what is decided."""
    n = 4000
    rng = np.random.default_rng(3)
    g = np.repeat(["a", "b", "c"], [n // 2, n // 4, n // 4])
    # b's selected cases were sampled 3x as often: unweighted its rate looks far higher
    rates = [(0.3, n // 2), (0.5625, n // 4), (0.3, n // 4)]
    p = np.concatenate([rng.binomial(1, q, k) for q, k in rates]).astype(float)
    w = np.where((g == "b") & (p == 1), 1 / 3, 1.0)
    df = pd.DataFrame({"g": g, "y": p.astype(int), "p": p, "w": np.round(w, 6)})
    body = spec()
    body["fairness"]["rules"] = [
        {"id": "sel", "rate": "selection", "attribute": "g", "max_group_gap": 0.1}
    ]
    plain = evaluate_fairness({"fairness": body["fairness"]}, df).rules[0]
    weighted = evaluate_fairness(body, df).rules[0]
    assert plain.verdict.value == "FAIL"
    assert weighted.verdict.value == "PASS", weighted.reason


def _refused(tmp_path: Path, values: list[Any], text: str) -> InputError:
    df = frame(1, n=len(values))
    df["w"] = values
    path = tmp_path / "cases.csv"
    df.to_csv(path, index=False)
    body = spec()
    body["fairness"]["cases"] = str(path)
    with pytest.raises(InputError) as info:
        evaluate_fairness(body)
    message = str(info.value)
    assert "'w'" in message and text in message, message
    return info.value


def test_bad_weights_are_refused_naming_the_value_and_row(tmp_path: Path) -> None:
    """Negative, infinite, NaN, empty, text and too large weights: exit 2 with the row."""
    assert "line 4" in str(_refused(tmp_path, [1, 2, -0.5, 1, 1], "-0.5"))
    assert "line 3" in str(_refused(tmp_path, [1, math.inf, 1], "inf"))
    _refused(tmp_path, [1, 1, math.nan, 1], "no weight")  # an empty CSV cell
    assert "line 5" in str(_refused(tmp_path, [1, 1, 1, "heavy"], "'heavy'"))
    too_big = _refused(tmp_path, [1, 1e12, 1], "weight_decimals")
    assert "line 3" in str(too_big) and InputError.exit_code == 2


def test_bad_weights_in_a_frame_are_refused() -> None:
    """A DataFrame's NaN, infinite or negative weight is refused as well."""
    for bad in (math.nan, math.inf, -1.0):
        df = frame(2, n=30)
        df.loc[7, "w"] = bad
        with pytest.raises(InputError, match="'w'"):
            evaluate_fairness(spec(), df)


def test_weight_decimals_is_checked() -> None:
    """``data.weight_decimals``: 0 to 12, and only with ``data.weight``."""
    df = frame(1, n=50)
    for bad in (-1, 13, 2.5, "six"):
        with pytest.raises(SpecError, match="weight_decimals"):
            evaluate_fairness(spec(weight_decimals=bad), df)
    with pytest.raises(SpecError, match="weight_decimals"):
        evaluate_fairness({**spec(weight=None), "data": {"weight_decimals": 3}}, df)
    coarse = evaluate_fairness(spec(weight_decimals=2), df)
    assert coarse.weighted is not None and coarse.weighted.decimals == 2


def test_rates_list_is_the_registry() -> None:
    """The rates the tests weigh are names of the rate registry."""
    from respai.metrics import Rate

    assert {r.value for r in Rate} >= set(RATES)


def test_a_sealed_record_holds_the_weights_and_verifies(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``respai evaluate``: run_start.weights, counts.weighted, schema-valid and verified."""
    import base64
    import json

    import yaml

    from respai.api import evaluate
    from respai.record import KeyRing, load_public_key, validate_predicate, verify_envelope

    monkeypatch.setenv("RESPAI_HOME", str(tmp_path / "keys"))
    monkeypatch.delenv("RESPAI_KEY_PASSPHRASE", raising=False)
    df = frame(4)
    df.to_csv(tmp_path / "cases.csv", index=False)
    body = spec()
    body["fairness"]["cases"] = "cases.csv"
    (tmp_path / "spec.yaml").write_text(yaml.safe_dump(body))
    evaluate(tmp_path / "spec.yaml", out=tmp_path / "out")
    envelope = json.loads((tmp_path / "out" / "record.json").read_text())
    ring = KeyRing.from_public_key(load_public_key(tmp_path / "out" / "public_key.pem"))
    assert verify_envelope(envelope, ring).ok
    predicate = json.loads(base64.b64decode(envelope["payload"]))["predicate"]
    assert validate_predicate(predicate) == []
    start = predicate["records"][0]
    assert start["weights"]["column"] == "w" and start["weights"]["n"] == len(df)
    assert predicate["counts"]["weighted"]["decimals"] == 6
    rules = [r for r in predicate["records"] if r.get("test_key", "").startswith("rule:")]
    assert rules and all(r["details"]["weights"]["interval"] == "korn-graubard" for r in rules)
    assert all("weighted" in g for r in rules for g in r["details"]["groups"])
