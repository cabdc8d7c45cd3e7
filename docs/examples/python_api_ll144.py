"""The LL144 bias-audit tables from Python, on a pandas DataFrame (docs/python-api.md)."""

import datetime as dt
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from respai.ll144.audit import run_ll144

# 2,000 generated applicants: sex and race as EEO-1 spells them, and who was selected.
rng = np.random.default_rng(144)
n = 2_000
sex = rng.choice(["Male", "Female"], n)
race = rng.choice(["White", "Black or African American", "Hispanic or Latino"], n)
chance = np.where(race == "White", 0.42, 0.33)
df = pd.DataFrame(
    {"id": [f"a{i}" for i in range(n)], "sex": sex, "race": race,
     "selected": (rng.random(n) < chance).astype(int)}
)  # fmt: skip

spec = Path(tempfile.mkdtemp()) / "audit.yaml"
spec.write_text(
    """\
system: {name: cv-screen, version: "3.1", first_distributed: 2025-06-01}
data:
  id: id
  source: historical
  explanation: the screen's decisions on last year's applicants
ll144:
  kind: selection
  selected: selected
  sex: sex
  race: race
  audit_date: 2026-11-30
""",
    encoding="utf-8",
)

audit = run_ll144(spec, data=df, today=dt.date(2026, 12, 1))
for name in ("sex", "race"):
    table = audit.tables[name]
    print(f"{name}: best category {table.best}; {table.unknown} unknown")
    for row in table.rows:
        if row.rate is None or row.impact_ratio is None:  # no applicant: undefined, not 0
            why = (row.rate_undefined or row.ratio_undefined).reason
            print(f"  {row.category:<42} {row.selected:>4}/{row.count:<4} undefined: {why}")
            continue
        print(
            f"  {row.category:<42} {row.selected:>4}/{row.count:<4} rate {row.rate:.3f} "
            f"impact ratio {row.impact_ratio:.3f}"
        )
    for finding in table.findings:
        print(f"  finding: {finding.category} vs {finding.compared_with}: {finding.gap.finding}")
print("JSON keys:", ", ".join(list(audit.to_dict())[:8]), "...")
