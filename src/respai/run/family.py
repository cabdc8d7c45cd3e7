"""The run's family under ``familywise: bonferroni``: every verdict-deciding test.

A policy's ``familywise: bonferroni`` asks that the chance of *any* wrong PASS or wrong
FAIL among a run's tests be at most the run's ``alpha``. Bonferroni's inequality gives it
under any dependence between the tests: each of the ``m`` members is decided at
``alpha / m``, so the union of their errors has probability at most ``m × alpha / m``.

The family of a ``respai evaluate`` run is fixed by the spec and the policy before any
data is read (the plan), so ``m`` never depends on the data:

* every group rule of ``fairness.rules`` (one member per rule; an ``equalized_odds`` rule
  splits its own share in two);
* every battery test decided by the ``interval`` rule: one member per test, and one per
  attribute and declared intersection for a per-grouping test (the spread tests); the
  perturbation-stability test only when a model is declared;
* every paired comparison of ``paired:`` (one per variant against the reference);
* every rule of ``regression:`` (one member per rule; a rule shares its own level among
  its groups).
* every rule of ``ranking:`` (one member per rule, its alpha shared by its groups).

Outside the family, each named with why in the record: a battery test decided by the
``estimate`` rule (a screening verdict has no error level to divide), perturbation
stability without a model (always MANUAL_REVIEW, it decides nothing), and the LL144
tables (their findings are MANUAL_REVIEW, judged rather than gated; their Fisher tests
keep Holm's control over the audit's own categories).

``respai fairness`` decides only the group rules, so its family is the rules
(:attr:`respai.spec.FairnessSpec.family`).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from respai import exact
from respai.spec import Policy, Spec

__all__ = ["FAMILY_CONDITIONS", "Family", "run_family"]

#: When the family-wise statement holds, as the record and the docs state it.
FAMILY_CONDITIONS = (
    "each member's interval has at least its stated coverage (Clopper-Pearson ends are "
    "exact and conservative; the Wilson, AUC and paired intervals and the regression "
    "block's t-intervals are approximate, so the bound is as good as their coverage at "
    "alpha / m)",
    "the cases are independent draws from the population the verdicts speak about",
    "the family is fixed before the data is read (it is: the spec and the policy fix it)",
    "no assumption on the dependence between the tests (Bonferroni holds under any)",
)


@dataclass(frozen=True, slots=True)
class Family:
    """The members of a run's family, the level each is decided at, and who is outside.

    ``members`` are the test keys of the record (``rule:<id>``, ``accuracy``,
    ``impact_ratio:sex``, ``paired_difference:<variant>``); ``outside`` pairs a test key
    with why it is not a member.
    """

    method: str
    alpha: float
    members: tuple[str, ...]
    rules: int
    outside: tuple[tuple[str, str], ...] = ()

    @property
    def m(self) -> int:
        """How many tests share ``alpha``."""
        return len(self.members)

    @property
    def level(self) -> Fraction:
        """Each member's share of alpha, exactly: ``alpha / m`` (``alpha`` when ``m`` <= 1).

        Examples
        --------
        >>> Family("bonferroni", 0.05, ("a", "b", "c", "d"), 0).level
        Fraction(1, 80)
        """
        return exact.decimal(self.alpha) / max(1, self.m)

    @property
    def guarantee(self) -> str:
        """The family-wise statement, with its level, in one sentence."""
        a, share = f"{self.alpha:.4g}", f"{float(self.level):.4g}"
        return (
            f"family-wise (Bonferroni): each of the run's {self.m} verdict-deciding tests is "
            f"decided at alpha / m = {share}, so P(any wrong FAIL or wrong PASS among the "
            f"{self.m} tests) <= {a}, and in particular P(any wrong FAIL among them) <= {a}"
        )

    def to_dict(self) -> dict[str, Any]:
        """The record's ``run_start.settings.familywise``."""
        return {
            "method": self.method,
            "scope": (
                "every verdict-deciding test of the run: the group rules, the battery "
                "tests decided on their interval, the paired comparisons, the regression and "
                "ranking rules"
            ),
            "tests": self.m,
            "rules": self.rules,
            "alpha": self.alpha,
            "alpha_per_test": float(self.level),
            "members": list(self.members),
            "outside": [{"test": k, "why": why} for k, why in self.outside],
            "guarantee": self.guarantee,
            "conditions": list(FAMILY_CONDITIONS),
        }


_ESTIMATE = "decided on the estimate (a screening verdict): it has no error level to divide"
_NO_MODEL = "no model is declared: the test reads MANUAL_REVIEW and decides nothing"
_LL144 = (
    "the LL144 findings read MANUAL_REVIEW (judged, not gated); their Fisher tests keep "
    "Holm's control over the audit's own categories"
)


def run_family(spec: Spec, policy: Policy | None) -> Family | None:
    """The family of a ``respai evaluate`` run of ``spec`` under ``policy``, or ``None``.

    ``None`` unless the policy sets ``familywise: bonferroni``. Reads no data: the members
    follow from the declared rules, the battery's plan and thresholds, the declared model
    and the paired block's variants.

    Examples
    --------
    >>> from respai.spec import parse_policy, parse_spec
    >>> s = parse_spec({"fairness": {"cases": "c.csv", "label": "y", "prediction": "p",
    ...     "attributes": {"sex": ["f", "m"]}}})
    >>> run_family(s, parse_policy({"familywise": "bonferroni"})).members
    ('accuracy', 'impact_ratio:sex', 'selection_rate_diff:sex', 'equal_opportunity_diff:sex', 'missing_decisions', 'completeness', 'class_balance')
    """  # noqa: E501
    from respai.battery import REGISTRY, Decision, TestId, battery_plan, thresholds_for
    from respai.decision import resolve_alpha
    from respai.paired.spec import declared_paired
    from respai.ranking.spec import declared_ranking
    from respai.spec import apply_policy

    if policy is None or policy.familywise != "bonferroni":
        return None
    members: list[str] = []
    outside: list[tuple[str, str]] = []
    block = spec.fairness_block
    fairness = None if block is None else apply_policy(block, policy)
    if fairness is not None:
        members += [f"rule:{r.id}" for r in fairness.rules]
        _, tests = battery_plan(spec)
        thresholds = thresholds_for(policy)
        ev = spec.evaluation
        for test_id in tests:
            keys = (
                [f"{test_id}:{'×'.join(g)}" for g in fairness.groupings]
                if REGISTRY[test_id].per_grouping
                else [test_id]
            )
            if thresholds[test_id].decision is Decision.ESTIMATE:
                outside += [(k, _ESTIMATE) for k in keys]
            elif test_id == TestId.PERTURBATION_STABILITY and (ev is None or ev.model is None):
                outside += [(k, _NO_MODEL) for k in keys]
            else:
                members += keys
    paired = declared_paired(spec)
    if paired is not None:
        members += [f"paired_difference:{v}" for v in paired.variants[1:]]
    regression = spec.blocks.get("regression")
    if regression is not None:
        members += [f"regression:{r.id}" for r in regression.rules]
    ranking = declared_ranking(spec)
    if ranking is not None:
        members += [f"ranking:{r.id}" for r in ranking.rules]
    if spec.blocks.get("ll144") is not None:
        outside.append(("ll144_impact_ratio", _LL144))
    return Family(
        method="bonferroni",
        alpha=resolve_alpha(spec, policy)[0],  # the alpha every block reads
        members=tuple(members),
        rules=0 if fairness is None else len(fairness.rules),
        outside=tuple(outside),
    )
