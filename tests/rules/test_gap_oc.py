"""The published operating characteristics of a gap rule (docs/methods/group-rules.md).

``tests/gap_oc.py`` computes them as exact sums over the binomial counts; here the sums
are checked against the engine's own verdicts (every outcome at small ``n``) and the
published table is asserted (``scripts/gap_operating_characteristics.py`` prints it).
"""

from __future__ import annotations

import importlib.util
import itertools
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import stats as sps

from respai import Verdict
from respai.counts import Cell, Counts, Grouping
from respai.metrics import Rate
from respai.rules import evaluate_rule
from respai.spec.parsed import FairnessSpec, Rule


def _load_gap_oc():  # type: ignore[no-untyped-def]
    path = Path(__file__).resolve().parents[1] / "gap_oc.py"
    spec = importlib.util.spec_from_file_location("gap_oc", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("gap_oc", module)
    spec.loader.exec_module(module)
    return module


gap_oc = _load_gap_oc()


def _engine_probabilities(
    n: int, rates: tuple[float, ...], method: str, limit: float
) -> tuple[float, float]:
    g = len(rates)
    spec = FairnessSpec(
        label="y",
        prediction="p",
        attributes={"g": tuple(f"g{i}" for i in range(g))},
        min_cell=0,
    )
    rule = Rule(
        id="r", rate=Rate.FALSE_NEGATIVE, attributes=("g",), max_group_gap=limit, method=method
    )
    pmfs = [sps.binom.pmf(np.arange(n + 1), n, p) for p in rates]
    p_pass = p_fail = 0.0
    for ks in itertools.product(range(n + 1), repeat=g):
        cells = {(f"g{i}",): Cell(fn=k, tp=n - k) for i, k in enumerate(ks)}
        overall = Cell(fn=sum(ks), tp=g * n - sum(ks))
        counts = Counts(
            total=g * n,
            overall=overall,
            overall_calibration=None,
            groupings={("g",): Grouping(("g",), cells, None, {})},
            calibration_bins=10,
            declared={"g": tuple(f"g{i}" for i in range(g))},
        )
        verdict = evaluate_rule(rule, spec, counts).verdict
        mass = float(np.prod([pmfs[i][k] for i, k in enumerate(ks)]))
        p_pass += mass * (verdict is Verdict.PASS)
        p_fail += mass * (verdict is Verdict.FAIL)
    return p_pass, p_fail


@pytest.mark.parametrize("method", ["simultaneous", "pairwise"])
@pytest.mark.parametrize(
    ("n", "rates", "limit"),
    [
        (40, (0.2, 0.2), 0.3),
        (40, (0.1, 0.5), 0.3),
        (12, (0.1, 0.1, 0.1), 0.45),
        (12, (0.05, 0.5, 0.2), 0.3),
    ],
)
def test_exact_sums_match_the_engines_verdicts(
    n: int, rates: tuple[float, ...], limit: float, method: str
) -> None:
    want = _engine_probabilities(n, rates, method, limit)
    got = gap_oc.verdict_probabilities(n, rates, method, limit=limit)
    assert got == pytest.approx(want, abs=1e-9)


def test_two_groups_published_sizes() -> None:
    # FNR 0.2 in both groups, max_group_gap 0.05, alpha 0.05, 80% chance of PASS
    assert gap_oc.cases_for_power(2, "simultaneous") == 2572
    assert gap_oc.cases_for_power(2, "pairwise") == 2140
    wrong_pass, wrong_fail = gap_oc.at_threshold(2140, 2, "pairwise")
    assert wrong_pass <= 0.05 and wrong_fail <= 0.05
    assert wrong_pass == pytest.approx(0.0025, abs=5e-5)


@pytest.mark.slow
def test_published_table() -> None:
    rows = {(g, m): (n, wp, wf) for g, m, n, wp, wf in gap_oc.table()}
    assert {k: v[0] for k, v in rows.items()} == {
        (2, "simultaneous"): 2572,
        (2, "pairwise"): 2140,
        (6, "simultaneous"): 4665,
        (6, "pairwise"): 3309,
        (12, "simultaneous"): 5961,
        (12, "pairwise"): 3943,
    }
    # the realised wrong-verdict rates at the threshold stay far below the 0.05 budget
    for _, wrong_pass, wrong_fail in rows.values():
        assert wrong_pass < 0.003 and wrong_fail < 0.001
