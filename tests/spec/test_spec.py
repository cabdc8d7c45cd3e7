"""Spec validation: seed 003's block loads as written; mistakes name the key."""

from __future__ import annotations

from pathlib import Path

import pytest

from respai.errors import SpecError
from respai.spec import Rate, load_spec, parse_fairness, parse_policy

SEED_BLOCK = """fairness:
  name: loan-screen
  cases: decided.csv
  label: label
  prediction: prediction
  probability: score
  attributes:
    sex: [female, male]
    age_band: [under_30, 30_to_60, over_60]
  intersections:
    - [sex, age_band]
  min_cell: 30
  rules:
    - {id: fnr-by-sex, rate: false_negative, attribute: sex, max_group_gap: 0.05}
    - {id: fnr-crossed, rate: false_negative, attribute: [sex, age_band], max_group_gap: 0.10}
"""


def test_seed_003_block_loads_as_written(tmp_path: Path) -> None:
    path = tmp_path / "fairness.yaml"
    path.write_text(SEED_BLOCK)
    spec = load_spec(path)
    f = spec.fairness
    assert f.cases == tmp_path.resolve() / "decided.csv"
    assert f.attributes == {
        "sex": ("female", "male"),
        "age_band": ("under_30", "30_to_60", "over_60"),
    }
    assert f.intersections == (("sex", "age_band"),)
    assert [r.rate for r in f.rules] == [Rate.FALSE_NEGATIVE, Rate.FALSE_NEGATIVE]
    assert f.rules[1].attributes == ("sex", "age_band")
    assert (f.min_cell, f.max_left_out, f.calibration_bins, f.alpha) == (30, 0.10, 10, 0.05)
    assert spec.sha256 is not None and len(spec.sha256) == 64


BASE = {"label": "y", "prediction": "p", "attributes": {"sex": ["f", "m"]}}


@pytest.mark.parametrize(
    ("block", "needle"),
    [
        ({**BASE, "lable": "y"}, "fairness.lable: unknown key. Did you mean 'label'?"),
        ({**BASE, "min_cell": "thirty"}, "fairness.min_cell: must be a whole number"),
        ({**BASE, "max_left_out": 1.5}, "fairness.max_left_out: must be 0 or more and at most 1"),
        (
            {
                **BASE,
                "rules": [
                    {"id": "r", "rate": "selection", "attribute": "gender", "max_group_gap": 0.1}
                ],
            },
            "'gender' is not a declared attribute.",
        ),
        (
            {
                **BASE,
                "rules": [
                    {
                        "id": "r",
                        "rate": "false_negatives",
                        "attribute": "sex",
                        "max_group_gap": 0.1,
                    }
                ],
            },
            "Did you mean 'false_negative'?",
        ),
        (
            {
                **BASE,
                "rules": [{"id": "r", "rate": "error", "attribute": "sex", "max_group_gap": 5}],
            },
            "fairness.rules[0].max_group_gap: must be 0 or more and at most 1, got 5",
        ),
        (
            {**BASE, "rules": [{"id": "r", "rate": "error", "attribute": "sex"}]},
            "needs exactly one of max_group_gap, min_group_ratio and worst_group",
        ),
        ({**BASE, "attributes": {"sex": [True, False]}}, "read by YAML as a boolean"),
        (
            {
                **BASE,
                "attributes": {"sex": ["f", "m"], "age": ["a"]},
                "rules": [
                    {"id": "r", "rate": "error", "attribute": ["sex", "age"], "max_group_gap": 0.1}
                ],
            },
            "the intersection [sex, age] is not declared",
        ),
        (
            {
                **BASE,
                "rules": [
                    {"id": "r", "rate": "error", "attribute": "sex", "max_group_gap": 0.1},
                    {"id": "r", "rate": "error", "attribute": "sex", "max_group_gap": 0.1},
                ],
            },
            "'r' is used by an earlier rule",
        ),
        (
            {
                **BASE,
                "rules": [
                    {
                        "id": "r",
                        "rate": "error",
                        "attribute": "sex",
                        "worst_group": {"minimum": 0.8},
                    }
                ],
            },
            "Did you mean 'min'?",
        ),
        ({**BASE, "alpha": 0.7}, "fairness.alpha: must be below 0.5"),
    ],
)
def test_spec_errors_name_the_key(block: dict[str, object], needle: str) -> None:
    with pytest.raises(SpecError) as info:
        parse_fairness(block, origin="s.yaml")
    assert needle in info.value.diagnostics()
    assert info.value.diagnostics().startswith("s.yaml: ")


def test_top_level_typo_is_named(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(SEED_BLOCK.replace("fairness:", "fairnes:", 1))
    with pytest.raises(SpecError, match="Did you mean 'fairness'"):
        load_spec(path)


def test_duplicate_yaml_key_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(SEED_BLOCK + "  min_cell: 40\n")
    with pytest.raises(SpecError, match="'min_cell' appears twice"):
        load_spec(path)


def test_policy_validation() -> None:
    policy = parse_policy({"alpha": 0.01, "rules": {"r1": {"max_group_gap": 0.02}}})
    assert policy.alpha == 0.01
    with pytest.raises(SpecError, match="unknown key"):
        parse_policy({"rules": {"r1": {"gap": 0.02}}})
