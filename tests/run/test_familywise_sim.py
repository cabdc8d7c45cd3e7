"""``familywise: bonferroni`` at the least favourable null, and what it costs in cases.

A run of ``m`` tests all exactly at their thresholds (:mod:`tests.family_oc`): without the
key a wrong FAIL somewhere in the run is far likelier than ``alpha``; with it the rate is
at most ``alpha``. The published numbers (docs/methods/group-rules.md#family-wise) are
asserted here, from a fixed seed.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as sps
from tests import family_oc

from respai.battery import Threshold, accuracy
from respai.counts import Cell
from respai.types import Verdict

ALPHA = family_oc.ALPHA


def _upper(rate: float, reps: int) -> float:
    """Clopper-Pearson 99% upper bound of a simulated rate."""
    k = round(rate * reps)
    return 1.0 if k == reps else float(sps.beta.ppf(0.995, k + 1, reps - k))


def test_familywise_holds_any_wrong_fail_to_alpha_fast() -> None:
    without, m = family_oc.any_fail_rate(4, False, reps=300)
    with_key, _ = family_oc.any_fail_rate(4, True, reps=300)
    assert m == 6
    assert (without, with_key) == (pytest.approx(0.08), pytest.approx(4 / 300))
    assert without > ALPHA >= with_key


@pytest.mark.slow
@pytest.mark.parametrize(
    ("k", "reps", "without", "with_key"),
    [(4, 2000, 0.096, 0.021), (8, 500, 0.136, 0.024)],
)
def test_familywise_holds_any_wrong_fail_to_alpha(
    k: int, reps: int, without: float, with_key: float
) -> None:
    found_without, m = family_oc.any_fail_rate(k, False, reps=reps)
    found_with, _ = family_oc.any_fail_rate(k, True, reps=reps)
    assert m == k + 2
    assert (found_without, found_with) == (pytest.approx(without), pytest.approx(with_key))
    # without the key: above alpha even at the 99% lower bound of the simulated rate
    assert (
        float(sps.beta.ppf(0.005, round(without * reps), reps - round(without * reps) + 1)) > ALPHA
    )
    # with it: at most alpha even at the 99% upper bound
    assert _upper(with_key, reps) <= ALPHA


def test_accuracy_power_sum_is_the_engines_verdict() -> None:
    """The exact sum's PASS set is the engine's accuracy test's, at both levels."""
    threshold = Threshold(">=", 0.70, "test")
    for alpha in (ALPHA, ALPHA / 10):
        z = sps.norm.isf(alpha / 2)
        for n in (20, 57, 200):
            for k in range(n + 1):
                centre = (k + z * z / 2) / (n + z * z)
                half = z * np.sqrt(k * (n - k) / n + z * z / 4) / (n + z * z)
                cell = Cell(tp=k, fp=n - k)  # label 1 everywhere: right when predicted 1
                verdict = accuracy(cell, threshold, 1 - alpha).verdict
                assert (verdict is Verdict.PASS) == bool(centre - half >= 0.70 - 1e-12), (n, k)


def test_the_cost_in_cases_of_a_family_of_ten() -> None:
    assert family_oc.accuracy_cases_for_power(ALPHA) == 625
    assert family_oc.accuracy_cases_for_power(ALPHA / 10) == 1078


@pytest.mark.slow
def test_the_cost_in_cases_of_a_gap_rule_in_a_family_of_ten() -> None:
    assert family_oc.gap_cases_for_power(ALPHA) == 2572  # the group-rules table's G = 2
    assert family_oc.gap_cases_for_power(ALPHA / 10) == 3987
