"""A small spec, policy and cases file for the plan tests (generated, fixed seed)."""

from __future__ import annotations

import base64
import csv
import json
import random
from pathlib import Path
from typing import Any

SPEC = """\
system: {name: loan-screen, version: "2.1"}
scope:
  decision_point: pre-approval screen
  output_type: approve / refer
  population: applicants 2026-Q1
  window: 2026-01-01 to 2026-03-31
  categories: sex (F, M)
  flag_rule: a rule that FAILs is a finding
  auditor: A. Auditor
  independence_statement: no stake in the system's vendor
fairness:
  cases: cases.csv
  label: y
  prediction: yhat
  alpha: 0.05
  attributes:
    sex: [F, M]
    band: [a, b]
  intersections:
    - [sex, band]
  rules:
    - id: fnr-by-sex
      rate: false_negative
      attribute: sex
      max_group_gap: 0.1
"""

#: The same spec: other key order, flow style, quoting and comments.
SPEC_REFORMATTED = """\
# the same criteria, written differently
fairness:
  rules: [{max_group_gap: 0.10, attribute: sex, rate: false_negative, id: "fnr-by-sex"}]
  intersections: [[sex, band]]
  attributes: {band: [a, b], sex: ["F", "M"]}
  alpha: 5.0e-2
  prediction: yhat
  label: "y"
  cases: elsewhere/cases.csv
scope: {flag_rule: a rule that FAILs is a finding, window: 2026-01-01 to 2026-03-31,
  population: applicants 2026-Q1, output_type: approve / refer,
  decision_point: pre-approval screen, categories: "sex (F, M)", auditor: A. Auditor,
  independence_statement: no stake in the system's vendor}
system:
  version: "2.1"
  name: loan-screen
"""

POLICY = "name: strict\nrules:\n  fnr-by-sex: {max_group_gap: 0.08}\n"


def write_spec(folder: Path, text: str = SPEC, name: str = "spec.yaml") -> Path:
    """Write a spec file into ``folder``."""
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def write_cases(folder: Path, n: int = 400, seed: int = 5) -> Path:
    """A cases file the spec can evaluate (both sexes and bands well filled)."""
    rng = random.Random(seed)
    path = folder / "cases.csv"
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh, lineterminator="\n")
        w.writerow(["y", "yhat", "sex", "band"])
        for _ in range(n):
            y = int(rng.random() < 0.5)
            w.writerow(
                [y, y if rng.random() < 0.85 else 1 - y, rng.choice("FM"), rng.choice("ab")]
            )
    return path


def predicate(envelope_file: Path) -> dict[str, Any]:
    """The record inside a DSSE envelope file (not verified: the tests verify apart)."""
    env = json.loads(envelope_file.read_text(encoding="utf-8"))
    statement: dict[str, Any] = json.loads(base64.b64decode(env["payload"]))
    return dict(statement["predicate"])


def runs(ledger: Path) -> list[Path]:
    """The ledger's run files, in order."""
    return sorted((ledger / "runs").glob("*.json"))
