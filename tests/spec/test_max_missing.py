"""``max_missing``: the fairness block's, a rule's own, a policy's, and where each came from."""

from __future__ import annotations

from typing import Any

import pytest

from respai.counts import Cell, Counts, Grouping
from respai.decision import DEFAULT_MAX_MISSING, over_max_missing, resolve_max_missing
from respai.decision.groups import group_rate
from respai.errors import SpecError
from respai.rules import evaluate_rule
from respai.spec import load_spec
from respai.spec.fairness import parse_fairness
from respai.spec.policy import apply_policy, parse_policy
from respai.types import Verdict


def block(**extra: Any) -> dict[str, Any]:
    rule = {"id": "r", "rate": "selection", "attribute": "sex", "max_group_gap": 0.5}
    rule |= extra.pop("rule", {})
    return {
        "label": "y",
        "prediction": "p",
        "attributes": {"sex": ["F", "M"]},
        "min_cell": 0,
        "rules": [rule],
        **extra,
    }


def test_the_default_is_two_percent_and_its_source_is_said() -> None:
    spec = parse_fairness(block())
    assert spec.max_missing == DEFAULT_MAX_MISSING == 0.02
    assert spec.sources["max_missing"] == "default"
    assert spec.rules[0].max_missing is None
    spec = parse_fairness(block(max_missing=0.05, rule={"max_missing": 0.1}))
    assert spec.max_missing == 0.05 and spec.sources["max_missing"] == "spec"
    assert spec.rules[0].max_missing == 0.1


@pytest.mark.parametrize("bad", [-0.1, 1.5, "lots"])
def test_a_bad_max_missing_is_a_spec_error(bad: object) -> None:
    with pytest.raises(SpecError, match="max_missing"):
        parse_fairness(block(max_missing=bad))
    with pytest.raises(SpecError, match="max_missing"):
        parse_fairness(block(rule={"max_missing": bad}))


def test_a_policy_sets_it_file_wide_and_per_rule() -> None:
    spec = parse_fairness(block())
    wide = apply_policy(spec, parse_policy({"max_missing": 0.04}))
    assert wide.max_missing == 0.04 and wide.rules[0].max_missing == 0.04
    assert wide.sources["max_missing"].startswith("policy")
    one = apply_policy(spec, parse_policy({"rules": {"r": {"max_missing": 0.3}}}))
    assert one.max_missing == 0.02 and one.rules[0].max_missing == 0.3
    assert one.rules[0].max_missing_source.startswith("policy")
    with pytest.raises(SpecError, match="max_missing"):
        parse_policy({"max_missing": 2})


def test_the_paired_block_reads_the_policy_then_the_fairness_block(tmp_path: Any) -> None:
    path = tmp_path / "spec.yaml"
    path.write_text(
        "fairness: {label: y, prediction: p, attributes: {sex: [F, M]}, max_missing: 0.07}\n",
        encoding="utf-8",
    )
    spec = load_spec(path)
    assert resolve_max_missing(spec) == (0.07, "spec")
    policy = parse_policy({"max_missing": 0.01})
    assert resolve_max_missing(spec, policy) == (0.01, policy.source)


def test_a_group_just_over_max_missing_keeps_its_rule_from_passing() -> None:
    # 1 of 50 undecided is 0.02, not above it; 2 of 50 is above
    assert over_max_missing([group_rate(("a",), 50, 20, 1, 0.025, 0)], 0.02) == []
    assert len(over_max_missing([group_rate(("a",), 50, 20, 2, 0.025, 0)], 0.02)) == 1

    def verdict(missing: int, max_missing: float) -> tuple[Verdict, str]:
        cells = {
            ("F",): Cell(tp=500, fn=500 - missing, missing_pos=missing),
            ("M",): Cell(tp=500, fn=500),
        }
        counts = Counts(
            total=2000,
            overall=sum(cells.values(), Cell()),
            overall_calibration=None,
            groupings={("sex",): Grouping(("sex",), cells, None, {})},
            calibration_bins=10,
            declared={"sex": ("F", "M")},
        )
        spec = parse_fairness(block(max_missing=max_missing))
        found = evaluate_rule(spec.rules[0], spec, counts)
        return found.verdict, found.reason_code

    assert verdict(20, 0.02) == (Verdict.PASS, "within_threshold")
    assert verdict(21, 0.02) == (Verdict.INSUFFICIENT_EVIDENCE, "too_many_missing")
    assert verdict(21, 0.05) == (Verdict.PASS, "within_threshold")
