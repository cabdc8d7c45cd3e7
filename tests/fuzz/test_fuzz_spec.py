"""Fuzzing the spec: mutated YAML never crashes, hangs or writes on a refusal.

The base is a valid fairness spec over a small valid cases file. Each example flips,
deletes or inserts bytes, the inserted ones drawn from YAML's tricky tokens (anchors and
aliases, merge keys, deep nesting, huge integers, tags, tabs, control and bidi
characters, document markers), and runs ``respai fairness spec.yaml --json``: exit 0, 1,
3 or 4 when the edit kept the spec valid, 2 when it did not, never anything else.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

pytestmark = pytest.mark.fuzz

SPEC = b"""\
system:
  name: loan-screen
  version: "1.0"
fairness:
  name: loan-screen
  cases: cases.csv
  label: label
  prediction: prediction
  probability: score
  unit: person_id
  attributes:
    sex: [female, male]
    age_band: [under_30, 30_to_60, over_60]
  intersections:
    - [sex, age_band]
  min_cell: 5
  alpha: 0.05
  rules:
    - {id: fnr-by-sex, rate: false_negative, attribute: sex, max_group_gap: 0.05}
    - id: error-by-age
      rate: error
      attribute: age_band
      worst_group: {max: 0.35}
"""

YAML_TOKENS: tuple[bytes, ...] = (
    b"&a ",
    b"*a",
    b"<<: *a\n",
    b"a: &a [x, x]\nb: [*a, *a, *a]\n",
    b"[" * 200 + b"]" * 200,
    b"{" * 200 + b"}" * 200,
    b"- " * 100,
    b"!!python/object/apply:os.system ['true']",
    b"!!binary AAAA",
    b"!custom ",
    b"? ",
    b"? !!set {a: null}\n: 1\n",
    b": ",
    b"- ",
    b"---\n",
    b"...\n",
    b"%YAML 1.1\n",
    b"|\n",
    b">-\n",
    b"'",
    b'"',
    b'"\\x1b[2J\\u202e"',
    b"~",
    b"null",
    b".nan",
    b".inf",
    b"0x1F",
    b"0o17",
    b"1_000",
    b"yes",
    b"2026-12-01",
    b"\t",
    b"    ",
    b"#",
    b"fairness:\n",
    b"rules: []\n",
    b"min_cell: " + b"7" * 4400,
)

ROWS = [
    f"{i + 1},{i % 2},{(i // 2) % 2},{(i * 37 % 100) / 100:.2f},"
    f"{('female', 'male')[i % 2]},{('under_30', '30_to_60', 'over_60')[i % 3]}"
    for i in range(60)
]
CASES = ("person_id,label,prediction,score,sex,age_band\n" + "\n".join(ROWS) + "\n").encode()


def _folder(root: Path, spec: bytes) -> Path:
    folder = Path(tempfile.mkdtemp(dir=root))
    (folder / "spec.yaml").write_bytes(spec)
    (folder / "cases.csv").write_bytes(CASES)
    return folder


def test_the_base_spec_and_policy_are_valid(cli: Any, tmp_path: Path) -> None:
    """The mutations start from files that run (so a refusal is the mutation's doing)."""
    folder = _folder(tmp_path, SPEC)
    run = cli.run(["fairness", "spec.yaml", "--json"], folder)
    assert run.code in (0, 1, 3, 4), run.err
    (folder / "policy.yaml").write_bytes(POLICY)
    run = cli.run(["fairness", "spec.yaml", "--policy", "policy.yaml", "--json"], folder)
    assert run.code in (0, 1, 3, 4), run.err


@settings(settings.get_profile("respai-fuzz"), max_examples=80)
@given(data=st.data())
def test_mutated_spec(
    data: st.DataObject, cli: Any, mutate: Callable[..., Any], tmp_path: Path
) -> None:
    spec = data.draw(mutate(SPEC, YAML_TOKENS), label="spec")
    folder = _folder(tmp_path, spec)
    try:
        before = cli.snapshot(folder)
        run = cli.run(["fairness", "spec.yaml", "--json"], folder)
        cli.check(run, (0, 1, 2, 3, 4), folder, before)
    finally:
        shutil.rmtree(folder)


@settings(settings.get_profile("respai-fuzz"), max_examples=30)
@given(data=st.data())
def test_mutated_spec_when_signing(
    data: st.DataObject,
    cli: Any,
    mutate: Callable[..., Any],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``respai evaluate`` signs, writes an output folder and appends to a ledger: on exit
    2 none of them (nor a key) may appear; the key folder is inside the working folder."""
    spec = data.draw(mutate(SPEC, YAML_TOKENS), label="spec")
    folder = _folder(tmp_path, spec)
    monkeypatch.setenv("RESPAI_HOME", str(folder / "home"))
    try:
        before = cli.snapshot(folder)
        run = cli.run(["evaluate", "spec.yaml", "--out", "out"], folder)
        cli.check(run, (0, 1, 2, 3, 4), folder, before)
    finally:
        shutil.rmtree(folder)


POLICY = b"""\
alpha: 0.05
min_cell: 5
max_left_out: 0.1
rules:
  fnr-by-sex:
    max_group_gap: 0.10
  error-by-age:
    worst_group: {max: 0.4}
"""


@settings(settings.get_profile("respai-fuzz"), max_examples=40)
@given(data=st.data())
def test_mutated_policy(
    data: st.DataObject, cli: Any, mutate: Callable[..., Any], tmp_path: Path
) -> None:
    policy = data.draw(mutate(POLICY, YAML_TOKENS), label="policy")
    folder = _folder(tmp_path, SPEC)
    (folder / "policy.yaml").write_bytes(policy)
    try:
        before = cli.snapshot(folder)
        run = cli.run(["fairness", "spec.yaml", "--policy", "policy.yaml", "--json"], folder)
        cli.check(run, (0, 1, 2, 3, 4), folder, before)
    finally:
        shutil.rmtree(folder)


HOSTILE = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**30), max_value=10**30),
    st.floats(),
    st.text(max_size=12),
    st.sampled_from(
        ["", "\x1b[2J", "\u202e", "sex", "label", "female", "[sex, age_band]", "0.05", "nan"]
    ),
    st.lists(st.sampled_from(["sex", "age_band", "female", 1, None]), max_size=3),
    st.dictionaries(st.sampled_from(["max", "min", "id", "rate", "x"]), st.integers(), max_size=2),
    st.just([[[[[[]]]]]]),
)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(value, dict):
        for key, item in value.items():
            out += _paths(item, (*prefix, key))
    elif isinstance(value, list):
        for i, item in enumerate(value):
            out += _paths(item, (*prefix, i))
    return out


@settings(settings.get_profile("respai-fuzz"), max_examples=80)
@given(data=st.data())
def test_a_spec_value_of_the_wrong_kind(data: st.DataObject, cli: Any, tmp_path: Path) -> None:
    """Structure-aware: the YAML parses, and one value (or key) is of a hostile kind, so
    the validators, not the parser, meet it."""
    doc = yaml.safe_load(SPEC)
    path = data.draw(st.sampled_from(_paths(doc)[1:]), label="path")
    node = doc
    for step in path[:-1]:
        node = node[step]
    if data.draw(st.booleans(), label="as key") and isinstance(node, dict):
        node[data.draw(st.sampled_from(["", "x", "1", "rules"]), label="key")] = node.pop(path[-1])
    else:
        node[path[-1]] = data.draw(HOSTILE, label="value")
    folder = _folder(tmp_path, yaml.safe_dump(doc, allow_unicode=True).encode())
    try:
        before = cli.snapshot(folder)
        run = cli.run(["fairness", "spec.yaml", "--json"], folder)
        cli.check(run, (0, 1, 2, 3, 4), folder, before)
    finally:
        shutil.rmtree(folder)


BATTERY = (
    SPEC
    + b"""\
evaluation:
  tests: [accuracy, auc, impact_ratio, selection_rate_diff, equal_opportunity_diff,
          completeness, class_balance, missing_decisions]
  score: score
  seed: 20261201
  noise: 0.05
  trials: 5
"""
)
LL144 = b"""\
system:
  name: screener
  version: "1.0"
  first_distributed: "2025-03-01"
data:
  cases: decisions.csv
  source: historical
  explanation: Decisions of 2025, self-reported categories.
ll144:
  audit_date: "2026-11-30"
  kind: selection
  selected: advanced
  sex: sex
  race: race
  exclusion_justification: Under 2% of applicants.
  auditor:
    name: A. Auditor
    organisation: Independent Audits LLC
    independence_statement: No involvement in building, selling or using the tool.
"""
DECISIONS = "applicant_id,sex,race,advanced\n" + "".join(
    f"A{i:04d},{('Male', 'Female')[i % 2]},{('White', 'Asian', 'Hispanic or Latino')[i % 3]},"
    f"{int(i % 5 < 2)}\n"
    for i in range(120)
)
#: The spec, the command, and whether it signs (then the key folder is in the folder).
BLOCKS = {
    "evaluation": (BATTERY, ["evaluate", "spec.yaml", "--out", "out", "--no-ledger"]),
    "ll144": (LL144, ["ll144", "spec.yaml", "--json"]),
}


@pytest.mark.parametrize("block", list(BLOCKS))
def test_the_block_specs_are_valid(
    block: str, cli: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec, argv = BLOCKS[block]
    folder = _folder(tmp_path, spec)
    (folder / "decisions.csv").write_text(DECISIONS, encoding="utf-8")
    monkeypatch.setenv("RESPAI_HOME", str(folder / "home"))
    run = cli.run(argv, folder)
    assert run.code in (0, 1, 3, 4), run.err


@pytest.mark.parametrize("block", list(BLOCKS))
@settings(settings.get_profile("respai-fuzz"), max_examples=30)
@given(data=st.data())
def test_a_block_value_of_the_wrong_kind(
    block: str,
    data: st.DataObject,
    cli: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The same for the ``evaluation:`` block (through ``respai evaluate``, which signs)
    and the ``ll144:``, ``data:`` and ``system:`` blocks (through ``respai ll144``)."""
    spec, argv = BLOCKS[block]
    doc = yaml.safe_load(spec)
    paths = [p for p in _paths(doc)[1:] if p[0] in (block, "data", "system")]
    path = data.draw(st.sampled_from(paths), label="path")
    node = doc
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = data.draw(HOSTILE, label="value")
    folder = _folder(tmp_path, yaml.safe_dump(doc, allow_unicode=True).encode())
    (folder / "decisions.csv").write_text(DECISIONS, encoding="utf-8")
    monkeypatch.setenv("RESPAI_HOME", str(folder / "home"))
    try:
        before = cli.snapshot(folder)
        run = cli.run(argv, folder)
        cli.check(run, (0, 1, 2, 3, 4), folder, before)
    finally:
        shutil.rmtree(folder)
