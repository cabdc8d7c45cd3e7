"""A monitoring stream's criteria: what decides its looks, and nothing else."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.plan.helpers import SPEC, SPEC_REFORMATTED, write_spec

from respai.monitor.criteria import monitor_criteria
from respai.plan.criteria import plan_id
from respai.spec import apply_policy, load_policy, load_spec


def _id(folder: Path, text: str, policy: str | None = None) -> str:
    folder.mkdir(exist_ok=True)
    spec = load_spec(write_spec(folder, text))
    pol = None
    if policy is not None:
        (folder / "policy.yaml").write_text(policy)
        pol = load_policy(folder / "policy.yaml")
    assert spec.fairness is not None
    return plan_id(monitor_criteria(spec.system, apply_policy(spec.fairness, pol)))


def test_the_monitoring_criteria_hold_the_rules_in_force_and_not_the_rest(
    tmp_path: Path,
) -> None:
    spec = load_spec(write_spec(tmp_path, SPEC))
    assert spec.fairness is not None
    doc = monitor_criteria(spec.system, spec.fairness)
    assert doc["kind"] == "monitor" and doc["system"] == {"name": "loan-screen", "version": "2.1"}
    rule = doc["fairness"]["rules"]["fnr-by-sex"]
    assert rule["max_group_gap"] == 0.1 and "threshold_source" not in rule
    assert {"name", "calibration_bins", "sources"}.isdisjoint(doc["fairness"])
    assert doc["fairness"]["alpha"] == 0.05 and doc["fairness"]["intersections"] == [
        ["sex", "band"]
    ]


@pytest.mark.parametrize(
    ("text", "policy", "same"),
    [
        (SPEC_REFORMATTED, None, True),  # another layout, order, quoting, comments
        (SPEC.replace("auditor: A. Auditor", "auditor: B. Other"), None, True),  # scope
        (SPEC, "rules:\n  fnr-by-sex: {max_group_gap: 0.1}\n", True),  # same value, policy
        (SPEC + "  calibration_bins: 5\n", None, True),  # monitoring draws no calibration
        (SPEC.replace("max_group_gap: 0.1", "max_group_gap: 0.2"), None, False),
        (SPEC, "rules:\n  fnr-by-sex: {max_group_gap: 0.08}\n", False),
        (SPEC.replace("alpha: 0.05", "alpha: 0.01"), None, False),
        (SPEC.replace('version: "2.1"', 'version: "2.2"'), None, False),
        (SPEC.replace("band: [a, b]", "band: [a, b, c]"), None, False),
        (SPEC.replace("sex: [F, M]", "sex: [M, F]"), None, True),  # the same groups
        (SPEC.replace("band: [a, b]", "band: [b, a]"), None, True),
        (SPEC.replace("- [sex, band]", "- [band, sex]"), None, False),  # names its groups
    ],
)
def test_only_a_changed_criterion_changes_the_id(
    tmp_path: Path, text: str, policy: str | None, same: bool
) -> None:
    assert (_id(tmp_path / "a", SPEC) == _id(tmp_path / "b", text, policy)) is same


_ORDERED = """\
system: {name: loan-screen}
fairness:
  label: y
  prediction: yhat
  attributes:
    sex: [F, M, X]
    band: [under_30, 30_to_50, over_50]
    region: [north, south]
  intersections:
    - [sex, band]
    - [sex, region]
  rules:
    - {id: gap, rate: selection, attribute: sex, max_group_gap: 0.1}
    - {id: worst, rate: selection, attribute: [sex, band], worst_group: {min: 0.2}}
    - {id: regions, rate: selection, attribute: [sex, region], max_group_gap: 0.2}
"""


@pytest.mark.parametrize(
    "reordered",
    [
        _ORDERED.replace("[F, M, X]", "[X, F, M]").replace(
            "[under_30, 30_to_50, over_50]", "[over_50, under_30, 30_to_50]"
        ),
        _ORDERED.replace(
            "    - [sex, band]\n    - [sex, region]\n", "    - [sex, region]\n    - [sex, band]\n"
        ),
        _ORDERED.replace("attribute: [sex, band]", "attribute: [band, sex]"),
        "\n".join([*_ORDERED.splitlines()[:-3], *reversed(_ORDERED.splitlines()[-3:])]) + "\n",
    ],
    ids=["declared-values", "intersections", "a-rule-s-attributes", "rules"],
)
def test_an_order_that_changes_no_count_or_verdict_keeps_the_id(
    tmp_path: Path, reordered: str
) -> None:
    assert reordered != _ORDERED
    assert _id(tmp_path / "a", _ORDERED) == _id(tmp_path / "b", reordered)


def test_the_declared_values_and_intersections_are_sorted_in_the_document(
    tmp_path: Path,
) -> None:
    spec = load_spec(write_spec(tmp_path, _ORDERED.replace("[F, M, X]", "[X, M, F]")))
    assert spec.fairness is not None
    block = monitor_criteria(spec.system, spec.fairness)["fairness"]
    assert block["attributes"]["sex"] == ["F", "M", "X"]
    assert block["attributes"]["band"] == ["30_to_50", "over_50", "under_30"]
    assert block["intersections"] == [["sex", "band"], ["sex", "region"]]
    assert spec.fairness.attributes["sex"] == ("X", "M", "F")  # the spec keeps its order


def test_the_order_within_an_intersection_still_counts(tmp_path: Path) -> None:
    swapped = _ORDERED.replace("- [sex, band]", "- [band, sex]")
    assert _id(tmp_path / "a", _ORDERED) != _id(tmp_path / "b", swapped)
