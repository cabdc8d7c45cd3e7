"""The golden case: a generated cases file and a spec that reach every kind of rule.

Pure Python (``random.Random`` with a fixed seed), so the same bytes come out on every
machine and every version of the numeric libraries.
"""

from __future__ import annotations

import random
from pathlib import Path

#: Declared values of the many-valued attribute (more than the join coding's threshold).
STORES = 48

SPEC = """\
system: {{name: golden, version: "1"}}
fairness:
  name: golden
  cases: cases.csv
  label: label
  prediction: prediction
  probability: score
  attributes:
    sex: [female, male]
    race: [asian, black, hispanic, white, other]
    age_band: [under_40, 40_plus]
    store: [{stores}]
  intersections:
    - [sex, race]
  rules:
    - {{id: sel-race, rate: selection, attribute: race, max_group_gap: 0.15}}
    - {{id: fnr-sex, rate: false_negative, attribute: sex, max_group_gap: 0.10}}
    - {{id: ratio-race, rate: selection, attribute: race, min_group_ratio: 0.8}}
    - {{id: ratio-ref, rate: selection, attribute: race, min_group_ratio: 0.8, reference: white}}
    - {{id: gap-ref, rate: false_negative, attribute: race, max_group_gap: 0.2, reference: white}}
    - {{id: eo-age, rate: equalized_odds, attribute: age_band, max_group_gap: 0.2}}
    - {{id: err-max, rate: error, attribute: sex, worst_group: {{max: 0.5}}}}
    - {{id: sel-store, rate: selection, attribute: store, max_group_gap: 0.9}}
    - {{id: ratio-store, rate: selection, attribute: store, min_group_ratio: 0.05}}
    - {{id: sel-intersection, rate: selection, attribute: [sex, race], max_group_gap: 0.3}}
evaluation:
  tests: [accuracy, auc, impact_ratio, selection_rate_diff, equal_opportunity_diff,
          completeness, class_balance, missing_decisions]
  score: score
  seed: 1
"""


def write_case(folder: Path) -> Path:
    """Write ``cases.csv`` and ``spec.yaml`` into ``folder``; return the spec's path."""
    rng = random.Random(20261202)
    rows = ["person,sex,race,age_band,store,label,prediction,score"]
    for k in range(1200):
        sex = rng.choice(["female", "male"])
        race = rng.choice(["asian", "black", "hispanic", "white", "other"])
        age = rng.choice(["under_40", "40_plus"])
        store = f"s{rng.randrange(STORES):02d}"
        label = int(rng.random() < (0.55 if sex == "male" else 0.45))
        score = round(min(1.0, max(0.0, rng.gauss(0.35 + 0.3 * label, 0.2))), 3)
        prediction = "" if rng.random() < 0.01 else str(int(score >= 0.5))
        rows.append(f"p{k},{sex},{race},{age},{store},{label},{prediction},{score}")
    (folder / "cases.csv").write_text("\n".join(rows) + "\n", encoding="utf-8")
    stores = ", ".join(f"s{i:02d}" for i in range(STORES))
    spec = folder / "spec.yaml"
    spec.write_text(SPEC.format(stores=stores), encoding="utf-8")
    return spec
