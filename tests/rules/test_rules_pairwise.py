"""``method: pairwise``: the intersection-union PASS, its guarantees, and run-level control.

The guarantees are checked by exact enumeration at small ``n``: every outcome's verdict
comes from the engine (:func:`respai.rules.evaluate_rule`), and the chance of a PASS (or a
FAIL) at each true rate on a grid is the binomial sum over the outcomes (scipy's pmf).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from respai import Verdict
from respai.counts import Cell, Counts, Grouping
from respai.errors import SpecError
from respai.metrics import Rate
from respai.results import rule_dict
from respai.rules import evaluate_rule
from respai.spec.fairness import parse_fairness
from respai.spec.parsed import FairnessSpec, Rule
from respai.spec.policy import apply_policy, parse_policy

ALPHA = 0.05


def counts_of(cells: Sequence[Cell]) -> Counts:
    """One attribute ``g`` with groups ``g0``, ``g1``, ... holding ``cells``."""
    keyed = {(f"g{i}",): c for i, c in enumerate(cells)}
    overall = Cell()
    for c in cells:
        overall = overall + c
    return Counts(
        total=sum(c.n for c in cells),
        overall=overall,
        overall_calibration=None,
        groupings={("g",): Grouping(("g",), keyed, None, {})},
        calibration_bins=10,
        declared={"g": tuple(k[0] for k in keyed)},
    )


def spec_of(g: int, rules: tuple[Rule, ...] = ()) -> FairnessSpec:
    return FairnessSpec(
        label="y",
        prediction="p",
        attributes={"g": tuple(f"g{i}" for i in range(g))},
        alpha=ALPHA,
        min_cell=0,
        rules=rules,
    )


def fnr(k: int, n: int, missing: int = 0) -> Cell:
    """A group's labelled-1 cases: ``k`` false negatives of ``n`` decided, ``missing`` blank."""
    return Cell(fn=k, tp=n - k, missing_pos=missing)


def rule(method: str, *, gap: float | None = None, ratio: float | None = None) -> Rule:
    return Rule(
        id="r",
        rate=Rate.FALSE_NEGATIVE,
        attributes=("g",),
        max_group_gap=gap,
        min_group_ratio=ratio,
        method=method,
    )


def verdicts(r: Rule, ns: Sequence[int]) -> dict[tuple[int, ...], Verdict]:
    """The engine's verdict for every outcome ``(k_0, ..., k_{G-1})``."""
    spec = spec_of(len(ns))
    return {
        ks: evaluate_rule(
            r, spec, counts_of([fnr(k, n) for k, n in zip(ks, ns, strict=True)])
        ).verdict
        for ks in itertools.product(*(range(n + 1) for n in ns))
    }


def _pmfs(ns: Sequence[int], rates: np.ndarray) -> list[np.ndarray]:
    """``pmf[i][r, k]``: P(k events of ns[i]) at ``rates[r]``."""
    return [sps.binom.pmf(np.arange(n + 1)[None, :], n, rates[:, None]) for n in ns]


def _indicator(table: dict[tuple[int, ...], Verdict], ns: Sequence[int], v: Verdict) -> np.ndarray:
    out = np.zeros([n + 1 for n in ns])
    for ks, got in table.items():
        out[ks] = got is v
    return out


def chance(
    table: dict[tuple[int, ...], Verdict], ns: Sequence[int], ps: Sequence[float], v: Verdict
) -> float:
    """P(verdict v) at true rates ``ps``, summed exactly over the outcomes."""
    mass = _indicator(table, ns, v)
    for i, p in enumerate(ps):
        pmf = sps.binom.pmf(np.arange(ns[i] + 1), ns[i], p)
        mass = np.tensordot(pmf, mass, axes=(0, 0))
    return float(mass)


GRID = np.round(np.linspace(0.0, 1.0, 41), 3)


def _worst(table: dict[tuple[int, ...], Verdict], ns: Sequence[int], v: Verdict, keep) -> float:  # type: ignore[no-untyped-def]
    """The largest P(verdict v) over the grid points of true rates that ``keep`` holds for."""
    mass = _indicator(table, ns, v)
    for pmf in _pmfs(ns, GRID):  # contract each group's count against its rate's pmf
        mass = np.tensordot(mass, pmf, axes=(0, 1))  # the group's rate axis goes last
    worst = 0.0
    for idx in itertools.product(range(len(GRID)), repeat=len(ns)):
        if keep(tuple(GRID[i] for i in idx)):
            worst = max(worst, float(mass[idx]))
    return worst


# -- the guarantees, by exact enumeration ------------------------------------------------


@pytest.mark.parametrize("ns", [(30, 30), (20, 35)])
def test_pairwise_gap_wrong_pass_and_wrong_fail_at_most_alpha(ns: tuple[int, int]) -> None:
    limit = 0.3
    table = verdicts(rule("pairwise", gap=limit), ns)
    assert Verdict.PASS in table.values() and Verdict.FAIL in table.values()
    gap = lambda ps: max(ps) - min(ps)  # noqa: E731
    wrong_pass = _worst(table, ns, Verdict.PASS, lambda ps: gap(ps) > limit)
    wrong_fail = _worst(table, ns, Verdict.FAIL, lambda ps: gap(ps) <= limit)
    assert wrong_pass <= ALPHA
    assert wrong_fail <= ALPHA
    # the pairwise PASS covers every outcome the default passes, and more
    default = verdicts(rule("simultaneous", gap=limit), ns)
    passes = {ks for ks, v in table.items() if v is Verdict.PASS}
    assert {ks for ks, v in default.items() if v is Verdict.PASS} < passes
    same_rates = (0.1, 0.1)
    assert chance(table, ns, same_rates, Verdict.PASS) > chance(
        default, ns, same_rates, Verdict.PASS
    )


def test_pairwise_gap_over_three_groups_keeps_both_guarantees() -> None:
    ns, limit = (12, 12, 12), 0.45
    table = verdicts(rule("pairwise", gap=limit), ns)
    assert Verdict.PASS in table.values()
    gap = lambda ps: max(ps) - min(ps)  # noqa: E731
    assert _worst(table, ns, Verdict.PASS, lambda ps: gap(ps) > limit) <= ALPHA
    assert _worst(table, ns, Verdict.FAIL, lambda ps: gap(ps) <= limit) <= ALPHA


def test_pairwise_ratio_wrong_pass_and_wrong_fail_at_most_alpha() -> None:
    ns, limit = (30, 30), 0.5

    def smallest(ps: Sequence[float]) -> float | None:
        return None if max(ps) == 0 else min(ps) / max(ps)

    table = verdicts(rule("pairwise", ratio=limit), ns)
    assert Verdict.PASS in table.values() and Verdict.FAIL in table.values()
    below = lambda ps: (r := smallest(ps)) is not None and r < limit  # noqa: E731
    held = lambda ps: (r := smallest(ps)) is not None and r >= limit  # noqa: E731
    assert _worst(table, ns, Verdict.PASS, below) <= ALPHA
    assert _worst(table, ns, Verdict.FAIL, held) <= ALPHA


# -- missing decisions keep the guarantee ------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(1, 25), st.integers(0, 25), st.integers(0, 4)),
        min_size=2,
        max_size=3,
    ),
    st.sampled_from(["gap", "ratio"]),
)
def test_pairwise_pass_needs_every_completion_and_fail_some(
    groups: list[tuple[int, int, int]], kind: str
) -> None:
    # (decided, events <= decided, missing) per group
    cells = [(n, min(k, n), m) for n, k, m in groups]
    r = rule("pairwise", gap=0.3) if kind == "gap" else rule("pairwise", ratio=0.5)
    spec = spec_of(len(cells))
    got = evaluate_rule(r, spec, counts_of([fnr(k, n, m) for n, k, m in cells])).verdict
    completions = [
        evaluate_rule(
            r, spec, counts_of([fnr(k + j, n + m) for (n, k, m), j in zip(cells, js, strict=True)])
        ).verdict
        for js in itertools.product(*(range(m + 1) for _, _, m in cells))
    ]
    if got is Verdict.PASS:  # every way the blanks could have gone passes
        assert all(v is Verdict.PASS for v in completions)
    if any(v is Verdict.FAIL for v in completions):  # a blank never escapes a FAIL
        assert got is Verdict.FAIL


# -- the price: pairwise passes where the default cannot ---------------------------------


def test_pairwise_passes_a_gap_the_simultaneous_intervals_leave_open() -> None:
    cells = [fnr(400, 2000)] * 6  # FNR 0.2 in six groups of 2,000: the gap is 0
    spec = spec_of(6)
    default = evaluate_rule(rule("simultaneous", gap=0.045), spec, counts_of(cells))
    pairwise = evaluate_rule(rule("pairwise", gap=0.045), spec, counts_of(cells))
    assert default.verdict is Verdict.INSUFFICIENT_EVIDENCE
    assert pairwise.verdict is Verdict.PASS
    assert "pairwise" in pairwise.reason
    doc = rule_dict(pairwise)
    assert doc["method"] == "pairwise"
    assert doc["alpha_per_group"] == ALPHA  # each group's interval at 1 - alpha
    assert doc["fail_alpha_per_group"] == pytest.approx(ALPHA / 6)
    assert "intersection-union" in doc["interval_method"]
    assert "intersection-union" in doc["guarantee"]
    assert rule_dict(default)["method"] == "simultaneous"


def test_pairwise_fail_is_the_default_fail() -> None:
    # a FAIL is proven from the simultaneous intervals in both methods
    for ks in ([100, 200], [100, 160], [40, 60, 200]):
        cells = [fnr(k, 1000, 3) for k in ks]
        spec = spec_of(len(ks))
        a = evaluate_rule(rule("simultaneous", gap=0.05), spec, counts_of(cells))
        b = evaluate_rule(rule("pairwise", gap=0.05), spec, counts_of(cells))
        assert (a.verdict is Verdict.FAIL) == (b.verdict is Verdict.FAIL)


# -- run-level family-wise control -------------------------------------------------------


def test_familywise_bonferroni_shares_alpha_over_the_rules() -> None:
    rules = tuple(
        Rule(id=f"r{i}", rate=Rate.FALSE_NEGATIVE, attributes=("g",), max_group_gap=0.1)
        for i in range(4)
    )
    base = spec_of(2, rules)
    policy = parse_policy({"familywise": "bonferroni"})
    spec = apply_policy(base, policy)
    assert spec.familywise == "bonferroni" and spec.sources["familywise"] == policy.source
    cells = counts_of([fnr(100, 1000), fnr(120, 1000)])
    alone = evaluate_rule(rules[0], base, cells)
    shared = evaluate_rule(rules[0], spec, cells)
    assert alone.alpha == ALPHA and alone.family == 1
    assert shared.alpha == pytest.approx(ALPHA / 4) and shared.family == 4
    assert shared.alpha_per_group == pytest.approx(ALPHA / 8)
    assert shared.groups[0].interval.lo < alone.groups[0].interval.lo
    doc = rule_dict(shared)
    assert doc["familywise"] == {
        "method": "bonferroni",
        "tests": 4,
        "alpha_per_test": pytest.approx(ALPHA / 4),
    }
    assert "family-wise" in doc["guarantee"] and "0.05" in doc["guarantee"]
    assert rule_dict(alone)["familywise"] is None
    assert "no correction across them" in rule_dict(alone)["guarantee"]


def test_familywise_none_and_bad_values() -> None:
    assert parse_policy({"familywise": "none"}).familywise is None
    with pytest.raises(SpecError, match="familywise"):
        parse_policy({"familywise": "holm"})


# -- spec and policy keys -----------------------------------------------------------------


def _block(**rule_keys: object) -> dict[str, object]:
    return {
        "label": "y",
        "prediction": "p",
        "attributes": {"sex": ["f", "m"]},
        "rules": [{"id": "r", "rate": "false_negative", "attribute": "sex", **rule_keys}],
    }


def test_method_key_parses_and_defaults() -> None:
    assert parse_fairness(_block(max_group_gap=0.1)).rules[0].method == "simultaneous"
    assert (
        parse_fairness(_block(max_group_gap=0.1, method="pairwise")).rules[0].method == "pairwise"
    )
    assert (
        parse_fairness(_block(min_group_ratio=0.8, method="pairwise")).rules[0].method
        == "pairwise"
    )
    with pytest.raises(SpecError, match="not a method"):
        parse_fairness(_block(max_group_gap=0.1, method="pairs"))
    with pytest.raises(SpecError, match="no pairs to test"):
        parse_fairness(_block(worst_group={"max": 0.3}, method="pairwise"))


def test_policy_can_set_a_rules_method() -> None:
    spec = parse_fairness(_block(max_group_gap=0.1))
    done = apply_policy(spec, parse_policy({"rules": {"r": {"method": "pairwise"}}}))
    assert done.rules[0].method == "pairwise"
    worst = parse_fairness(_block(worst_group={"max": 0.3}))
    with pytest.raises(SpecError, match="no pairs to test"):
        apply_policy(worst, parse_policy({"rules": {"r": {"method": "pairwise"}}}))


def test_plan_criteria_keep_old_ids_and_name_the_method() -> None:
    from respai.plan.criteria import fairness_criteria

    old = fairness_criteria(parse_fairness(_block(max_group_gap=0.1)))
    assert "method" not in old["rules"]["r"] and "familywise" not in old
    new = fairness_criteria(parse_fairness(_block(max_group_gap=0.1, method="pairwise")))
    assert new["rules"]["r"]["method"] == "pairwise"
