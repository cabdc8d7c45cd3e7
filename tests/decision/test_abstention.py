"""Abstaining never improves a verdict (issue 25, point 4).

Blanking a decision turns a decided case into a case without a decision. For every block
that decides from decisions (the group rules, the battery, the monitor's looks, the
paired test), blanking one more decision, from any state, must leave the verdict as it
is or make it worse in the project's order (``Verdict.severity``: PASS < MANUAL_REVIEW <
INSUFFICIENT_EVIDENCE < FAIL). By induction over single blanks, no pattern of blanked
decisions then improves a verdict, nor the run's exit code (the worst verdict's).

The states are enumerated exhaustively on small counts (every group's decided events,
decided non-events and missing decisions up to a total), with a wide alpha as well as
0.05 (alpha 0.9: 55% intervals per group of two) so that small counts reach FAIL and
PASS; larger counts are drawn by hypothesis,
with several decisions blanked at once.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from respai.battery import DEFAULT_THRESHOLDS, Decision, run_battery
from respai.counts import Cell, Counts, Grouping
from respai.metrics import Rate
from respai.monitor.looks import BatchCounts, decide_looks
from respai.paired.audit import decide_paired
from respai.paired.stats import paired_difference_interval
from respai.rules import evaluate_rule
from respai.spec.parsed import FairnessSpec, Rule
from respai.types import Verdict, worst

#: One group's population: (decided events, decided non-events, cases without a decision).
State = tuple[int, int, int]


def states(total: int) -> list[State]:
    """Every (events, non-events, missing) with at most ``total`` cases."""
    return [
        (e, ne, m)
        for e in range(total + 1)
        for ne in range(total + 1 - e)
        for m in range(total + 1 - e - ne)
    ]


def blanked(groups: Sequence[State]) -> Iterator[tuple[State, ...]]:
    """Every state one more blanked decision away: an event or a non-event of one group."""
    for i, (e, ne, m) in enumerate(groups):
        if e:
            yield (*groups[:i], (e - 1, ne, m + 1), *groups[i + 1 :])
        if ne:
            yield (*groups[:i], (e, ne - 1, m + 1), *groups[i + 1 :])


def counts_of(groups: Sequence[State]) -> Counts:
    """Counts of groups ``a``, ``b``, ... whose cases are all labelled 1.

    The selection rate's and the true-positive rate's events are the predicted 1s (``tp``),
    the non-events the predicted 0s (``fn``), the cases without a decision ``missing_pos``.
    """
    names = "abcdefgh"[: len(groups)]
    cells = {
        (n,): Cell(tp=e, fn=ne, missing_pos=m)
        for n, (e, ne, m) in zip(names, groups, strict=False)
    }
    overall = sum(cells.values(), Cell())
    return Counts(
        total=overall.n,
        overall=overall,
        overall_calibration=None,
        groupings={("g",): Grouping(("g",), cells, None, {})},
        calibration_bins=10,
        declared={"g": tuple(names)},
        null_cells={"label": 0, "prediction": overall.missing, "g": 0},
    )


def spec_of(n_groups: int, *, alpha: float, min_cell: int, max_missing: float) -> FairnessSpec:
    return FairnessSpec(
        label="y",
        prediction="p",
        attributes={"g": tuple("abcdefgh"[:n_groups])},
        alpha=alpha,
        min_cell=min_cell,
        max_missing=max_missing,
    )


RULES = {
    "gap": Rule(id="gap", rate=Rate.SELECTION, attributes=("g",), max_group_gap=0.2),
    "ratio": Rule(id="ratio", rate=Rate.SELECTION, attributes=("g",), min_group_ratio=0.8),
    "ratio_ref": Rule(
        id="ratio_ref",
        rate=Rate.SELECTION,
        attributes=("g",),
        min_group_ratio=0.8,
        reference=("a",),
    ),
    "gap_ref": Rule(
        id="gap_ref", rate=Rate.SELECTION, attributes=("g",), max_group_gap=0.2, reference=("a",)
    ),
    "worst_min": Rule(id="worst_min", rate=Rate.SELECTION, attributes=("g",), worst_min=0.4),
    "worst_max": Rule(id="worst_max", rate=Rate.SELECTION, attributes=("g",), worst_max=0.4),
}


def never_improves(
    verdict_of: Callable[[tuple[State, ...]], Verdict], groups: tuple[State, ...]
) -> None:
    """Every single blank from ``groups`` keeps or worsens the verdict."""
    before = verdict_of(groups)
    for after_groups in blanked(groups):
        after = verdict_of(after_groups)
        assert after.severity >= before.severity, (
            f"blanking one decision improved {before.value} to {after.value}: "
            f"{groups} -> {after_groups}"
        )


def rule_verdict(
    rule: Rule, *, alpha: float, min_cell: int, max_missing: float
) -> Callable[[tuple[State, ...]], Verdict]:
    def verdict_of(groups: tuple[State, ...]) -> Verdict:
        spec = spec_of(len(groups), alpha=alpha, min_cell=min_cell, max_missing=max_missing)
        return evaluate_rule(rule, spec, counts_of(groups)).verdict

    return verdict_of


# -- the group rules -----------------------------------------------------------------------


@pytest.mark.parametrize("kind", sorted(RULES))
@pytest.mark.parametrize(("alpha", "min_cell", "max_missing"), [(0.9, 2, 0.02), (0.9, 0, 1.0)])
def test_a_rule_never_improves_by_one_more_blank(
    kind: str, alpha: float, min_cell: int, max_missing: float
) -> None:
    verdict_of = rule_verdict(RULES[kind], alpha=alpha, min_cell=min_cell, max_missing=max_missing)
    small = states(4)
    for groups in itertools.product(small, repeat=2):
        never_improves(verdict_of, groups)


@pytest.mark.slow
@pytest.mark.parametrize("kind", sorted(RULES))
@pytest.mark.parametrize(
    ("alpha", "min_cell", "max_missing"),
    [(0.9, 0, 1.0), (0.9, 3, 0.02), (0.5, 2, 0.1), (0.05, 4, 0.02)],
)
def test_a_rule_never_improves_by_one_more_blank_exhaustive(
    kind: str, alpha: float, min_cell: int, max_missing: float
) -> None:
    verdict_of = rule_verdict(RULES[kind], alpha=alpha, min_cell=min_cell, max_missing=max_missing)
    for groups in itertools.product(states(5), repeat=2):
        never_improves(verdict_of, groups)
    for groups in itertools.product(states(2), repeat=3):
        never_improves(verdict_of, groups)


def test_the_issue_cases_stay_failed() -> None:
    """The statistician's three escapes: worst_group, a ratio, and min_cell."""
    spec = spec_of(2, alpha=0.05, min_cell=30, max_missing=0.02)
    # worst_group max 0.4: group a's 45 of 60 selections prove it above 0.4
    failed = ((45, 15, 0), (20, 40, 0))
    rule = RULES["worst_max"]
    assert evaluate_rule(rule, spec, counts_of(failed)).verdict is Verdict.FAIL
    # blank 20 of a's selections: its interval widens to [lo(25/60), hi(45/60)] ...
    blank = ((25, 15, 20), (20, 40, 0))
    got = evaluate_rule(rule, spec, counts_of(blank))
    # ... but counted against the rule they are selections, so the FAIL stands
    assert got.verdict is Verdict.FAIL and "counted against the rule" in got.reason
    # a ratio rule: 10/60 against 40/60; blank b's selections until b is under min_cell
    rule = RULES["ratio"]
    assert evaluate_rule(rule, spec, counts_of(((10, 50, 0), (40, 20, 0)))).verdict is (
        Verdict.FAIL
    )
    got = evaluate_rule(rule, spec, counts_of(((10, 50, 0), (5, 20, 35))))
    assert got.verdict is Verdict.FAIL


# -- the battery -----------------------------------------------------------------------------

SPREADS = ["accuracy", "impact_ratio", "selection_rate_diff", "equal_opportunity_diff"]


def battery_verdict(
    decision: Decision, *, alpha: float, min_cell: int, max_missing: float
) -> Callable[[tuple[State, ...]], Verdict]:
    thresholds = {k: replace(v, decision=decision) for k, v in DEFAULT_THRESHOLDS.items()}

    def verdict_of(groups: tuple[State, ...]) -> Verdict:
        found = run_battery(counts_of(groups), SPREADS, thresholds, alpha, min_cell, max_missing)
        return worst(r.verdict for r in found)

    return verdict_of


def each_test_verdict(
    decision: Decision, *, alpha: float, min_cell: int, max_missing: float
) -> list[Callable[[tuple[State, ...]], Verdict]]:
    thresholds = {k: replace(v, decision=decision) for k, v in DEFAULT_THRESHOLDS.items()}

    def one(test: str) -> Callable[[tuple[State, ...]], Verdict]:
        def verdict_of(groups: tuple[State, ...]) -> Verdict:
            (r,) = run_battery(counts_of(groups), [test], thresholds, alpha, min_cell, max_missing)
            return r.verdict

        return verdict_of

    return [one(t) for t in SPREADS]


@pytest.mark.parametrize("decision", list(Decision))
def test_a_battery_test_never_improves_by_one_more_blank(decision: Decision) -> None:
    checks = each_test_verdict(decision, alpha=0.9, min_cell=2, max_missing=0.02)
    for groups in itertools.product(states(3), repeat=2):
        for verdict_of in checks:
            never_improves(verdict_of, groups)


@pytest.mark.slow
@pytest.mark.parametrize("decision", list(Decision))
@pytest.mark.parametrize(("alpha", "min_cell", "max_missing"), [(0.9, 3, 1.0), (0.5, 2, 0.02)])
def test_a_battery_test_never_improves_by_one_more_blank_exhaustive(
    decision: Decision, alpha: float, min_cell: int, max_missing: float
) -> None:
    checks = each_test_verdict(decision, alpha=alpha, min_cell=min_cell, max_missing=max_missing)
    for groups in itertools.product(states(5), repeat=2):
        for verdict_of in checks:
            never_improves(verdict_of, groups)


def test_blanking_a_group_under_min_cell_does_not_launder_an_estimate_fail() -> None:
    """The statistician's equal_opportunity_diff route: a group pushed under min_cell."""
    thresholds = {k: replace(v, decision=Decision.ESTIMATE) for k, v in DEFAULT_THRESHOLDS.items()}
    failed = ((30, 10, 0), (10, 30, 0))  # TPR 0.75 against 0.25
    (r,) = run_battery(counts_of(failed), ["equal_opportunity_diff"], thresholds, 0.05, 30)
    assert r.verdict is Verdict.FAIL
    # blank b's wrong decisions until b has 15 decided cases, under min_cell 30
    (r,) = run_battery(
        counts_of(((30, 10, 0), (10, 5, 25))), ["equal_opportunity_diff"], thresholds, 0.05, 30
    )
    assert r.verdict is Verdict.FAIL
    assert r.reason.startswith("screening verdict on the estimate, no error guarantee")


def test_blanking_every_decision_of_a_group_still_fails() -> None:
    for decision in Decision:
        thresholds = {k: replace(v, decision=decision) for k, v in DEFAULT_THRESHOLDS.items()}
        (r,) = run_battery(
            counts_of(((80, 20, 0), (0, 0, 100))), ["selection_rate_diff"], thresholds, 0.05, 30
        )
        assert r.verdict is Verdict.FAIL and r.value is None, decision
        assert r.undefined is not None and r.undefined.code == "empty_group"


# -- the monitor's looks ---------------------------------------------------------------------


def look_verdict(rule: Rule, *, alpha: float) -> Callable[[tuple[State, ...]], Verdict]:
    def verdict_of(groups: tuple[State, ...]) -> Verdict:
        spec = replace(
            spec_of(len(groups), alpha=alpha, min_cell=2, max_missing=0.02), rules=(rule,)
        )
        batch = BatchCounts(
            look=1,
            batch={},
            groups={
                rule.id: {
                    n: (e + ne + m, e, m) for n, (e, ne, m) in zip("ab", groups, strict=False)
                }
            },
            left_out={rule.id: 0},
            total=sum(sum(g) for g in groups),
        )
        (look,) = decide_looks(spec, [batch], 1)
        return look.verdict

    return verdict_of


@pytest.mark.parametrize("kind", ["gap", "worst_min", "worst_max"])
def test_a_look_never_improves_by_one_more_blank(kind: str) -> None:
    verdict_of = look_verdict(RULES[kind], alpha=0.9)
    for groups in itertools.product(states(3), repeat=2):
        never_improves(verdict_of, groups)


# -- the paired test -------------------------------------------------------------------------

#: (both, b, c, neither, pairs without an outcome)
PairState = tuple[int, int, int, int, int]


def paired_verdict(state: PairState, *, confidence: float, limit: float) -> Verdict:
    both, b, c, neither, u = state
    n = both + b + c + neither
    interval = paired_difference_interval(b, c, n, confidence)
    verdict, _ = decide_paired(
        interval, limit, counts=(b, c, n), missing=u, confidence=confidence, max_missing=0.02
    )
    return verdict


@pytest.mark.parametrize(("confidence", "limit"), [(0.95, 0.1), (0.5, 0.2), (0.975, 0.3)])
def test_a_paired_comparison_never_improves_by_one_more_blank(
    confidence: float, limit: float
) -> None:
    """One outcome blanked drops its pair from the complete ones (exhaustive, n <= 10)."""
    total = 10
    for state in itertools.product(range(total + 1), repeat=5):
        if sum(state) > total:
            continue
        before = paired_verdict(state, confidence=confidence, limit=limit)
        for i in range(4):
            if state[i]:
                after_state = tuple(
                    x - 1 if j == i else x + 1 if j == 4 else x for j, x in enumerate(state)
                )
                after = paired_verdict(after_state, confidence=confidence, limit=limit)  # type: ignore[arg-type]
                assert after.severity >= before.severity, (state, after_state, before, after)


# -- larger counts, several blanks at once ------------------------------------------------


@st.composite
def blanked_pair(draw: st.DrawFn) -> tuple[tuple[State, ...], tuple[State, ...]]:
    """Groups of up to 400 decided cases, and the same groups with some decisions blanked."""
    groups = []
    after = []
    for _ in range(draw(st.integers(2, 3))):
        n = draw(st.integers(1, 400))
        e = draw(st.integers(0, n))
        x = draw(st.integers(0, min(e, 40)))
        y = draw(st.integers(0, min(n - e, 40)))
        groups.append((e, n - e, 0))
        after.append((e - x, n - e - y, x + y))
    return tuple(groups), tuple(after)


@settings(max_examples=150, deadline=None)
@given(
    pair=blanked_pair(),
    kind=st.sampled_from(sorted(RULES)),
    decision=st.sampled_from(list(Decision)),
    min_cell=st.sampled_from([0, 30]),
)
def test_blanking_many_decisions_never_improves_a_rule_or_the_battery(
    pair: tuple[tuple[State, ...], tuple[State, ...]], kind: str, decision: Decision, min_cell: int
) -> None:
    before, after = pair
    rule = rule_verdict(RULES[kind], alpha=0.05, min_cell=min_cell, max_missing=0.02)
    assert rule(after).severity >= rule(before).severity
    battery = battery_verdict(decision, alpha=0.05, min_cell=min_cell, max_missing=0.02)
    assert battery(after).severity >= battery(before).severity
