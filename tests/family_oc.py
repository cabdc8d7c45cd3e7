"""Operating characteristics of ``familywise: bonferroni`` (docs/methods/group-rules.md).

Shared by ``tests/run/test_familywise_sim.py`` and
``scripts/familywise_operating_characteristics.py``.

*The least favourable null.* A run of ``m = K + 2`` tests, every one exactly at its
threshold: ``K`` independent two-group attributes, each with a ``worst_group: {max: 0.3}``
rule on the error rate, plus the battery's accuracy (``>= 0.70``) and class balance
(``>= 0.10``). Each case has its label 1 with probability 0.10 and a correct prediction
with probability 0.70, independently of its attributes, so every group's error rate is
0.30, the accuracy 0.70 and the minority share 0.10: every test's true value meets its
threshold (a value on the threshold meets it), and any FAIL is a wrong FAIL. Each run is
counted (:func:`respai.counts.build_counts`) and decided by the engine's own functions,
at the levels :func:`respai.run.family.run_family` gives the run (the battery block
passes the same ``alpha / m`` and ``1 - alpha / m``).

*The cost in cases.* The fewest cases per group for an 80% chance of PASS of a
``max_group_gap: 0.05`` rule over two groups with a false negative rate of 0.2 in each
(:mod:`tests.gap_oc`), and the fewest cases for an 80% chance of PASS of the accuracy
test (``>= 0.70``) at a true accuracy of 0.75, at ``alpha`` (``m = 1``) and at ``alpha / 10``.
Both are exact sums over the binomial counts.
"""

from __future__ import annotations

import itertools
from dataclasses import replace
from typing import Any

import numpy as np
from scipy import stats as sps
from tests import gap_oc

from respai.battery import run_battery, thresholds_for
from respai.counts import Row, build_counts
from respai.rules import evaluate_rule
from respai.run.family import run_family
from respai.spec import apply_policy, parse_policy
from respai.spec.loading import parse_spec
from respai.types import Verdict

ALPHA = 0.05
#: the simulation's cases per run, replicates and seed
CASES = 2000
REPLICATES = 2000
SEED = 20261205
#: the two battery tests at their thresholds
TESTS = ("accuracy", "class_balance")


def spec_dict(k: int) -> dict[str, Any]:
    """A spec with ``k`` two-group attributes, a worst-group error rule on each."""
    return {
        "fairness": {
            "cases": "c.csv",
            "label": "y",
            "prediction": "p",
            "attributes": {f"a{i}": ["x", "y"] for i in range(k)},
            "rules": [
                {"id": f"r{i}", "rate": "error", "attribute": f"a{i}", "worst_group": {"max": 0.3}}
                for i in range(k)
            ],
        },
        "evaluation": {"tests": list(TESTS)},
    }


def any_fail_rate(
    k: int, familywise: bool, *, reps: int = REPLICATES, n: int = CASES, seed: int = SEED
) -> tuple[float, int]:
    """The share of ``reps`` runs with any FAIL among the ``k + 2`` tests, and ``m``."""
    spec = parse_spec(spec_dict(k))
    policy = parse_policy({"familywise": "bonferroni"} if familywise else {})
    family = run_family(spec, policy)
    fairness = apply_policy(spec.fairness, policy)
    if family is not None:
        assert family.m == k + 2
        fairness = replace(fairness, family_size=family.m)
    alpha = fairness.rule_alpha if family is not None else fairness.alpha
    confidence = 1 - float(fairness.rule_alpha) if family is not None else 0.95
    thresholds = thresholds_for(policy)
    attributes = {f"a{i}": ["x", "y"] for i in range(k)}
    groupings = [(a,) for a in attributes]
    keys = list(itertools.product(["x", "y"], repeat=k))
    # every case: attributes uniform, label 1 at 0.10, prediction right at 0.70
    p_cell = np.full(len(keys), 1 / len(keys))
    kinds = [(1, 1), (1, 0), (0, 0), (0, 1)]  # (label, prediction)
    p_kind = np.array([0.1 * 0.7, 0.1 * 0.3, 0.9 * 0.7, 0.9 * 0.3])
    rng = np.random.default_rng(seed)
    fails = 0
    none = (None,) * k
    for _ in range(reps):
        cells = rng.multinomial(n, np.outer(p_cell, p_kind).ravel()).reshape(len(keys), 4)
        rows = [
            Row(key, none, y, p, None, int(c))
            for key, counts in zip(keys, cells, strict=True)
            for (y, p), c in zip(kinds, counts, strict=True)
            if c
        ]
        counts = build_counts(rows, attributes, groupings, None)
        verdicts = [evaluate_rule(r, fairness, counts).verdict for r in fairness.rules]
        verdicts += [
            t.verdict
            for t in run_battery(
                counts,
                TESTS,
                thresholds,
                alpha,
                fairness.min_cell,
                fairness.max_missing,
                confidence,
            )
        ]
        fails += Verdict.FAIL in verdicts
    return fails / reps, k + 2


def accuracy_cases_for_power(
    alpha: float, *, truth: float = 0.75, limit: float = 0.70, power: float = 0.8
) -> int:
    """The fewest cases for ``P(PASS) >= power`` of the accuracy test at ``truth``.

    PASS: the Wilson lower end at ``1 - alpha`` is at least ``limit``; an exact sum over
    the binomial count (scanned upwards, then case by case below the first hit).
    """

    def p_pass(n: int) -> float:
        ks = np.arange(n + 1)
        z = sps.norm.isf(alpha / 2)
        centre = (ks + z * z / 2) / (n + z * z)
        half = z * np.sqrt(ks * (n - ks) / n + z * z / 4) / (n + z * z)
        return float(sps.binom.pmf(ks, n, truth)[centre - half >= limit].sum())

    n = 25
    while p_pass(n) < power:
        n += 25
    return next(m for m in range(max(n - 24, 2), n + 1) if p_pass(m) >= power)


def gap_cases_for_power(alpha: float, *, power: float = 0.8) -> int:
    """The fewest cases per group for an 80% PASS of the two-group gap rule at ``alpha``."""
    n = 25
    rates = [gap_oc.RATE] * 2
    while gap_oc.verdict_probabilities(n, rates, "simultaneous", alpha=alpha)[0] < power:
        n += 25
    return next(
        m
        for m in range(max(n - 24, 2), n + 1)
        if gap_oc.verdict_probabilities(m, rates, "simultaneous", alpha=alpha)[0] >= power
    )
