"""The regression: block's keys: clear errors with did-you-mean, defaults, a block alone."""

from __future__ import annotations

from typing import Any

import pytest

from respai.errors import SpecError
from respai.regression.spec import RegressionSpec, declared_regression
from respai.spec import parse_spec

FAIRNESS = {
    "cases": "c.csv",
    "label": "y",
    "prediction": "d",
    "attributes": {"sex": ["f", "m"]},
    "min_cell": 12,
}
RULE = {"id": "r", "metric": "mean_error", "attribute": "sex", "max_group_gap": 1.5}


def _spec(regression: dict[str, Any], *, fairness: bool = True) -> RegressionSpec:
    doc: dict[str, Any] = {"regression": regression}
    if fairness:
        doc["fairness"] = FAIRNESS
    else:
        doc["data"] = {"cases": "c.csv"}
    found = declared_regression(parse_spec(doc))
    assert found is not None
    return found


def _base(**extra: Any) -> dict[str, Any]:
    return {"target": "t", "prediction": "p", "rules": [RULE], **extra}


def test_defaults_follow_the_fairness_block() -> None:
    """Without its own attributes and min_cell, the block reads the fairness block's."""
    b = _spec(_base())
    assert b.attributes == {"sex": ("f", "m")} and b.attributes_from == "fairness"
    assert (b.min_cell, b.decimals, b.max_missing, b.bounded) == (12, 6, None, False)


def test_a_regression_only_spec_is_valid() -> None:
    """A spec with only data: and regression: parses; min_cell defaults to 30."""
    b = _spec(_base(attributes={"sex": ["f", "m"]}), fairness=False)
    assert b.attributes_from == "regression" and b.min_cell == 30


@pytest.mark.parametrize(
    ("regression", "fairness", "message"),
    [
        (_base(targt="x"), True, "Did you mean 'target'"),
        (_base(rules=[{**RULE, "metric": "mean_eror"}]), True, "Did you mean 'mean_error'"),
        (_base(rules=[{**RULE, "attribute": "sx"}]), True, "Did you mean 'sex'"),
        (_base(), False, "regression.attributes: is required"),
        (_base(rules=[{**RULE, "worst_group": {"max": 1}}]), True, "exactly one of"),
        (_base(rules=[RULE, RULE]), True, "used by another rule"),
        (_base(bounds={"target": [0, 1]}), True, "needs both"),
        (_base(bounds={"target": [1, 0], "prediction": [0, 1]}), True, "must be below"),
        (
            _base(bounds={"target": [0, 1e-9], "prediction": [0, 1]}),
            True,
            "more decimals than regression.decimals",
        ),
        (_base(decimals=13), True, "between 0 and 12"),
        (_base(rules=[]), True, "must be a list of rules"),
        (_base(prediction="t"), True, "t"),
        (_base(attributes={"sex": ["f", "f"]}), True, "regression.attributes.sex"),
    ],
)
def test_bad_blocks_are_refused_clearly(
    regression: dict[str, Any], fairness: bool, message: str
) -> None:
    """Each mistake is named by its key, with a did-you-mean where one helps."""
    with pytest.raises(SpecError, match=message.replace("(", r"\(").replace("'", "'")):
        _spec(regression, fairness=fairness)


def test_intersections_and_limits_parse() -> None:
    """A list of attributes is an intersection; worst_group takes min or max."""
    b = _spec(
        _base(
            attributes={"sex": ["f", "m"], "age": ["young", "old"]},
            rules=[
                {
                    "id": "x",
                    "metric": "mean_prediction",
                    "attribute": ["sex", "age"],
                    "worst_group": {"min": 2},
                },
                {
                    "id": "y",
                    "metric": "mean_absolute_error",
                    "attribute": "age",
                    "worst_group": {"max": 3},
                },
            ],
        )
    )
    assert b.rules[0].grouping == ("sex", "age") and b.rules[0].worst_min == 2
    assert b.rules[1].threshold() == {
        "comparison": "every group <=",
        "value": 3.0,
        "source": "spec",
    }
    assert list(b.used_attributes()) == ["sex", "age"]
