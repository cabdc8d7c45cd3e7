"""The ll144: block and the data: keys: DESIGN's example loads, mistakes name the key."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from respai.errors import SpecError
from respai.ll144.spec import declared_ll144, parse_ll144
from respai.spec import load_spec, parse_spec

DESIGN_EXAMPLE = """\
system: {name: resume-screener, version: "4.2", first_distributed: 2025-03-01}
data:
  cases: decisions.csv          # or fairness.cases; paths are relative to the spec file
  id: applicant_id
  demographics: self_id.csv     # optional second file, joined on join_on
  join_on: applicant_id
  source: historical
  explanation: "Advance decisions, Jan-Dec 2025, joined to voluntary self-ID."
ll144:
  kind: selection               # or scoring, with score: <column>
  selected: advanced
  sex: sex
  race: race_ethnicity
  min_share: 0.02
  exclusion_justification: "..."
  audit_date: 2026-11-30
"""

BASE = {"kind": "selection", "selected": "advanced", "sex": "sex", "race": "race"}
DATA = {"cases": "d.csv", "source": "historical", "explanation": "Real use, 2025."}


def test_the_design_example_loads(tmp_path: Path) -> None:
    path = tmp_path / "spec.yaml"
    path.write_text(DESIGN_EXAMPLE)
    spec = load_spec(path)
    assert spec.fairness_block is None and declared_ll144(spec) is not None
    ll = declared_ll144(spec)
    assert (ll.kind, ll.selected, ll.sex, ll.race) == (
        "selection",
        "advanced",
        "sex",
        "race_ethnicity",
    )
    assert (ll.min_share, ll.margin, ll.audit_date) == (0.02, 0.05, "2026-11-30")
    assert ll.distribution_date == "2025-03-01"  # from system.first_distributed
    data = spec.data
    assert data.cases == tmp_path.resolve() / "decisions.csv"
    assert data.demographics == tmp_path.resolve() / "self_id.csv"
    assert (data.join_on, data.id, data.source) == ("applicant_id", "applicant_id", "historical")
    with pytest.raises(SpecError, match="fairness: is required by this command"):
        _ = spec.fairness


def test_fairness_command_refuses_an_ll144_only_spec(
    tmp_path: Path, cli_run: Callable[..., Any]
) -> None:
    path = tmp_path / "spec.yaml"
    path.write_text(DESIGN_EXAMPLE)
    run = cli_run("fairness", str(path), "--json")
    assert run.code == 2 and run.out == ""
    assert "fairness: is required by this command" in run.err and "respai ll144" in run.err


def test_a_spec_with_both_blocks_keeps_the_fairness_block() -> None:
    doc = {
        "fairness": {
            "cases": "c.csv",
            "label": "y",
            "prediction": "p",
            "attributes": {"sex": ["Female", "Male"]},
        },
        "data": {"source": "historical", "explanation": "x", "id": "applicant_id"},
        "ll144": {**BASE, "selected": "p"},
    }
    spec = parse_spec(doc, base_dir=Path("/data"))
    assert spec.fairness.label == "y"
    assert spec.data.cases == Path("/data/c.csv")  # the ll144 audit reads fairness.cases
    assert declared_ll144(spec) is not None


@pytest.mark.parametrize(
    ("block", "needle"),
    [
        (
            {**BASE, "kind": "selections"},
            "ll144.kind: 'selections' is not a kind of tool. Did you mean 'selection'?",
        ),
        ({"kind": "selection", "sex": "s", "race": "r"}, "ll144.selected: is required"),
        ({"kind": "scoring", "sex": "s", "race": "r"}, "ll144.score: is required"),
        ({**BASE, "cutoffs": [0.1]}, "ll144.cutoffs: applies to scoring tools"),
        ({**BASE, "kind": "scoring", "score": "s"}, "ll144.selected: applies to selection"),
        (
            {"kind": "scoring", "score": "s", "sex": "s2", "race": "r", "cutoffs": [1.0]},
            "ll144.cutoffs[0]: must be a share strictly between 0 and 1",
        ),
        (
            {"kind": "scoring", "score": "s", "sex": "s2", "race": "r", "cutoffs": [0.1, 0.1]},
            "ll144.cutoffs[1]: 0.1 is listed twice",
        ),
        ({**BASE, "min_share": 0.5}, "ll144.min_share: must be below 0.5"),
        ({**BASE, "min_share": -0.1}, "ll144.min_share: must be 0 or more"),
        ({**BASE, "margin": 0.3}, "ll144.margin: must be at most 0.2"),
        ({**BASE, "race": "sex"}, "ll144.race: names the column 'sex', which is already the sex"),
        ({**BASE, "stages": ["a", "a"]}, "ll144.stages[1]: 'a' is listed twice"),
        ({**BASE, "stages": ["sex"]}, "ll144.stages[0]: 'sex' is already the sex column"),
        ({**BASE, "audit_date": "30/11/2026"}, "ll144.audit_date: must be a date such as"),
        ({**BASE, "audit_date": "2026-02-30"}, "'2026-02-30' is not a calendar date"),
        (
            {**BASE, "categories": {"sex": {"M": "Man"}}},
            "ll144.categories.sex.M: 'Man' is not an EEO-1 sex category",
        ),
        (
            {**BASE, "categories": {"gender": {"M": "Male"}}},
            "ll144.categories.gender: unknown key",
        ),
        ({**BASE, "categories": {"sex": {True: "Male"}}}, "read by YAML as a boolean"),
        (
            {**BASE, "categories": {"sex": {"M": "Male", " m": "Female"}}},
            "the same spelling up to case",
        ),
        (
            {**BASE, "categories": {"sex": {"Unknown": "Male"}}, "unknown_values": ["unknown"]},
            "is also listed in ll144.unknown_values",
        ),
        (
            {**BASE, "auditor": {"nme": "x"}},
            "ll144.auditor.nme: unknown key. Did you mean 'name'?",
        ),
        ({**BASE, "cutof": [0.1]}, "ll144.cutof: unknown key. Did you mean 'cutoffs'?"),
    ],
)
def test_block_errors_name_the_key(block: dict[str, Any], needle: str) -> None:
    with pytest.raises(SpecError) as info:
        parse_ll144(block, origin="s.yaml")
    text = info.value.diagnostics()
    assert needle in text
    assert text.startswith("s.yaml: ")


def test_the_block_accepts_iso_strings_and_yaml_dates() -> None:
    import datetime as dt

    block = parse_ll144(
        {
            **BASE,
            "audit_date": dt.date(2026, 11, 30),
            "use_date": "2027-01-15",
            "distribution_date": "2025-03-01",
            "categories": {
                "race": {
                    "Latinx": "Hispanic or Latino",
                    "AIAN": "Native American or Alaska Native",
                }
            },
        }
    )
    assert (block.audit_date, block.use_date, block.distribution_date) == (
        "2026-11-30",
        "2027-01-15",
        "2025-03-01",
    )
    assert block.categories["race"] == {
        "Latinx": "Hispanic or Latino",
        "AIAN": "American Indian or Alaska Native",
    }


@pytest.mark.parametrize(
    ("data", "needle"),
    [
        ({**DATA, "source": "test", "explanation": None}, "data.explanation: is required when"),
        ({**DATA, "source": "synthetic"}, "'synthetic' is not a data source kind"),
        ({**DATA, "join_on": "id"}, "data.join_on: is set but data.demographics is not"),
        ({**DATA, "demographics": "self.csv"}, "data.join_on: is required with data.demographics"),
        ({"cases": "d.csv", "explanation": "x"}, "data.source: is required with an ll144: block"),
        ({**DATA, "id": "sex"}, "data.id: names the column 'sex'"),
        ({**DATA, "demgraphics": "x.csv"}, "Did you mean 'demographics'?"),
    ],
)
def test_data_errors_name_the_key(data: dict[str, Any], needle: str) -> None:
    with pytest.raises(SpecError) as info:
        parse_spec(
            {"data": {k: v for k, v in data.items() if v is not None}, "ll144": BASE},
            origin="s.yaml",
        )
    assert needle in info.value.diagnostics()


def test_distribution_date_in_one_place() -> None:
    doc = {
        "system": {"first_distributed": "2025-03-01"},
        "data": DATA,
        "ll144": {**BASE, "distribution_date": "2025-04-01"},
    }
    with pytest.raises(SpecError, match=r"is 2025-04-01, but system\.first_distributed is"):
        parse_spec(doc)


def test_no_block_at_all_still_asks_for_fairness() -> None:
    with pytest.raises(SpecError, match="fairness: is required but missing"):
        parse_spec({"data": DATA})


def test_command_without_an_ll144_block(
    tmp_path: Path, cli_run: Callable[..., Any], ll: SimpleNamespace
) -> None:
    path = tmp_path / "spec.yaml"
    path.write_text("fairness:\n  label: y\n  prediction: p\n  attributes: {sex: [f, m]}\n")
    run = cli_run("ll144", str(path))
    assert run.code == 2 and "ll144: is required by respai ll144" in run.err
