"""The AUC's Newcombe score interval: coverage, endpoints, small and extreme samples.

The interval (Newcombe 2006, Part 2, method 5) replaced DeLong's ``auc ± z·se``, whose
variance is exactly 0 for a perfectly separated sample; since engine 0.4.0 it is one of
the three parts of the battery's interval (``stats.auc_interval``; its coverage over
score shapes is in ``test_auc_coverage.py``). These tests hold Newcombe's interval to
its coverage in a fixed-seed equal-spread binormal simulation (the shape it was built
for), re-derive its endpoints independently (root finding on the defining equation, and
the roots of the quartic it multiplies out to), and check that a handful of cases cannot
PASS in the battery.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from contextlib import redirect_stdout
from dataclasses import replace
from io import StringIO
from pathlib import Path
from statistics import NormalDist
from typing import Any

import numpy as np
import pytest
from numpy.polynomial import Polynomial
from scipy.optimize import brentq

from respai import stats
from respai.battery import AUC_MIN_PER_LABEL, Decision, Threshold, auc
from respai.cli import main
from respai.counts import Counts, RankSums, Row, build_counts
from respai.types import Verdict

Z95 = NormalDist().inv_cdf(0.975)


# -- the binormal simulation ----------------------------------------------------------------


def binormal_sums(
    rng: np.random.Generator, m: int, n: int, true_auc: float, reps: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``twice_u``, ``sum(x**2)`` and ``sum(v**2)`` of ``reps`` binormal samples.

    Positives score ``N(d, 1)``, negatives ``N(0, 1)``, with ``d = sqrt(2) Phi^-1(AUC)``
    so the true AUC is ``true_auc``. Placements by comparing every pair (no sorting).
    """
    d = math.sqrt(2.0) * NormalDist().inv_cdf(true_auc)
    x = rng.normal(d, 1.0, (reps, m))
    y = rng.normal(0.0, 1.0, (reps, n))
    above = x[:, :, None] > y[:, None, :]
    tied = x[:, :, None] == y[:, None, :]
    px = 2 * above.sum(axis=2) + tied.sum(axis=2)  # per positive
    nv = 2 * above.sum(axis=1) + tied.sum(axis=1)  # per negative
    return px.sum(axis=1), (px**2).sum(axis=1), (nv**2).sum(axis=1)


def score_coverage(m: int, n: int, true_auc: float, twice_u: np.ndarray) -> float:
    """Share of samples whose Newcombe interval holds the true AUC (one call per value)."""
    inside: dict[int, bool] = {}
    for u in np.unique(twice_u).tolist():
        iv = stats.auc_score_interval(m, n, u)
        assert iv is not None
        inside[u] = iv.lo <= true_auc <= iv.hi
    return float(np.mean([inside[u] for u in twice_u.tolist()]))


def delong_coverage(
    m: int, n: int, true_auc: float, sums: tuple[np.ndarray, np.ndarray, np.ndarray]
) -> float:
    """The same for the DeLong interval the AUC had before (``auc_from_rank_sums``)."""
    hits = 0
    for u, sx, sv in zip(*(s.tolist() for s in sums), strict=True):
        found = stats.auc_from_rank_sums(m, n, u, sx, sv)
        assert found is not None and found[1] is not None
        hits += found[1].lo <= true_auc <= found[1].hi
    return hits / len(sums[0])


REPS = 4000


@pytest.mark.parametrize("size", [10, 30])
@pytest.mark.parametrize("true_auc", [0.7, 0.9, 0.95])
def test_score_interval_covers_near_nominal(size: int, true_auc: float) -> None:
    rng = np.random.default_rng([size, round(true_auc * 1000), 14])
    twice_u, _, _ = binormal_sums(rng, size, size, true_auc, REPS)
    coverage = score_coverage(size, size, true_auc, twice_u)
    # near nominal: not below 93%, and not bought by an interval far too wide
    assert 0.93 <= coverage <= 0.99, coverage


def test_delong_interval_undercovers_where_the_score_interval_does_not() -> None:
    rng = np.random.default_rng([10, 950, 14])
    sums = binormal_sums(rng, 10, 10, 0.95, REPS)
    old = delong_coverage(10, 10, 0.95, sums)
    new = score_coverage(10, 10, 0.95, sums[0])
    assert old < 0.85 < 0.93 <= new, (old, new)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("m", "n"), [(10, 10), (20, 20), (10, 50), (50, 10), (10, 200), (200, 10)]
)
def test_score_interval_coverage_over_the_auc_range(m: int, n: int) -> None:
    # the methods page's table: every AUC from 0.5 to 0.99, balanced and not, from the
    # minimum of 10 cases per label up; scores tied in steps of 0.5 as well as continuous
    for true_auc in (0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.99):
        rng = np.random.default_rng([m, n, round(true_auc * 1000)])
        twice_u, _, _ = binormal_sums(rng, m, n, true_auc, 2000)
        assert score_coverage(m, n, true_auc, twice_u) >= 0.93, (m, n, true_auc)


@pytest.mark.slow
def test_score_interval_coverage_with_tied_scores() -> None:
    # scores rounded to steps of 0.5: many ties; the true AUC (ties half) from the
    # exact cell probabilities of the rounded normals
    from scipy.stats import norm

    for m, n, true_auc in ((10, 10, 0.9), (30, 30, 0.95), (10, 100, 0.8)):
        d = math.sqrt(2.0) * norm.ppf(true_auc)
        edges = np.arange(-12.0, 16.0, 0.5) + 0.25
        cells = np.arange(-11.75, 16.0, 0.5)[: len(edges) - 1]
        p_pos = np.diff(norm.cdf(edges, loc=d))
        p_neg = np.diff(norm.cdf(edges))
        below = np.cumsum(p_neg) - p_neg
        exact = float(np.sum(p_pos * (below + p_neg / 2)))
        rng = np.random.default_rng([m, n, 7])
        x = rng.choice(cells, size=(2000, m), p=p_pos / p_pos.sum())
        y = rng.choice(cells, size=(2000, n), p=p_neg / p_neg.sum())
        twice_u = 2 * (x[:, :, None] > y[:, None, :]).sum((1, 2)) + (
            x[:, :, None] == y[:, None, :]
        ).sum((1, 2))
        assert score_coverage(m, n, exact, twice_u) >= 0.93, (m, n, exact)


# -- the endpoints, derived independently ---------------------------------------------------


def hanley_mcneil(theta: float, m: int, n: int) -> float:
    """Hanley & McNeil's (1982) variance in its own form, with Newcombe's ``N*``."""
    q1 = theta / (2 - theta)
    q2 = 2 * theta**2 / (1 + theta)
    star = (m + n) / 2 - 1
    return (theta * (1 - theta) + star * (q1 - theta**2) + star * (q2 - theta**2)) / (m * n)


def brentq_bounds(m: int, n: int, twice_u: int, z: float = Z95) -> tuple[float, float]:
    """The endpoints as the roots of ``(auc - t)**2 = z**2 V(t)`` beside the estimate."""
    est = twice_u / (2 * m * n)

    def g(t: float) -> float:
        return (est - t) ** 2 - z * z * hanley_mcneil(t, m, n)

    tiny = 1e-12  # g is 0 at an estimate of 0 or 1 itself: start just inside
    lo = 0.0 if est == 0 else brentq(g, 0.0, min(est, 1 - tiny), xtol=1e-15)
    hi = 1.0 if est == 1 else brentq(g, max(est, tiny), 1.0, xtol=1e-15)
    return lo, hi


def quartic_bounds(m: int, n: int, twice_u: int, z: float = Z95) -> tuple[float, float]:
    """The same from the quartic ``(2 - t)(1 + t) [(auc - t)**2 - z**2 V(t)] = 0``."""
    est = twice_u / (2 * m * n)
    t = Polynomial([0, 1])
    star = (m + n) / 2 - 1
    inner = (2 - t) * (1 + t) + star * (1 - t) * (1 + t) + star * t * (2 - t)
    quartic = m * n * (est - t) ** 2 * (2 - t) * (1 + t) - z * z * t * (1 - t) * inner
    found = [complex(r) for r in quartic.roots()]
    roots = [r.real for r in found if abs(r.imag) < 1e-9 and -1e-9 <= r.real <= 1 + 1e-9]
    lows = [r for r in roots if r < est - 1e-9]
    highs = [r for r in roots if r > est + 1e-9]
    return (max(lows) if lows else 0.0), (min(highs) if highs else 1.0)


def _cases() -> Iterator[tuple[int, int, int]]:
    for m, n in ((1, 1), (2, 2), (2, 3), (5, 5), (10, 10), (10, 100), (100, 10), (1000, 3)):
        top = 2 * m * n
        for u in sorted({0, 1, top // 4, top // 2, (3 * top) // 4, top - 1, top}):
            yield m, n, u


@pytest.mark.parametrize(("m", "n", "twice_u"), list(_cases()))
def test_endpoints_equal_independent_root_finding(m: int, n: int, twice_u: int) -> None:
    iv = stats.auc_score_interval(m, n, twice_u)
    assert iv is not None and iv.method == stats.AUC_SCORE_METHOD == "newcombe-score"
    lo, hi = brentq_bounds(m, n, twice_u)
    assert iv.lo == pytest.approx(lo, abs=1e-12) and iv.hi == pytest.approx(hi, abs=1e-12)
    qlo, qhi = quartic_bounds(m, n, twice_u)
    assert iv.lo == pytest.approx(qlo, abs=1e-7) and iv.hi == pytest.approx(qhi, abs=1e-7)


@pytest.mark.parametrize(("m", "n", "twice_u"), [(2, 2, 8), (10, 10, 150), (10, 100, 1234)])
def test_the_interval_is_exactly_the_set_the_score_test_accepts(
    m: int, n: int, twice_u: int
) -> None:
    iv = stats.auc_score_interval(m, n, twice_u)
    assert iv is not None
    est = twice_u / (2 * m * n)
    for t in np.linspace(0.0, 1.0, 2001).tolist():
        if min(abs(t - iv.lo), abs(t - iv.hi)) < 1e-9:
            continue
        accepted = (est - t) ** 2 <= Z95**2 * hanley_mcneil(t, m, n)
        assert accepted == (iv.lo <= t <= iv.hi), t


def test_the_variance_is_hanley_mcneil_and_its_root_is_concave() -> None:
    # the concavity of sqrt(V) is what makes the accepted set one interval
    grid = np.linspace(0.0, 1.0, 4001)
    for m, n in ((1, 1), (2, 5), (10, 10), (500, 7), (10**6, 10**6)):
        v = np.array([stats.auc_score_variance(t, m, n) for t in grid.tolist()])
        ref = np.array([hanley_mcneil(t, m, n) for t in grid.tolist()])
        np.testing.assert_allclose(v, ref, rtol=1e-12, atol=1e-300)
        r = np.sqrt(v)
        assert np.all(r[2:] - 2 * r[1:-1] + r[:-2] <= 1e-15), (m, n)


def test_swapping_the_labels_mirrors_the_interval() -> None:
    for m, n in ((3, 7), (10, 10), (40, 9)):
        prev = (-1.0, -1.0)
        for u in range(0, 2 * m * n + 1):
            a = stats.auc_score_interval(m, n, u)
            b = stats.auc_score_interval(n, m, 2 * m * n - u)
            assert a is not None and b is not None
            assert a.lo == pytest.approx(1 - b.hi, abs=1e-12)
            assert a.hi == pytest.approx(1 - b.lo, abs=1e-12)
            assert a.lo >= prev[0] and a.hi >= prev[1]  # monotone in the estimate
            prev = (a.lo, a.hi)


def test_a_higher_level_widens_the_interval() -> None:
    narrow = stats.auc_score_interval(10, 10, 160, 0.90)
    wide = stats.auc_score_interval(10, 10, 160, 0.99)
    middle = stats.auc_score_interval(10, 10, 160)
    assert narrow and wide and middle
    assert wide.lo < middle.lo < narrow.lo < 0.8 < narrow.hi < middle.hi < wide.hi
    assert (wide.confidence, middle.confidence) == (0.99, 0.95)


def test_bad_arguments_are_refused_and_one_label_is_undefined() -> None:
    assert stats.auc_score_interval(0, 5, 0) is None
    assert stats.auc_score_interval(5, 0, 0) is None
    with pytest.raises(ValueError, match="outside"):
        stats.auc_score_interval(2, 2, 9)
    with pytest.raises(ValueError, match="outside"):
        stats.auc_score_interval(2, 2, -1)
    with pytest.raises(ValueError, match=">= 0"):
        stats.auc_score_interval(-1, 2, 0)
    with pytest.raises(ValueError, match="confidence"):
        stats.auc_score_interval(2, 2, 4, 1.0)
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        stats.auc_score_variance(1.5, 2, 2)


# -- extremes: AUC 0, 1, every score tied ---------------------------------------------------


@pytest.mark.parametrize(("m", "n"), [(1, 1), (2, 2), (3, 8), (10, 10), (200, 50)])
def test_auc_of_0_1_or_all_ties_gets_a_proper_interval(m: int, n: int) -> None:
    zero = stats.auc_score_interval(m, n, 0)
    one = stats.auc_score_interval(m, n, 2 * m * n)
    ties = stats.auc_score_interval(m, n, m * n)  # every score the same: AUC 0.5
    assert zero and one and ties
    assert zero.lo == 0.0 < zero.hi < 1.0
    assert 0.0 < one.lo < one.hi == 1.0
    assert 0.0 < ties.lo < 0.5 < ties.hi < 1.0
    assert ties.lo == pytest.approx(1 - ties.hi, abs=1e-12)
    # DeLong's interval was a point in every one of these cases
    if m >= 2 and n >= 2:
        for u2, sx, sv in ((0, 0, 0), (2 * m * n, m * (2 * n) ** 2, n * (2 * m) ** 2)):
            found = stats.auc_from_rank_sums(m, n, u2, sx, sv)
            assert found is not None and found[1] is not None
            assert found[1].lo == found[1].hi
        found = stats.auc_from_rank_sums(m, n, m * n, m * n * n, n * m * m)
        assert found is not None and found[1] is not None and found[1].lo == found[1].hi


# -- the battery: too few cases read INSUFFICIENT_EVIDENCE ----------------------------------


def separated(m: int, n: int) -> RankSums:
    """Rank sums of ``m`` positives all scored above ``n`` negatives."""
    return RankSums(m, n, 2 * m * n, m * (2 * n) ** 2, n * (2 * m) ** 2)


def counts_with(ranks: RankSums, per_group: dict[str, RankSums] | None = None) -> Counts:
    rows = [Row(("a",), (None,), 1, 1, None, ranks.positives)]
    rows.append(Row(("a",), (None,), 0, 0, None, ranks.negatives))
    counts = build_counts(rows, {"g": ["a", "b"]}, [("g",)], None)
    groups = per_group or {"a": ranks}
    return replace(
        counts, overall_ranks=ranks, ranks={("g",): {(k,): r for k, r in groups.items()}}
    )


THRESHOLDS = [
    Threshold(">=", value, "test", decision)
    for value in (0.5, 0.7, 0.9)
    for decision in (Decision.ESTIMATE, Decision.INTERVAL)
]


@pytest.mark.parametrize("threshold", THRESHOLDS, ids=lambda t: f"{t.value}-{t.decision}")
def test_two_and_two_perfectly_separated_is_insufficient_never_pass(
    threshold: Threshold,
) -> None:
    result = auc(counts_with(separated(2, 2)), threshold)
    assert result.verdict is Verdict.INSUFFICIENT_EVIDENCE
    assert result.value == 1.0 and result.interval is not None
    assert result.interval.lo < 1.0 == result.interval.hi
    assert "at least 10 cases of each label" in result.reason
    overall = result.details["overall"]
    assert overall["interval"]["method"] == stats.AUC_INTERVAL_METHOD
    assert "insufficient_reason" in overall


@pytest.mark.parametrize(("m", "n"), [(9, 10), (10, 9), (9, 1000), (1000, 9)])
def test_below_the_minimum_of_either_label_is_insufficient(m: int, n: int) -> None:
    for threshold in THRESHOLDS:
        assert auc(counts_with(separated(m, n)), threshold).verdict is (
            Verdict.INSUFFICIENT_EVIDENCE
        )


def test_at_the_minimum_the_verdict_reads_the_interval() -> None:
    assert AUC_MIN_PER_LABEL == 10
    ranks = separated(10, 10)  # AUC 1; the interval's lower end is about 0.72 (the bound:
    # 10 x (1 - 1) = 0 cases expected on the wrong side)
    passed = auc(counts_with(ranks), Threshold(">=", 0.7, "test", Decision.INTERVAL))
    assert passed.verdict is Verdict.PASS
    assert passed.interval is not None and 0.72 < passed.interval.lo < 0.73
    crossed = auc(counts_with(ranks), Threshold(">=", 0.9, "test", Decision.INTERVAL))
    assert crossed.verdict is Verdict.INSUFFICIENT_EVIDENCE and crossed.uncertain
    details: dict[str, Any] = dict(passed.details)
    assert details["interval_method"] == "widest-of-newcombe-delong-logit-bound"
    assert details["interval_reference"].startswith("The widest of: Newcombe, R. G. (2006)")
    assert details["minimum_per_label"] == 10
    assert "insufficient_reason" not in details["overall"]


def test_every_group_gets_an_interval_and_small_ones_say_so() -> None:
    overall = separated(12, 12)
    groups = {"a": separated(1, 1), "b": RankSums(11, 11, 11 * 11, 11 * 11**2, 11 * 11**2)}
    result = auc(counts_with(overall, groups), Threshold(">=", 0.7, "test"))
    rows = {r["group"]: r for r in result.details["per_group"]["g"]}
    a, b = rows["a"], rows["b"]
    assert 0.0 < a["interval"]["lo"] < a["interval"]["hi"] == 1.0
    assert a["standard_error"] is None and "standard_error_undefined_reason" in a
    assert "insufficient_reason" in a and "insufficient_reason" not in b
    assert b["value"] == 0.5 and b["interval"]["lo"] < 0.5 < b["interval"]["hi"]


def test_four_cases_end_to_end_exit_3(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RESPAI_HOME", str(tmp_path / "keys"))
    monkeypatch.delenv("RESPAI_KEY_PASSPHRASE", raising=False)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "cases.csv").write_text(
        "id,label,prediction,score,sex\n1,1,1,0.9,f\n2,1,1,0.8,m\n3,0,0,0.2,f\n4,0,0,0.1,m\n"
    )
    (tmp_path / "spec.yaml").write_text(
        "system: {name: tiny, version: '1'}\n"
        "fairness:\n  name: tiny\n  cases: cases.csv\n  label: label\n"
        "  prediction: prediction\n  probability: score\n  unit: id\n"
        "  attributes:\n    sex: [f, m]\n"
        "evaluation:\n  tests: [auc]\n"
    )
    (tmp_path / "policy.yaml").write_text("tests:\n  auc: {decision: interval}\n")
    for policy in ([], ["--policy", str(tmp_path / "policy.yaml")]):
        buf = StringIO()
        with redirect_stdout(buf):
            code = main(
                ["evaluate", str(tmp_path / "spec.yaml"), "--json", "--no-ledger", *policy]
            )
        summary = json.loads(buf.getvalue())
        (test,) = summary["tests"]
        assert code == 3 and test["verdict"] == "INSUFFICIENT_EVIDENCE"
        assert test["value"] == 1.0
        assert test["interval"]["method"] == stats.AUC_INTERVAL_METHOD
        assert test["interval"]["lo"] < test["interval"]["hi"] == 1.0
