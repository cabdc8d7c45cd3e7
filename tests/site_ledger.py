"""A ledger holding an evaluate, a plan, an LL144 and a monitoring run, for ``respai site``.

Generated data only (fixed seed); the runs are made in-process with their own key folder.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

SPEC = """\
system: {name: screener, version: "1"}
data:
  cases: cases.csv
  id: id
  source: test
  explanation: random cases generated for the test
fairness:
  label: y
  prediction: p
  attributes: {sex: [Female, Male], race: [White, Black or African American]}
  rules:
    - {id: fnr-by-sex, rate: false_negative, attribute: sex, max_group_gap: 0.2}
"""
LL144 = """\
ll144:
  kind: selection
  selected: p
  sex: sex
  race: race
  audit_date: 2026-11-30
  distribution_date: 2026-12-01
"""
MONITOR = """\
system: {name: screener, version: "1"}
fairness:
  label: y
  prediction: p
  attributes: {sex: [Female, Male]}
  rules:
    - {id: gap, rate: selection, attribute: sex, max_group_gap: 0.3}
"""


def write_inputs(folder: Path, system: str = "screener") -> None:
    """The cases, two monitoring batches and the three specs (``system`` a YAML scalar)."""
    rng = np.random.default_rng(11)
    n = 300
    y = rng.integers(0, 2, n)
    pd.DataFrame(
        {
            "id": [f"c{i}" for i in range(n)],
            "y": y,
            "p": np.where(rng.random(n) < 0.8, y, 1 - y),
            "sex": rng.choice(["Female", "Male"], n),
            "race": rng.choice(["White", "Black or African American"], n),
        }
    ).to_csv(folder / "cases.csv", index=False)
    for week in (0, 1):
        yy = rng.integers(0, 2, 120)
        pd.DataFrame(
            {
                "y": yy,
                "p": np.where(rng.random(120) < 0.8, yy, 1 - yy),
                "sex": rng.choice(["Female", "Male"], 120),
            }
        ).to_csv(folder / f"week{week}.csv", index=False)
    spec, monitor = (t.replace("name: screener", f"name: {system}") for t in (SPEC, MONITOR))
    (folder / "spec.yaml").write_text(spec, encoding="utf-8")
    (folder / "ll144.yaml").write_text(spec + LL144, encoding="utf-8")
    (folder / "monitor.yaml").write_text(monitor, encoding="utf-8")


def make_site_ledger(folder: Path, system: str = "screener") -> Path:
    """Write the inputs into ``folder`` and the five runs into ``folder/book``.

    The runs: evaluate, plan, ll144 --out, monitor (two batches), evaluate again, all
    signed with a key created in ``folder/keys``. Returns the ledger folder.
    """
    from respai.cli import main

    write_inputs(folder, system)
    with pytest.MonkeyPatch.context() as mp:
        mp.chdir(folder)
        mp.setenv("RESPAI_HOME", str(folder / "keys"))
        mp.delenv("RESPAI_KEY_PASSPHRASE", raising=False)
        runs = [
            ["evaluate", "spec.yaml", "--out", "ev", "--ledger", "book", "--quiet"],
            ["plan", "spec.yaml", "--ledger", "book"],
            ["ll144", "ll144.yaml", "--out", "ll", "--ledger", "book"],
            ["monitor", "monitor.yaml", "week0.csv", "week1.csv", "--ledger", "book", "--out"],
            ["evaluate", "spec.yaml", "--out", "ev2", "--ledger", "book", "--quiet"],
        ]
        runs[3].append("mon")
        for args in runs:
            assert main(args) in (0, 1, 3, 4), args
    return folder / "book"
