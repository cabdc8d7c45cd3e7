"""The group rules from Python, on a pandas DataFrame (the example of docs/python-api.md)."""

import json
from importlib import resources

import pandas as pd

from respai.fairness import evaluate_fairness

# The bundled sample: 6,000 decided loan applications, one row per case.
with resources.as_file(resources.files("respai") / "samples" / "loan_screen.csv") as path:
    df = pd.read_csv(path)

# The same declaration as a spec file's fairness: block, written as a dict.
# No `cases:` key: the data comes from the DataFrame.
spec = {
    "name": "loan-screen",
    "label": "label",
    "prediction": "prediction",
    "probability": "score",
    "unit": "person_id",
    "attributes": {
        "sex": ["female", "male"],
        "age_band": ["under_30", "30_to_60", "over_60"],
    },
    "intersections": [["sex", "age_band"]],
    "rules": [
        {"id": "fnr-by-sex", "rate": "false_negative", "attribute": "sex", "max_group_gap": 0.05},
        {
            "id": "fnr-crossed",
            "rate": "false_negative",
            "attribute": ["sex", "age_band"],
            "max_group_gap": 0.10,
        },
    ],
}

result = evaluate_fairness(spec, df)

print("verdict:", result.verdict.value, "exit code:", result.exit_code)

for rule in result.rules:
    print(f"{rule.rule.id}: {rule.verdict.value} ({rule.reason_code})")

print("groups of the first rule:")
for g in result.rules[0].groups:
    print(
        f"  {g.label:<7} cases={g.cases} events={g.events} missing={g.missing} "
        f"rate={g.rate:.4f} interval=[{g.interval.lo:.4f}, {g.interval.hi:.4f}]"
    )

print("per-group table for sex (FNR over cases with a prediction, 95% Wilson):")
for row in result.tables["sex"]:
    fnr = row.metrics["fnr"]
    print(
        f"  {row.label:<7} count={row.count} fnr={fnr.numerator}/{fnr.denominator} "
        f"= {fnr.value:.4f} [{fnr.interval.lo:.4f}, {fnr.interval.hi:.4f}]"
    )

record = result.to_dict()
print("JSON keys:", ", ".join(record))
print("gap bounds of fnr-by-sex:", json.dumps(record["rules"][0]["gap_bounds"]))
