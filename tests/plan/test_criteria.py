"""The criteria of a spec: no data read, a canonical id, and each change named."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
import rfc8785
from tests.plan.helpers import POLICY, SPEC, SPEC_REFORMATTED, write_spec

from respai.errors import SpecError
from respai.plan.criteria import changes, criteria, input_names, plan_id
from respai.spec import load_policy, load_spec


def _crit(folder: Path, text: str, policy: str | None = None) -> dict:
    spec = load_spec(write_spec(folder, text))
    pol = None
    if policy is not None:
        (folder / "policy.yaml").write_text(policy)
        pol = load_policy(folder / "policy.yaml")
    return criteria(spec, pol)


def test_the_id_is_the_sha256_of_the_canonical_json(tmp_path: Path) -> None:
    doc = _crit(tmp_path, SPEC)
    # an independent canonicaliser (the rfc8785 package) and hashlib
    assert plan_id(doc) == "sha256:" + hashlib.sha256(rfc8785.dumps(doc)).hexdigest()


def test_reformatting_the_spec_keeps_the_id(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    one, two = _crit(a, SPEC), _crit(b, SPEC_REFORMATTED)
    assert one == two
    assert plan_id(one) == plan_id(two)
    # the data's place is not a criterion, only information
    assert input_names(load_spec(b / "spec.yaml"), None)["files"] == {"cases": "cases.csv"}


def test_the_criteria_hold_what_the_run_is_judged_by(tmp_path: Path) -> None:
    doc = _crit(tmp_path, SPEC)
    rule = doc["fairness"]["rules"]["fnr-by-sex"]
    assert (rule["max_group_gap"], rule["threshold_source"]) == (0.1, "spec")
    assert doc["fairness"]["intersections"] == [["sex", "band"]]
    assert doc["fairness"]["attributes"] == {"sex": ["F", "M"], "band": ["a", "b"]}
    assert doc["evaluation"]["thresholds"]["impact_ratio"]["value"] == 0.8
    assert "auc" not in doc["evaluation"]["tests"]  # no score column: the run leaves it out
    assert doc["scope"]["flag_rule"] == "a rule that FAILs is a finding"
    assert "cases" not in doc["fairness"] and "cases.csv" not in str(doc)


@pytest.mark.parametrize(
    ("edit", "named"),
    [
        (
            ("max_group_gap: 0.1", "max_group_gap: 0.2"),
            "fairness.rules[fnr-by-sex].max_group_gap: planned 0.1, now 0.2",
        ),
        (("alpha: 0.05", "alpha: 0.01"), "fairness.alpha: planned 0.05, now 0.01"),
        (
            ("band: [a, b]", "band: [a, b, c]"),
            'fairness.attributes[band]: planned ["a", "b"], now ["a", "b", "c"]',
        ),
        (("    - [sex, band]\n", "    - [band, sex]\n"), "fairness.intersections: planned"),
        (
            ("flag_rule: a rule", "flag_rule: any rule"),
            "scope.flag_rule: planned 'a rule that FAILs is a finding', "
            "now 'any rule that FAILs is a finding'",
        ),
    ],
)
def test_each_change_is_named(tmp_path: Path, edit: tuple[str, str], named: str) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    assert edit[0] in SPEC
    found = changes(_crit(a, SPEC), _crit(b, SPEC.replace(*edit)))
    assert len(found) == 1
    assert found[0].sentence().startswith(named)


def test_a_policy_is_part_of_the_criteria(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    found = [c.sentence() for c in changes(_crit(a, SPEC), _crit(b, SPEC, POLICY))]
    assert "fairness.rules[fnr-by-sex].max_group_gap: planned 0.1, now 0.08" in found
    assert "fairness.rules[fnr-by-sex].threshold_source: planned 'spec', now 'policy'" in found
    assert any(s.startswith("policy: planned none") for s in found)


def test_the_policy_file_layout_does_not_change_the_id(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    other = "# reformatted\nrules: {fnr-by-sex: {max_group_gap: 8.0e-2}}\nname: strict\n"
    assert plan_id(_crit(a, SPEC, POLICY)) == plan_id(_crit(b, SPEC, other))


def test_a_policy_that_does_not_fit_is_refused(tmp_path: Path) -> None:
    with pytest.raises(SpecError, match="no rule with this id"):
        _crit(tmp_path, SPEC, "rules:\n  fnr-by-sx: {max_group_gap: 0.2}\n")


def test_an_unknown_scope_key_is_refused_with_did_you_mean(tmp_path: Path) -> None:
    with pytest.raises(
        SpecError, match=r"scope\.flag_rules: unknown key\. Did you mean 'flag_rule'"
    ):
        load_spec(write_spec(tmp_path, SPEC.replace("  flag_rule:", "  flag_rules:")))


def test_a_scope_value_must_be_text(tmp_path: Path) -> None:
    with pytest.raises(SpecError, match=r"scope\.window: must be text"):
        load_spec(
            write_spec(
                tmp_path, SPEC.replace("  window: 2026-01-01 to 2026-03-31", "  window: [1, 2]")
            )
        )


def test_an_ll144_only_spec_has_criteria_without_a_battery(tmp_path: Path) -> None:
    text = (
        "system: {name: hire, version: '1'}\n"
        "data: {cases: d.csv, source: historical, explanation: last year's applicants}\n"
        "ll144:\n  kind: selection\n  sex: sex\n  race: race\n  selected: sel\n"
    )
    doc = _crit(tmp_path, text)
    assert doc["fairness"] is None and doc["evaluation"] is None
    assert doc["ll144"]["kind"] == "selection"
    assert doc["ll144"]["selected"] == "sel"
