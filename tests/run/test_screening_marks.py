"""An estimate-decided verdict is marked as a screening verdict everywhere it is shown.

``decision: estimate`` (a policy's, per test) carries no error guarantee: the record's
threshold states it (``guarantee``), the reason starts with it, the terminal marks the
threshold ``(estimate: screening)``, and JUnit, ``--json`` and the report carry the
reason and the guarantee from the signed record.
"""

from __future__ import annotations

import html
import json
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from respai.battery import GUARANTEES, SCREENING, Decision
from respai.cli import main

SPEC = """\
system: {name: screening, version: "1"}
data:
  cases: cases.csv
  id: id
  source: test
  explanation: generated for the test
fairness:
  label: y
  prediction: p
  min_cell: 5
  attributes: {sex: [F, M]}
evaluation:
  tests: [accuracy, equal_opportunity_diff]
"""

POLICY = """\
tests:
  equal_opportunity_diff: {decision: estimate}
"""


def _write_cases(folder: Path, *, seed: int, n: int) -> None:
    """Cases with a 15% error rate, the same for both groups."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    pd.DataFrame(
        {
            "id": [f"c{i}" for i in range(n)],
            "sex": rng.choice(["F", "M"], n),
            "y": y,
            "p": np.where(rng.random(n) < 0.15, 1 - y, y),
        }
    ).to_csv(folder / "cases.csv", index=False)


def test_an_estimate_verdict_says_it_is_a_screening_verdict(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _write_cases(tmp_path, seed=3, n=300)
    (tmp_path / "spec.yaml").write_text(SPEC, encoding="utf-8")
    (tmp_path / "policy.yaml").write_text(POLICY, encoding="utf-8")
    old = Path.cwd()
    os.chdir(tmp_path)
    try:
        args = ["evaluate", "spec.yaml", "--policy", "policy.yaml", "--no-ledger"]
        code = main([*args, "--out", "ev", "--json"])
        doc = json.loads(capsys.readouterr().out)
        main([*args, "--out", "ev2"])
        terminal = " ".join(capsys.readouterr().err.split())
        junit = tmp_path / "j.xml"
        assert main(["export", "ev/record.json", "--format", "junit", "-o", str(junit)]) == 0
        assert main(["report", "ev/record.json", "-o", "page.html"]) == 0
    finally:
        os.chdir(old)
    assert code in (0, 1, 3, 4)
    tests = {t["test_key"]: t for t in doc["tests"]}
    eo = tests["equal_opportunity_diff:sex"]
    assert eo["threshold"]["decision"] == "estimate"
    assert eo["threshold"]["guarantee"] == GUARANTEES[Decision.ESTIMATE]
    assert eo["reason"].startswith(SCREENING)
    acc = tests["accuracy"]
    assert acc["threshold"]["decision"] == "interval"
    assert not acc["reason"].startswith(SCREENING)
    assert "<= 0.1 (estimate: screening)" in terminal
    assert "screening verdict on the estimate, no error guarantee" in junit.read_text()
    page = (tmp_path / "page.html").read_text()
    assert html.escape(GUARANTEES[Decision.ESTIMATE]) in page and "Guarantee" in page


def test_every_output_states_a_rules_guarantee(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _write_cases(tmp_path, seed=4, n=400)
    spec = SPEC.replace(
        "evaluation:",
        "  rules:\n    - {id: fnr, rate: false_negative, attribute: sex, max_group_gap: 0.2}\n"
        "evaluation:",
    )
    (tmp_path / "spec.yaml").write_text(spec, encoding="utf-8")
    old = Path.cwd()
    os.chdir(tmp_path)
    try:
        args = ["evaluate", "spec.yaml", "--no-ledger"]
        main([*args, "--out", "ev", "--json"])
        doc = json.loads(capsys.readouterr().out)
        main([*args, "--out", "ev2"])
        terminal = " ".join(capsys.readouterr().err.split())
        assert main(["report", "ev/record.json", "-o", "page.html"]) == 0
    finally:
        os.chdir(old)
    rule = next(t for t in doc["tests"] if t["test_key"] == "rule:fnr")
    guarantee = rule["details"]["guarantee"]
    assert "alpha" in guarantee or "%" in guarantee, guarantee
    assert "rule:fnr:" in terminal and "guarantee:" in terminal.split("rule:fnr:")[-1]
    page = (tmp_path / "page.html").read_text()
    assert html.escape(guarantee) in page
